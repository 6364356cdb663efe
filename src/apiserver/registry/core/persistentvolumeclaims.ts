// PersistentVolumeClaims with a status subresource: the binder (src/controllers/volume) binds
// them to volumes and writes their phase. The spec is fixed after create, as upstream's
// ValidatePersistentVolumeClaimUpdate, except: the binder sets volumeName once, a claim
// without a class may get one (the retroactive default), and a bound claim may grow.
import type { Fields, KubeObject } from '../../../api/object.js';
import type { ResourceDef } from '../types.js';
import { ageColumn, col, identityVersion, specStrategy, statusStrategy } from '../common.js';
import { forbiddenField, invalidValue, isDNS1123Subdomain, notSupported, required, type FieldError } from '../../../api/validation.js';
import { quantityValue } from '../../../util/quantity.js';
import { accessModesText, validateAccessModes } from './volume-access.js';

function defaults(o: KubeObject): void {
  const spec = o.spec ?? (o.spec = {});
  spec.volumeMode ??= 'Filesystem';
}

function validate(o: KubeObject): FieldError[] {
  const spec: Fields = o.spec ?? {};
  const errs = validateAccessModes('spec.accessModes', spec.accessModes, 'at least 1 access mode is required');
  const storage = spec.resources?.requests?.storage;
  if (storage === undefined && !spec.dataSource && !spec.dataSourceRef) errs.push(required('spec.resources[storage]', ''));
  else if (storage !== undefined) {
    const v = quantityValue(storage);
    if (v === null || v <= 0) errs.push(invalidValue('spec.resources.requests[storage]', storage, 'must be greater than zero'));
  }
  if (spec.storageClassName) {
    const msg = isDNS1123Subdomain(spec.storageClassName);
    if (msg) errs.push(invalidValue('spec.storageClassName', spec.storageClassName, msg));
  }
  if (!['Filesystem', 'Block'].includes(spec.volumeMode)) errs.push(notSupported('spec.volumeMode', spec.volumeMode, ['Block', 'Filesystem']));
  return errs;
}

function validateUpdate(o: KubeObject, old: KubeObject): FieldError[] {
  const spec: Fields = o.spec ?? {};
  const was: Fields = old.spec ?? {};
  const errs: FieldError[] = [];
  // What may change, carried over from the new spec into a copy of the old one before comparing.
  const allowed: Fields = structuredClone(was);
  if (!was.volumeName) allowed.volumeName = spec.volumeName;
  if (was.storageClassName === undefined) allowed.storageClassName = spec.storageClassName;
  allowed.volumeAttributesClassName = spec.volumeAttributesClassName;
  const bound = old.status?.phase === 'Bound';
  const newSize = spec.resources?.requests?.storage;
  const oldSize = was.resources?.requests?.storage;
  if (bound && newSize !== undefined) {
    allowed.resources = { ...allowed.resources, requests: { ...allowed.resources?.requests, storage: newSize } };
    const n = quantityValue(newSize);
    const m = quantityValue(oldSize);
    if (n !== null && m !== null && n < m) errs.push(forbiddenField('spec.resources.requests.storage', 'field can not be less than previous value'));
  }
  if (canonical(allowed) !== canonical(spec)) errs.push(forbiddenField('spec', 'spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims'));
  return errs;
}

function canonical(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) => (x && typeof x === 'object' && !Array.isArray(x) ? Object.fromEntries(Object.entries(x).filter(([, y]) => y !== undefined).sort(([a], [b]) => a.localeCompare(b))) : x));
}

export const persistentvolumeclaims: ResourceDef = {
  group: '', resource: 'persistentvolumeclaims', singular: 'persistentvolumeclaim', kind: 'PersistentVolumeClaim', listKind: 'PersistentVolumeClaimList', namespaced: true,
  shortNames: ['pvc'],
  versions: [identityVersion('v1', 'io.k8s.api.core.v1.PersistentVolumeClaim')],
  storageVersion: 'v1',
  strategy: specStrategy({ initialStatus: () => ({ phase: 'Pending' }), defaults, validate, validateUpdate }),
  statusStrategy: statusStrategy(),
  // kubectl's printPersistentVolumeClaim.
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
