// PersistentVolumes: cluster-scoped, with a status subresource the binder writes. Validated as
// upstream's ValidatePersistentVolume: a storage capacity, access modes, exactly one source,
// node affinity for local volumes; the source and volume mode are fixed after create.
import { isDeepStrictEqual } from 'node:util';
import type { Fields, KubeObject } from '../../../api/object.js';
import type { ResourceDef } from '../types.js';
import { ageColumn, col, identityVersion, specStrategy, statusStrategy } from '../common.js';
import { forbiddenField, invalidValue, isDNS1123Subdomain, notSupported, required, type FieldError } from '../../../api/validation.js';
import { quantityValue } from '../../../util/quantity.js';
import { accessModesText, validateAccessModes } from './volume-access.js';

/** The sources capstan describes (the DSL's PersistentVolumeSource fields). */
export const VOLUME_SOURCES = ['hostPath', 'nfs', 'local'] as const;
const reclaimPolicies = ['Delete', 'Recycle', 'Retain'];
const phases = ['Pending', 'Available', 'Bound', 'Released', 'Failed'];

function defaults(o: KubeObject): void {
  const spec = o.spec ?? (o.spec = {});
  spec.persistentVolumeReclaimPolicy ??= 'Retain';
  spec.volumeMode ??= 'Filesystem';
}

const absolute = (field: string, path: unknown): FieldError[] =>
  typeof path !== 'string' || !path ? [required(field)] : path.startsWith('/') ? [] : [invalidValue(field, path, 'must be an absolute path')];

function validateSource(spec: Fields): FieldError[] {
  const set = VOLUME_SOURCES.filter((s) => spec[s] != null);
  if (!set.length) return [required('spec', 'must specify a volume type')];
  if (set.length > 1) return [forbiddenField(`spec.${set[1]}`, 'may not specify more than 1 volume type')];
  const errs: FieldError[] = [];
  if (spec.hostPath) errs.push(...absolute('spec.hostPath.path', spec.hostPath.path));
  if (spec.local) {
    errs.push(...absolute('spec.local.path', spec.local.path));
    if (!spec.nodeAffinity?.required) errs.push(required('spec.nodeAffinity', 'Local volume requires node affinity'));
  }
  if (spec.nfs) {
    if (!spec.nfs.server) errs.push(required('spec.nfs.server'));
    errs.push(...absolute('spec.nfs.path', spec.nfs.path));
  }
  return errs;
}

function validate(o: KubeObject): FieldError[] {
  const spec: Fields = o.spec ?? {};
  const errs = validateAccessModes('spec.accessModes', spec.accessModes, 'must specify at least 1 access mode');
  const capacity: Fields = spec.capacity ?? {};
  if (!Object.keys(capacity).length) errs.push(required('spec.capacity'));
  for (const k of Object.keys(capacity)) if (k !== 'storage') errs.push(notSupported('spec.capacity', k, ['storage']));
  if (capacity.storage !== undefined) {
    const v = quantityValue(capacity.storage);
    if (v === null || v <= 0) errs.push(invalidValue('spec.capacity[storage]', capacity.storage, 'must be greater than zero'));
  }
  errs.push(...validateSource(spec));
  if (!reclaimPolicies.includes(spec.persistentVolumeReclaimPolicy)) errs.push(notSupported('spec.persistentVolumeReclaimPolicy', spec.persistentVolumeReclaimPolicy, reclaimPolicies));
  if (spec.storageClassName) {
    const msg = isDNS1123Subdomain(spec.storageClassName);
    if (msg) errs.push(invalidValue('spec.storageClassName', spec.storageClassName, msg));
  }
  if (!['Filesystem', 'Block'].includes(spec.volumeMode)) errs.push(notSupported('spec.volumeMode', spec.volumeMode, ['Block', 'Filesystem']));
  if (spec.claimRef) {
    if (!spec.claimRef.name) errs.push(required('spec.claimRef.name'));
    if (!spec.claimRef.namespace) errs.push(required('spec.claimRef.namespace'));
  }
  return errs;
}

function validateUpdate(o: KubeObject, old: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const source = (spec: Fields | undefined) => Object.fromEntries(VOLUME_SOURCES.map((s) => [s, spec?.[s]]));
  if (!isDeepStrictEqual(source(o.spec), source(old.spec))) errs.push(forbiddenField('spec.persistentvolumesource', 'spec.persistentvolumesource is immutable after creation'));
  if (o.spec?.volumeMode !== old.spec?.volumeMode) errs.push(invalidValue('spec.volumeMode', o.spec?.volumeMode, 'field is immutable'));
  if (old.spec?.nodeAffinity && !isDeepStrictEqual(o.spec?.nodeAffinity, old.spec.nodeAffinity)) errs.push(invalidValue('spec.nodeAffinity', o.spec?.nodeAffinity, 'field is immutable'));
  return errs;
}

function validateStatus(o: KubeObject): FieldError[] {
  const phase = o.status?.phase;
  return phase === undefined || phases.includes(phase) ? [] : [notSupported('status.phase', phase, phases)];
}

export const persistentvolumes: ResourceDef = {
  group: '', resource: 'persistentvolumes', singular: 'persistentvolume', kind: 'PersistentVolume', listKind: 'PersistentVolumeList', namespaced: false,
  shortNames: ['pv'],
  versions: [identityVersion('v1', 'io.k8s.api.core.v1.PersistentVolume')],
  storageVersion: 'v1',
  strategy: specStrategy({ initialStatus: () => ({ phase: 'Pending' }), defaults, validate, validateUpdate }),
  statusStrategy: statusStrategy(validateStatus),
  // kubectl's printPersistentVolume.
  columns: [
    col('Capacity', 'The capacity of the volume.', (o) => o.spec?.capacity?.storage ?? ''),
    col('Access Modes', 'The access modes of the volume.', (o) => accessModesText(o.spec?.accessModes)),
    col('Reclaim Policy', 'What happens to the volume when its claim is released.', (o) => o.spec?.persistentVolumeReclaimPolicy ?? ''),
    col('Status', 'The phase of the volume.', (o) => o.status?.phase ?? ''),
    col('Claim', 'The claim bound to the volume.', (o) => o.spec?.claimRef ? `${o.spec.claimRef.namespace}/${o.spec.claimRef.name}` : ''),
    col('StorageClass', 'The storage class of the volume.', (o) => o.spec?.storageClassName ?? ''),
    col('VolumeAttributesClass', 'The volume attributes class of the volume.', (o) => o.spec?.volumeAttributesClassName ?? '<unset>'),
    col('Reason', 'Why the volume is in its phase.', (o) => o.status?.reason ?? ''),
    ageColumn,
    col('VolumeMode', 'The volume mode of the volume.', (o) => o.spec?.volumeMode ?? 'Filesystem', 1),
  ],
};
