// Deployments and ReplicaSets: spec/status/scale, pod templates validated like pods.
import type { Fields, KubeObject } from '../../../api/object.js';
import type { ResourceDef, ScaleDef, VersionDef } from '../types.js';
import { ageColumn, col, identityVersion, joinOrNone, specStrategy, statusStrategy } from '../common.js';
import { defaultPodSpec } from '../../../api/core/pod-defaults.js';
import { validatePodSpec } from '../../../api/core/pod-validation.js';
import { fromLabelSelector, matches, selectorString, SelectorParseError } from '../../../api/labels.js';
import { invalidValue, notSupported, required, validateNonNegative, type FieldError } from '../../../api/validation.js';
import {
  defaultDeploymentV1, defaultDeploymentV1beta1, deploymentInternalToV1, deploymentInternalToV1beta1,
  deploymentV1beta1ToInternal, deploymentV1ToInternal,
} from '../../../api/apps/conversion.js';

/** Replicas, selector and template as every apps/v1 workload validates them; `what` names the kind in messages. */
export function validateSelectorAndTemplate(o: KubeObject, what = 'deployment'): FieldError[] {
  const errs: FieldError[] = [];
  const spec = o.spec ?? {};
  errs.push(...validateNonNegative(spec.replicas, 'spec.replicas'));
  errs.push(...validateNonNegative(spec.minReadySeconds, 'spec.minReadySeconds'));
  if (!spec.selector) errs.push(required('spec.selector'));
  let selector = null;
  try { selector = fromLabelSelector(spec.selector); } catch (e) {
    if (e instanceof SelectorParseError) errs.push(invalidValue('spec.selector', spec.selector, e.message));
  }
  if (selector && selector.length === 0) errs.push(invalidValue('spec.selector', spec.selector, `empty selector is invalid for ${what}`));
  if (!spec.template) errs.push(required('spec.template'));
  else {
    if (selector && selector.length && !matches(selector, spec.template.metadata?.labels)) {
      errs.push(invalidValue('spec.template.metadata.labels', spec.template.metadata?.labels ?? {}, '`selector` does not match template `labels`'));
    }
    errs.push(...validatePodSpec(spec.template.spec, 'spec.template.spec'));
    if (spec.template.spec?.restartPolicy && spec.template.spec.restartPolicy !== 'Always') {
      errs.push(notSupported('spec.template.spec.restartPolicy', spec.template.spec.restartPolicy, ['Always']));
    }
  }
  return errs;
}

export function validateSelectorImmutable(o: KubeObject, old: KubeObject): FieldError[] {
  return JSON.stringify(o.spec?.selector) === JSON.stringify(old.spec?.selector) ? [] : [invalidValue('spec.selector', o.spec?.selector, 'field is immutable')];
}

export function isPercentOrInt(v: unknown): boolean {
  return (typeof v === 'number' && Number.isInteger(v) && v >= 0) || (typeof v === 'string' && /^\d+%$/.test(v));
}

function validateDeployment(o: KubeObject): FieldError[] {
  const errs = validateSelectorAndTemplate(o);
  const strategy: Fields = o.spec?.strategy ?? {};
  if (!['RollingUpdate', 'Recreate'].includes(strategy.type)) errs.push(notSupported('spec.strategy.type', strategy.type, ['Recreate', 'RollingUpdate']));
  if (strategy.type === 'Recreate' && strategy.rollingUpdate) errs.push({ type: 'FieldValueForbidden', field: 'spec.strategy.rollingUpdate', message: 'may not be specified when strategy `type` is \'Recreate\'' });
  const ru: Fields | undefined = strategy.rollingUpdate;
  if (ru) {
    for (const f of ['maxSurge', 'maxUnavailable']) {
      if (ru[f] !== undefined && !isPercentOrInt(ru[f])) errs.push(invalidValue(`spec.strategy.rollingUpdate.${f}`, ru[f], 'must be a non-negative integer or percentage'));
    }
    const zero = (v: unknown) => v === 0 || v === '0%';
    if (zero(ru.maxSurge) && zero(ru.maxUnavailable)) errs.push(invalidValue('spec.strategy.rollingUpdate.maxUnavailable', ru.maxUnavailable, 'may not be 0 when `maxSurge` is 0'));
  }
  errs.push(...validateNonNegative(o.spec?.revisionHistoryLimit, 'spec.revisionHistoryLimit'));
  if (o.spec?.progressDeadlineSeconds !== undefined && o.spec.progressDeadlineSeconds <= (o.spec.minReadySeconds ?? 0)) {
    errs.push(invalidValue('spec.progressDeadlineSeconds', o.spec.progressDeadlineSeconds, 'must be greater than minReadySeconds'));
  }
  return errs;
}

function defaultWorkload(o: KubeObject): void {
  const spec = o.spec ?? (o.spec = {});
  spec.replicas ??= 1;
  spec.minReadySeconds ??= 0;
  defaultPodSpec(spec.template?.spec);
}

