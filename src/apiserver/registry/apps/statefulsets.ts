// StatefulSets: spec/status/scale, defaults and validation as upstream's apps/v1 strategy.
import type { Fields, KubeObject } from '../../../api/object.js';
import type { ResourceDef } from '../types.js';
import { ageColumn, col, identityVersion, specStrategy, statusStrategy } from '../common.js';
import { defaultPodSpec } from '../../../api/core/pod-defaults.js';
import { forbiddenField, invalidValue, notSupported, validateNonNegative, type FieldError } from '../../../api/validation.js';
import { containersCol, imagesCol, isPercentOrInt, scale, validateSelectorAndTemplate } from './workloads.js';

function defaultStatefulSet(o: KubeObject): void {
  const spec = o.spec ?? (o.spec = {});
  spec.replicas ??= 1;
  spec.minReadySeconds ??= 0;
  spec.podManagementPolicy ??= 'OrderedReady';
  spec.updateStrategy ??= {};
  // As upstream: rollingUpdate is filled in only when the type itself was defaulted.
  if (!spec.updateStrategy.type) {
    spec.updateStrategy.type = 'RollingUpdate';
    spec.updateStrategy.rollingUpdate ??= {};
  }
  if (spec.updateStrategy.type === 'RollingUpdate' && spec.updateStrategy.rollingUpdate) spec.updateStrategy.rollingUpdate.partition ??= 0;
  spec.revisionHistoryLimit ??= 10;
  spec.persistentVolumeClaimRetentionPolicy ??= {};
  spec.persistentVolumeClaimRetentionPolicy.whenDeleted ??= 'Retain';
  spec.persistentVolumeClaimRetentionPolicy.whenScaled ??= 'Retain';
  defaultPodSpec(spec.template?.spec);
  for (const claim of spec.volumeClaimTemplates ?? []) {
    claim.spec ??= {};
    claim.spec.volumeMode ??= 'Filesystem';
  }
}

const retention = ['Retain', 'Delete'];

// Containers may mount the claims of volumeClaimTemplates, which are no volumes of the template
// (upstream leaves the template's volumes unchecked for this reason).
function mountsAClaim(e: FieldError, claims: Set<string>): boolean {
  if (!/volumeMounts\[\d+\]\.name$/.test(e.field)) return false;
  const m = /^("(?:[^"\\]|\\.)*"): must match the name of a volume$/.exec(e.message);
  return !!m && claims.has(JSON.parse(m[1]) as string);
}

function validateStatefulSet(o: KubeObject): FieldError[] {
  const spec: Fields = o.spec ?? {};
  const claims = new Set<string>((spec.volumeClaimTemplates ?? []).map((c: Fields) => c?.metadata?.name).filter(Boolean));
  const errs = validateSelectorAndTemplate(o, 'statefulset').filter((e) => !mountsAClaim(e, claims));
  if (!['OrderedReady', 'Parallel'].includes(spec.podManagementPolicy)) {
    errs.push(notSupported('spec.podManagementPolicy', spec.podManagementPolicy, ['OrderedReady', 'Parallel']));
  }
  const us: Fields = spec.updateStrategy ?? {};
  if (!['RollingUpdate', 'OnDelete'].includes(us.type)) errs.push(notSupported('spec.updateStrategy.type', us.type, ['OnDelete', 'RollingUpdate']));
  if (us.type === 'OnDelete' && us.rollingUpdate) {
    errs.push(invalidValue('spec.updateStrategy.rollingUpdate', us.rollingUpdate, 'only allowed for updateStrategy \'RollingUpdate\''));
  }
  const ru: Fields | undefined = us.rollingUpdate;
  if (ru) {
    errs.push(...validateNonNegative(ru.partition, 'spec.updateStrategy.rollingUpdate.partition'));
    if (ru.maxUnavailable !== undefined) {
      if (!isPercentOrInt(ru.maxUnavailable)) errs.push(invalidValue('spec.updateStrategy.rollingUpdate.maxUnavailable', ru.maxUnavailable, 'must be a non-negative integer or percentage'));
      else if (ru.maxUnavailable === 0 || ru.maxUnavailable === '0%') errs.push(invalidValue('spec.updateStrategy.rollingUpdate.maxUnavailable', ru.maxUnavailable, 'cannot be 0'));
      else if (typeof ru.maxUnavailable === 'string' && parseInt(ru.maxUnavailable, 10) > 100) errs.push(invalidValue('spec.updateStrategy.rollingUpdate.maxUnavailable', ru.maxUnavailable, 'must not be greater than 100%'));
    }
  }
  errs.push(...validateNonNegative(spec.revisionHistoryLimit, 'spec.revisionHistoryLimit'));
  errs.push(...validateNonNegative(spec.ordinals?.start, 'spec.ordinals.start'));
  const policy: Fields = spec.persistentVolumeClaimRetentionPolicy ?? {};
  for (const f of ['whenDeleted', 'whenScaled']) {
    if (!retention.includes(policy[f])) errs.push(notSupported(`spec.persistentVolumeClaimRetentionPolicy.${f}`, policy[f], retention));
  }
  if (spec.template?.spec?.activeDeadlineSeconds !== undefined) {
    errs.push(forbiddenField('spec.template.spec.activeDeadlineSeconds', 'activeDeadlineSeconds in StatefulSet is not Supported'));
  }
  (spec.volumeClaimTemplates ?? []).forEach((c: Fields, i: number) => {
    if (!c?.metadata?.name) errs.push({ type: 'FieldValueRequired', field: `spec.volumeClaimTemplates[${i}].metadata.name`, message: 'name or generateName is required' });
  });
  return errs;
}

// The spec fields an update may change; any other difference is refused as upstream does.
const mutable = ['replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy', 'minReadySeconds'];

function validateStatefulSetUpdate(o: KubeObject, old: KubeObject): FieldError[] {
  const strip = (spec: Fields | undefined) => Object.fromEntries(Object.entries(spec ?? {}).filter(([k]) => !mutable.includes(k)).sort(([a], [b]) => a.localeCompare(b)));
  if (JSON.stringify(strip(o.spec)) === JSON.stringify(strip(old.spec))) return [];
  return [forbiddenField('spec', 'updates to statefulset spec for fields other than \'replicas\', \'ordinals\', \'template\', \'updateStrategy\', \'revisionHistoryLimit\', \'persistentVolumeClaimRetentionPolicy\' and \'minReadySeconds\' are forbidden')];
}

export const statefulsets: ResourceDef = {
  group: 'apps', resource: 'statefulsets', singular: 'statefulset', kind: 'StatefulSet', listKind: 'StatefulSetList', namespaced: true,
  shortNames: ['sts'], categories: ['all'],
  versions: [identityVersion('v1', 'io.k8s.api.apps.v1.StatefulSet')],
  storageVersion: 'v1',
  strategy: specStrategy({ initialStatus: () => ({ replicas: 0 }), defaults: defaultStatefulSet, validate: validateStatefulSet, validateUpdate: validateStatefulSetUpdate }),
  statusStrategy: statusStrategy(),
  scale,
  columns: [
    col('Ready', 'Number of the pod with ready state.', (o) => `${o.status?.readyReplicas ?? 0}/${o.spec?.replicas ?? 0}`),
    ageColumn, containersCol, imagesCol,
  ],
};
