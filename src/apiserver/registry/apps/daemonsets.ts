// DaemonSets: spec/status, defaults and validation as upstream's apps/v1 strategy.
import { isDeepStrictEqual } from 'node:util';
import type { Fields, KubeObject } from '../../../api/object.js';
import type { ResourceDef } from '../types.js';
import { ageColumn, col, identityVersion, selectorText, specStrategy, statusStrategy } from '../common.js';
import { defaultPodSpec } from '../../../api/core/pod-defaults.js';
import { forbiddenField, invalidValue, notSupported, required, validateNonNegative, type FieldError } from '../../../api/validation.js';
import { containersCol, imagesCol, isPercentOrInt, selectorCol, validateSelectorAndTemplate, validateSelectorImmutable } from './workloads.js';

/** Upstream keeps the internal templateGeneration of apps/v1 objects in this annotation. */
export const templateGenerationAnnotation = 'deprecated.daemonset.template.generation';

function defaultDaemonSet(o: KubeObject): void {
  const spec = o.spec ?? (o.spec = {});
  spec.updateStrategy ??= {};
  spec.updateStrategy.type ??= 'RollingUpdate';
  if (spec.updateStrategy.type === 'RollingUpdate') {
    spec.updateStrategy.rollingUpdate ??= {};
    spec.updateStrategy.rollingUpdate.maxUnavailable ??= 1;
    spec.updateStrategy.rollingUpdate.maxSurge ??= 0;
  }
  spec.revisionHistoryLimit ??= 10;
  defaultPodSpec(spec.template?.spec);
}

const percentValue = (v: unknown): number => typeof v === 'string' ? parseInt(v, 10) : Number(v ?? 0);

function validateDaemonSet(o: KubeObject): FieldError[] {
  const errs = validateSelectorAndTemplate(o, 'daemonset');
  const spec: Fields = o.spec ?? {};
  const us: Fields = spec.updateStrategy ?? {};
  if (!['RollingUpdate', 'OnDelete'].includes(us.type)) errs.push(notSupported('spec.updateStrategy.type', us.type, ['OnDelete', 'RollingUpdate']));
  const ru: Fields | undefined = us.rollingUpdate;
  if (us.type === 'RollingUpdate' && ru) {
    for (const f of ['maxUnavailable', 'maxSurge']) {
      const v = ru[f];
      if (v === undefined) continue;
      if (!isPercentOrInt(v)) errs.push(invalidValue(`spec.updateStrategy.rollingUpdate.${f}`, v, 'must be a non-negative integer or percentage'));
      else if (typeof v === 'string' && percentValue(v) > 100) errs.push(invalidValue(`spec.updateStrategy.rollingUpdate.${f}`, v, 'must not be greater than 100%'));
    }
    // Exactly one of the two is non-zero.
    const hasUnavailable = percentValue(ru.maxUnavailable) !== 0, hasSurge = percentValue(ru.maxSurge) !== 0;
    if (hasUnavailable && hasSurge) errs.push(invalidValue('spec.updateStrategy.rollingUpdate.maxSurge', ru.maxSurge, 'may not be set when maxUnavailable is non-zero'));
    if (!hasUnavailable && !hasSurge) errs.push(required('spec.updateStrategy.rollingUpdate.maxUnavailable', 'cannot be 0 when maxSurge is 0'));
  }
  errs.push(...validateNonNegative(spec.revisionHistoryLimit, 'spec.revisionHistoryLimit'));
  if (spec.template?.spec?.activeDeadlineSeconds !== undefined) {
    errs.push(forbiddenField('spec.template.spec.activeDeadlineSeconds', 'activeDeadlineSeconds in DaemonSet is not Supported'));
  }
  return errs;
}

function setTemplateGeneration(o: KubeObject, generation: number): void {
  o.metadata.annotations = { ...o.metadata.annotations, [templateGenerationAnnotation]: String(generation) };
}

export const daemonsets: ResourceDef = {
  group: 'apps', resource: 'daemonsets', singular: 'daemonset', kind: 'DaemonSet', listKind: 'DaemonSetList', namespaced: true,
  shortNames: ['ds'], categories: ['all'],
  versions: [identityVersion('v1', 'io.k8s.api.apps.v1.DaemonSet')],
  storageVersion: 'v1',
  strategy: specStrategy({
    initialStatus: () => ({ currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 }),
    defaults: defaultDaemonSet,
    validate: validateDaemonSet,
    validateUpdate: validateSelectorImmutable,
    prepareForCreate: (o) => setTemplateGeneration(o, 1),
    prepareForUpdate: (o, old) => {
      const previous = Number(old.metadata.annotations?.[templateGenerationAnnotation] ?? 0) || 0;
      // A new template is a new template generation, as upstream counts it.
      setTemplateGeneration(o, isDeepStrictEqual(o.spec?.template, old.spec?.template) ? previous || 1 : previous + 1);
    },
  }),
  statusStrategy: statusStrategy(),
  columns: [
    col('Desired', 'The desired number of pods.', (o) => o.status?.desiredNumberScheduled ?? 0, 0, 'integer'),
    col('Current', 'The current number of pods.', (o) => o.status?.currentNumberScheduled ?? 0, 0, 'integer'),
    col('Ready', 'The number of pods ready.', (o) => o.status?.numberReady ?? 0, 0, 'integer'),
    col('Up-to-date', 'The number of pods updated.', (o) => o.status?.updatedNumberScheduled ?? 0, 0, 'integer'),
    col('Available', 'The number of pods available.', (o) => o.status?.numberAvailable ?? 0, 0, 'integer'),
    col('Node Selector', 'The node selector of the pod template.', (o) => selectorText(o.spec?.template?.spec?.nodeSelector)),
    ageColumn, containersCol, imagesCol, selectorCol,
  ],
};
