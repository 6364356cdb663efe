// PersistentVolumeClaims served as plain objects with a status subresource: StatefulSets create
// them per ordinal. Nothing binds or provisions them yet, so they stay Pending.
import type { Fields, KubeObject } from '../../../api/object.js';
import type { ResourceDef } from '../types.js';
import { ageColumn, col, identityVersion, specStrategy, statusStrategy } from '../common.js';
import { forbiddenField, notSupported, required, type FieldError } from '../../../api/validation.js';

const accessModes = ['ReadWriteOnce', 'ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOncePod'];

function defaults(o: KubeObject): void {
  const spec = o.spec ?? (o.spec = {});
  spec.volumeMode ??= 'Filesystem';
}

function validate(o: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const spec: Fields = o.spec ?? {};
  const modes: unknown[] = spec.accessModes ?? [];
  if (!modes.length) errs.push(required('spec.accessModes', 'at least 1 access mode is required'));
  for (const m of modes) if (!accessModes.includes(m as string)) errs.push(notSupported('spec.accessModes', m, accessModes));
  if (!spec.resources?.requests?.storage && !spec.dataSource && !spec.dataSourceRef) errs.push(required('spec.resources[storage]', ''));
  if (!['Filesystem', 'Block'].includes(spec.volumeMode)) errs.push(notSupported('spec.volumeMode', spec.volumeMode, ['Block', 'Filesystem']));
  return errs;
}

function validateUpdate(o: KubeObject, old: KubeObject): FieldError[] {
  // The requested size may change, and a binder may set volumeName once; the rest is fixed.
  const fixed = (spec: Fields | undefined) => {
    const { resources: _r, volumeName: _v, volumeAttributesClassName: _c, ...rest } = spec ?? {};
    return JSON.stringify(Object.entries(rest).sort(([a], [b]) => a.localeCompare(b)));
  };
  const volumeChanged = old.spec?.volumeName !== undefined && o.spec?.volumeName !== old.spec.volumeName;
  if (fixed(o.spec) === fixed(old.spec) && !volumeChanged) return [];
  return [forbiddenField('spec', 'spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims')];
}

export const persistentvolumeclaims: ResourceDef = {
  group: '', resource: 'persistentvolumeclaims', singular: 'persistentvolumeclaim', kind: 'PersistentVolumeClaim', listKind: 'PersistentVolumeClaimList', namespaced: true,
  shortNames: ['pvc'],
  versions: [identityVersion('v1', 'io.k8s.api.core.v1.PersistentVolumeClaim')],
  storageVersion: 'v1',
  strategy: specStrategy({ initialStatus: () => ({ phase: 'Pending' }), defaults, validate, validateUpdate }),
  statusStrategy: statusStrategy(),
  columns: [
    col('Status', 'The phase of the claim.', (o) => o.status?.phase ?? ''),
    col('Volume', 'The volume bound to the claim.', (o) => o.spec?.volumeName ?? ''),
    col('Capacity', 'The capacity of the bound volume.', (o) => o.status?.capacity?.storage ?? ''),
    col('Access Modes', 'The access modes of the bound volume.', (o) => accessModesText(o.status?.accessModes)),
    col('StorageClass', 'The storage class of the claim.', (o) => o.spec?.storageClassName ?? ''),
    col('VolumeAttributesClass', 'The volume attributes class of the claim.', (o) => o.spec?.volumeAttributesClassName ?? '<unset>'),
    ageColumn,
    col('VolumeMode', 'The volume mode of the claim.', (o) => o.spec?.volumeMode ?? 'Filesystem', 1),
  ],
};

const short: Record<string, string> = { ReadWriteOnce: 'RWO', ReadOnlyMany: 'ROX', ReadWriteMany: 'RWX', ReadWriteOncePod: 'RWOP' };

function accessModesText(modes: string[] | undefined): string {
  return (modes ?? []).map((m) => short[m] ?? m).join(',');
}
