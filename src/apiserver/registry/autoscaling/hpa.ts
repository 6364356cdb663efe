// HorizontalPodAutoscalers: autoscaling/v2 (kept) and v1 (converted), upstream's validation
// of the scale target, replica bounds, metrics and behaviour, a status subresource, and
// kubectl's columns (REFERENCE, TARGETS, MINPODS, MAXPODS, REPLICAS).
import type { Fields, KubeObject } from '../../../api/object.js';
import type { ResourceDef } from '../types.js';
import { ageColumn, col, identityVersion, specStrategy, statusStrategy } from '../common.js';
import { invalidValue, notSupported, required, type FieldError } from '../../../api/validation.js';
import { defaultHPA } from '../../../api/autoscaling/hpa-defaults.js';
import { hpaInternalToV1, hpaV1ToInternal } from '../../../api/autoscaling/conversion.js';
import { quantityValue } from '../../../util/quantity.js';

const METRIC_TYPES = ['ContainerResource', 'External', 'Object', 'Pods', 'Resource'];
const TARGET_TYPES = ['AverageValue', 'Utilization', 'Value'];
const field: Record<string, string> = { Resource: 'resource', ContainerResource: 'containerResource', Pods: 'pods', Object: 'object', External: 'external' };

function validateTarget(t: Fields | undefined, path: string, utilizationAllowed: boolean): FieldError[] {
  if (!t) return [required(path, 'must specify a metric target')];
  const errs: FieldError[] = [];
  if (!TARGET_TYPES.includes(t.type)) errs.push(t.type ? notSupported(`${path}.type`, t.type, TARGET_TYPES) : required(`${path}.type`, 'must specify a metric target type'));
  if (t.averageUtilization != null) {
    if (!utilizationAllowed) errs.push(invalidValue(`${path}.averageUtilization`, t.averageUtilization, 'may not be set for this metric source'));
    else if (!(t.averageUtilization > 0)) errs.push(invalidValue(`${path}.averageUtilization`, t.averageUtilization, 'must be greater than 0'));
  }
  for (const k of ['value', 'averageValue']) {
    if (t[k] != null && !((quantityValue(t[k]) ?? 0) > 0)) errs.push(invalidValue(`${path}.${k}`, t[k], 'must be positive'));
  }
  if (t.type === 'Utilization' && t.averageUtilization == null) errs.push(required(`${path}.averageUtilization`, 'must set averageUtilization when metric target type is Utilization'));
  if (t.type === 'AverageValue' && t.averageValue == null) errs.push(required(`${path}.averageValue`, 'must set averageValue when metric target type is AverageValue'));
  if (t.type === 'Value' && t.value == null) errs.push(required(`${path}.value`, 'must set value when metric target type is Value'));
  return errs;
}

function validateMetric(m: Fields, path: string): FieldError[] {
  if (!METRIC_TYPES.includes(m.type)) return [m.type ? notSupported(`${path}.type`, m.type, METRIC_TYPES) : required(`${path}.type`, 'must specify a metric source type')];
  const errs: FieldError[] = [];
  for (const [t, f] of Object.entries(field)) {
    if (t !== m.type && m[f] != null) errs.push(invalidValue(`${path}.${f}`, '<object>', `must populate the given metric source only: ${field[m.type]}`));
  }
  const src = m[field[m.type]];
  const sp = `${path}.${field[m.type]}`;
  if (!src) return [...errs, required(sp, `must populate information for the given metric source`)];
  if (m.type === 'Resource' || m.type === 'ContainerResource') {
    if (!src.name) errs.push(required(`${sp}.name`, 'must specify a resource name'));
    if (m.type === 'ContainerResource' && !src.container) errs.push(required(`${sp}.container`, 'must specify a container'));
    errs.push(...validateTarget(src.target, `${sp}.target`, true));
  } else {
    if (!src.metric?.name) errs.push(required(`${sp}.metric.name`, 'must specify a metric name'));
    errs.push(...validateTarget(src.target, `${sp}.target`, false));
  }
  return errs;
}

function validateRules(r: Fields | undefined, path: string): FieldError[] {
  if (!r) return [];
  const errs: FieldError[] = [];
  const w = r.stabilizationWindowSeconds;
  if (w != null && (w < 0 || w > 3600)) errs.push(invalidValue(`${path}.stabilizationWindowSeconds`, w, w < 0 ? 'must be greater than or equal to zero' : 'must be less than or equal to 3600'));
  if (r.selectPolicy != null && !['Max', 'Min', 'Disabled'].includes(r.selectPolicy)) errs.push(notSupported(`${path}.selectPolicy`, r.selectPolicy, ['Disabled', 'Max', 'Min']));
  const policies = (r.policies ?? []) as Fields[];
  if (r.policies && !policies.length) errs.push(required(`${path}.policies`, 'must specify at least one Policy'));
  policies.forEach((p, i) => {
    const pp = `${path}.policies[${i}]`;
    if (!['Pods', 'Percent'].includes(p.type)) errs.push(notSupported(`${pp}.type`, p.type, ['Percent', 'Pods']));
    if (!(p.value > 0)) errs.push(invalidValue(`${pp}.value`, p.value, 'must be greater than zero'));
    if (!(p.periodSeconds > 0)) errs.push(invalidValue(`${pp}.periodSeconds`, p.periodSeconds, 'must be greater than zero'));
    else if (p.periodSeconds > 1800) errs.push(invalidValue(`${pp}.periodSeconds`, p.periodSeconds, 'must be less than or equal to 1800'));
  });
  return errs;
}

