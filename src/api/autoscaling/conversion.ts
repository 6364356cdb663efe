// HorizontalPodAutoscaler between autoscaling/v1 and the v2 form the server keeps. v1 knows
// only a CPU utilisation target; what else a v2 object holds travels in annotations (as
// upstream's v1 conversion keeps it), so a v1 read-modify-write keeps it:
// `autoscaling.alpha.kubernetes.io/metrics` (the other metric specs), `…/current-metrics`,
// `…/conditions` and `…/behavior`, each JSON of the v2 fields (upstream writes the metric
// annotations in the older v2beta shape; capstan writes v2's).
import type { Fields, KubeObject } from '../object.js';

const PREFIX = 'autoscaling.alpha.kubernetes.io/';
const ANN = { metrics: `${PREFIX}metrics`, current: `${PREFIX}current-metrics`, conditions: `${PREFIX}conditions`, behavior: `${PREFIX}behavior` };

function strip(o: KubeObject): KubeObject {
  const { apiVersion: _a, kind: _k, ...rest } = o;
  return structuredClone(rest) as KubeObject;
}

const isCPUUtilization = (m: Fields) => m.type === 'Resource' && m.resource?.name === 'cpu' && m.resource?.target?.type === 'Utilization';

function takeAnnotation(o: KubeObject, key: string): unknown {
  const ann = o.metadata.annotations;
  if (!ann || ann[key] === undefined) return undefined;
  const raw = ann[key];
  delete ann[key];
  if (!Object.keys(ann).length) delete o.metadata.annotations;
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}

export function hpaV1ToInternal(o: KubeObject): KubeObject {
  const out = strip(o);
  const { targetCPUUtilizationPercentage: target, ...spec } = (out.spec ?? {}) as Fields;
  const others = takeAnnotation(out, ANN.metrics);
  const behavior = takeAnnotation(out, ANN.behavior);
  const metrics: Fields[] = [];
  if (target != null) metrics.push({ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: target } } });
  if (Array.isArray(others)) metrics.push(...others);
  out.spec = { ...spec, ...(metrics.length ? { metrics } : {}), ...(behavior ? { behavior } : {}) };
  const current = takeAnnotation(out, ANN.current);
  const conditions = takeAnnotation(out, ANN.conditions);
  if (out.status) {
    const { currentCPUUtilizationPercentage: cur, ...status } = out.status as Fields;
    const currentMetrics: Fields[] = [];
    if (cur != null) currentMetrics.push({ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: cur } } });
    if (Array.isArray(current)) currentMetrics.push(...current);
    out.status = { ...status, ...(currentMetrics.length ? { currentMetrics } : {}), ...(Array.isArray(conditions) ? { conditions } : {}) };
  }
  return out;
}

export function hpaInternalToV1(o: KubeObject): KubeObject {
  const out = strip(o);
  const { metrics = [], behavior, ...spec } = (out.spec ?? {}) as Fields;
  const cpu = (metrics as Fields[]).find(isCPUUtilization);
  const others = (metrics as Fields[]).filter((m) => m !== cpu);
  const ann: Record<string, string> = { ...out.metadata.annotations };
  if (others.length) ann[ANN.metrics] = JSON.stringify(others);
  if (behavior) ann[ANN.behavior] = JSON.stringify(behavior);
  out.spec = { ...spec, ...(cpu ? { targetCPUUtilizationPercentage: cpu.resource.target.averageUtilization } : {}) };
  if (out.status) {
    const { currentMetrics = [], conditions, ...status } = out.status as Fields;
    const cur = (currentMetrics as Fields[]).find((m) => m.type === 'Resource' && m.resource?.name === 'cpu');
    const rest = (currentMetrics as Fields[]).filter((m) => m !== cur);
    if (rest.length) ann[ANN.current] = JSON.stringify(rest);
    if (conditions?.length) ann[ANN.conditions] = JSON.stringify(conditions);
    out.status = { ...status, ...(cur?.resource?.current?.averageUtilization != null ? { currentCPUUtilizationPercentage: cur.resource.current.averageUtilization } : {}) };
  }
  if (Object.keys(ann).length) out.metadata = { ...out.metadata, annotations: ann };
  return out;
}
