// storage.k8s.io/v1 StorageClasses, validated as upstream's ValidateStorageClass: a qualified
// provisioner name, Delete/Retain reclaim, Immediate/WaitForFirstConsumer binding; the
// provisioner, parameters, reclaim policy and binding mode are fixed after create.
import { isDeepStrictEqual } from 'node:util';
import type { KubeObject } from '../../../api/object.js';
import type { ResourceDef } from '../types.js';
import { ageColumn, col, identityVersion } from '../common.js';
import { forbiddenField, invalidValue, isQualifiedName, notSupported, required, type FieldError } from '../../../api/validation.js';

/** The annotation that makes a class the default for claims that name none. */
export const DEFAULT_CLASS_ANNOTATION = 'storageclass.kubernetes.io/is-default-class';
/** The beta spelling upstream still honours. */
export const BETA_DEFAULT_CLASS_ANNOTATION = 'storageclass.beta.kubernetes.io/is-default-class';

export function isDefaultClass(o: KubeObject): boolean {
  const a = o.metadata.annotations ?? {};
  return a[DEFAULT_CLASS_ANNOTATION] === 'true' || a[BETA_DEFAULT_CLASS_ANNOTATION] === 'true';
}

const reclaimPolicies = ['Delete', 'Retain'];
const bindingModes = ['Immediate', 'WaitForFirstConsumer'];
const MAX_PARAMETERS = 512;

function defaults(o: KubeObject): void {
  o.reclaimPolicy ??= 'Delete';
  o.volumeBindingMode ??= 'Immediate';
}

function validate(o: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  if (!o.provisioner) errs.push(required('provisioner'));
  else {
    const msg = isQualifiedName(o.provisioner);
    if (msg) errs.push(invalidValue('provisioner', o.provisioner, msg));
  }
  if (Object.keys(o.parameters ?? {}).length > MAX_PARAMETERS) errs.push({ type: 'FieldValueTooMany', field: 'parameters', message: `must have at most ${MAX_PARAMETERS} items` });
  if (!reclaimPolicies.includes(o.reclaimPolicy)) errs.push(notSupported('reclaimPolicy', o.reclaimPolicy, reclaimPolicies));
  if (!bindingModes.includes(o.volumeBindingMode)) errs.push(notSupported('volumeBindingMode', o.volumeBindingMode, bindingModes));
  return errs;
}

function validateUpdate(o: KubeObject, old: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  if (!isDeepStrictEqual(o.parameters ?? {}, old.parameters ?? {})) errs.push(forbiddenField('parameters', 'updates to parameters are forbidden.'));
  if (o.provisioner !== old.provisioner) errs.push(forbiddenField('provisioner', 'updates to provisioner are forbidden.'));
  if (o.reclaimPolicy !== old.reclaimPolicy) errs.push(forbiddenField('reclaimPolicy', 'updates to reclaimPolicy are forbidden.'));
  if (o.volumeBindingMode !== old.volumeBindingMode) errs.push(invalidValue('volumeBindingMode', o.volumeBindingMode, 'field is immutable'));
  return errs;
}

export const storageclasses: ResourceDef = {
  group: 'storage.k8s.io', resource: 'storageclasses', singular: 'storageclass', kind: 'StorageClass', listKind: 'StorageClassList', namespaced: false,
  shortNames: ['sc'],
  versions: [identityVersion('v1', 'io.k8s.api.storage.v1.StorageClass', defaults)],
  storageVersion: 'v1',
  strategy: { defaults, validate, validateUpdate },
  // kubectl's printStorageClass.
  nameCell: (o) => (isDefaultClass(o) ? `${o.metadata.name} (default)` : o.metadata.name ?? ''),
  columns: [
    col('Provisioner', 'The provisioner of the class.', (o) => o.provisioner ?? ''),
    col('ReclaimPolicy', 'The reclaim policy of volumes of the class.', (o) => o.reclaimPolicy ?? 'Delete'),
    col('VolumeBindingMode', 'When claims of the class bind.', (o) => o.volumeBindingMode ?? 'Immediate'),
    col('AllowVolumeExpansion', 'Whether claims of the class may grow.', (o) => o.allowVolumeExpansion === true, 0, 'boolean'),
    ageColumn,
  ],
};