export function validateHPA(o: KubeObject): FieldError[] {
  const spec: Fields = o.spec ?? {};
  const errs: FieldError[] = [];
  const ref = spec.scaleTargetRef ?? {};
  if (!ref.kind) errs.push(required('spec.scaleTargetRef.kind'));
  if (!ref.name) errs.push(required('spec.scaleTargetRef.name'));
  if (spec.minReplicas != null && spec.minReplicas < 1) errs.push(invalidValue('spec.minReplicas', spec.minReplicas, 'must be greater than or equal to 1'));
  if (!(spec.maxReplicas >= 1)) errs.push(invalidValue('spec.maxReplicas', spec.maxReplicas ?? 0, 'must be greater than 0'));
  else if (spec.minReplicas != null && spec.maxReplicas < spec.minReplicas) errs.push(invalidValue('spec.maxReplicas', spec.maxReplicas, 'must be greater than or equal to `minReplicas`'));
  ((spec.metrics ?? []) as Fields[]).forEach((m, i) => errs.push(...validateMetric(m, `spec.metrics[${i}]`)));
  errs.push(...validateRules(spec.behavior?.scaleUp, 'spec.behavior.scaleUp'), ...validateRules(spec.behavior?.scaleDown, 'spec.behavior.scaleDown'));
  return errs;
}

/** kubectl's TARGETS: `cpu: 45%/50%` per metric, `<unknown>` before a measurement. */
export function formatTargets(o: KubeObject): string {
  const specs = (o.spec?.metrics ?? []) as Fields[];
  const statuses = (o.status?.currentMetrics ?? []) as Fields[];
  if (!specs.length) return '<none>';
  const parts = specs.map((m, i) => {
    const st = statuses[i];
    if (m.type === 'Resource' || m.type === 'ContainerResource') {
      const src = m[field[m.type]], cur = st?.[field[m.type]]?.current;
      const name = m.type === 'ContainerResource' ? `${src.name} of container "${src.container}"` : src.name;
      if (src.target?.averageValue != null) return `${name}: ${cur?.averageValue ?? '<unknown>'}/${src.target.averageValue}`;
      const current = cur?.averageUtilization != null ? `${cur.averageUtilization}%` : '<unknown>';
      return `${name}: ${current}/${src.target?.averageUtilization != null ? `${src.target.averageUtilization}%` : '<auto>'}`;
    }
    const src = m[field[m.type]] ?? {}, cur = st?.[field[m.type]]?.current ?? {};
    const target = src.target?.averageValue ?? src.target?.value ?? '<unset>';
    const current = (src.target?.averageValue != null ? cur.averageValue : cur.value) ?? '<unknown>';
    return `${src.metric?.name ?? ''}: ${current}/${target}${src.target?.averageValue != null ? ' (avg)' : ''}`;
  });
  return parts.length > 2 ? `${parts.slice(0, 2).join(', ')} + ${parts.length - 2} more...` : parts.join(', ');
}

export const horizontalpodautoscalers: ResourceDef = {
  group: 'autoscaling', resource: 'horizontalpodautoscalers', singular: 'horizontalpodautoscaler', kind: 'HorizontalPodAutoscaler', listKind: 'HorizontalPodAutoscalerList',
  namespaced: true, shortNames: ['hpa'], categories: ['all'],
  versions: [
    identityVersion('v2', 'io.k8s.api.autoscaling.v2.HorizontalPodAutoscaler'),
    { version: 'v1', schemaName: 'io.k8s.api.autoscaling.v1.HorizontalPodAutoscaler', toInternal: hpaV1ToInternal, fromInternal: hpaInternalToV1 },
  ],
  storageVersion: 'v2',
  strategy: specStrategy({ defaults: defaultHPA, validate: validateHPA, validateUpdate: (o) => validateHPA(o) }),
  statusStrategy: statusStrategy(),
  columns: [
    col('Reference', 'Reference to the workload it scales.', (o) => `${o.spec?.scaleTargetRef?.kind ?? ''}/${o.spec?.scaleTargetRef?.name ?? ''}`),
    col('Targets', 'Current and target values of its metrics.', formatTargets),
    col('MinPods', 'Lower limit of replicas.', (o) => (o.spec?.minReplicas != null ? String(o.spec.minReplicas) : '<unset>')),
    col('MaxPods', 'Upper limit of replicas.', (o) => o.spec?.maxReplicas ?? 0, 0, 'integer'),
    col('Replicas', 'Replicas last seen.', (o) => o.status?.currentReplicas ?? 0, 0, 'integer'),
    ageColumn,
  ],
};