/**
 * status.replicas is the one field of a ReplicaSet's status that is always there (not
 * omitempty upstream); the Python client refuses a ReplicaSetStatus without it.
 */
function defaultReplicaSetStatus(o: KubeObject): void {
  if (o.status?.replicas === undefined) o.status = { replicas: 0, ...o.status };
}

function defaultReplicaSet(o: KubeObject): void {
  defaultWorkload(o);
  defaultReplicaSetStatus(o);
}

function defaultDeployment(o: KubeObject): void {
  defaultWorkload(o);
  const spec = o.spec;
  spec.strategy ??= { type: 'RollingUpdate' };
  spec.strategy.type ??= 'RollingUpdate';
  if (spec.strategy.type === 'RollingUpdate') {
    spec.strategy.rollingUpdate ??= {};
    spec.strategy.rollingUpdate.maxUnavailable ??= '25%';
    spec.strategy.rollingUpdate.maxSurge ??= '25%';
  }
}

export const scale: ScaleDef = {
  replicas: (o) => o.spec?.replicas ?? 0,
  setReplicas: (o, n) => { o.spec = { ...o.spec, replicas: n }; },
  statusReplicas: (o) => o.status?.replicas ?? 0,
  selector: (o) => {
    try { return selectorString(fromLabelSelector(o.spec?.selector) ?? []); } catch { return ''; } // validation rejects such a selector on write
  },
};

export const containersCol = col('Containers', 'Names of each container in the template.', (o) => joinOrNone((o.spec?.template?.spec?.containers ?? []).map((c: Fields) => c.name)), 1);
export const imagesCol = col('Images', 'Images referenced by each container in the template.', (o) => joinOrNone((o.spec?.template?.spec?.containers ?? []).map((c: Fields) => c.image)), 1);
export const selectorCol = col('Selector', 'Label selector for pods.', (o) => scale.selector(o) || '<none>', 1);

const deploymentV1: VersionDef = { version: 'v1', schemaName: 'io.k8s.api.apps.v1.Deployment', toInternal: deploymentV1ToInternal, fromInternal: deploymentInternalToV1, defaults: defaultDeploymentV1 };
const deploymentV1beta1: VersionDef = { version: 'v1beta1', schemaName: 'io.k8s.api.apps.v1beta1.Deployment', toInternal: deploymentV1beta1ToInternal, fromInternal: deploymentInternalToV1beta1, defaults: defaultDeploymentV1beta1 };

export const deployments: ResourceDef = {
  group: 'apps', resource: 'deployments', singular: 'deployment', kind: 'Deployment', listKind: 'DeploymentList', namespaced: true,
  shortNames: ['deploy'], categories: ['all'],
  versions: [deploymentV1, deploymentV1beta1],
  storageVersion: 'v1',
  // Created with an empty status, as upstream resets it: clients read `"status": {}`.
  strategy: specStrategy({ initialStatus: () => ({}), defaults: defaultDeployment, validate: validateDeployment, validateUpdate: validateSelectorImmutable }),
  statusStrategy: statusStrategy(),
  scale,
  columns: [
    col('Ready', 'Number of the pod with ready state.', (o) => `${o.status?.readyReplicas ?? 0}/${o.spec?.replicas ?? 0}`),
    col('Up-to-date', 'Total number of non-terminated pods targeted by this deployment that have the desired template spec.', (o) => o.status?.updatedReplicas ?? 0, 0, 'integer'),
    col('Available', 'Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.', (o) => o.status?.availableReplicas ?? 0, 0, 'integer'),
    ageColumn, containersCol, imagesCol, selectorCol,
  ],
};

export const replicasets: ResourceDef = {
  group: 'apps', resource: 'replicasets', singular: 'replicaset', kind: 'ReplicaSet', listKind: 'ReplicaSetList', namespaced: true,
  shortNames: ['rs'], categories: ['all'],
  versions: [identityVersion('v1', 'io.k8s.api.apps.v1.ReplicaSet')],
  storageVersion: 'v1',
  strategy: specStrategy({ initialStatus: () => ({ replicas: 0 }), defaults: defaultReplicaSet, validate: (o) => validateSelectorAndTemplate(o), validateUpdate: validateSelectorImmutable }),
  statusStrategy: { ...statusStrategy(), defaults: defaultReplicaSetStatus },
  scale,
  columns: [
    col('Desired', 'Number of desired pods.', (o) => o.spec?.replicas ?? 0, 0, 'integer'),
    col('Current', 'Number of actually running pods.', (o) => o.status?.replicas ?? 0, 0, 'integer'),
    col('Ready', 'Number of ready pods.', (o) => o.status?.readyReplicas ?? 0, 0, 'integer'),
    ageColumn, containersCol, imagesCol, selectorCol,
  ],
};
