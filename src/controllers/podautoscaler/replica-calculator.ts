// The replica count a Resource metric asks for, after upstream's
// pkg/controller/podautoscaler/replica_calculator.go: pods are sorted into ready (counted),
// unready (Pending, or CPU taken while not yet ready), missing (no metrics) and ignored
// (deleted or Failed); the ratio of usage to target decides, with a tolerance of 10% either
// way; missing pods count as 100% of their request when scaling down and 0% when scaling up,
// unready pods as 0% when scaling up, and a result that would reverse the direction or stay
// within tolerance keeps the current count. Pure: metrics, pods and the time come in.
import type { Pod } from '../../api/kinds.js';
import { milliValue } from '../../util/quantity.js';

/** A pod's usage of one resource in thousandths (millicores, milli-bytes) and when it was taken. */
export interface PodMetric {
  value: number;
  timestamp: number;
  windowMs: number;
}

export type PodMetrics = Map<string, PodMetric>;

export const DEFAULT_TOLERANCE = 0.1;
/** --horizontal-pod-autoscaler-cpu-initialization-period and -initial-readiness-delay. */
export const CPU_INITIALIZATION_PERIOD_MS = 5 * 60_000;
export const INITIAL_READINESS_DELAY_MS = 30_000;

export class MetricsError extends Error {}

export interface ReplicaResult {
  replicas: number;
  /** Average utilisation, percent of the requests. */
  utilization: number;
  /** Average usage per pod, thousandths. */
  rawAverage: number;
  timestamp: number;
}

interface Groups { ready: number; unready: Set<string>; missing: Set<string>; ignored: Set<string> }

export function groupPods(pods: Pod[], metrics: PodMetrics, resource: string, now: number): Groups {
  const g: Groups = { ready: 0, unready: new Set(), missing: new Set(), ignored: new Set() };
  for (const pod of pods) {
    const name = pod.metadata.name ?? '';
    if (pod.metadata.deletionTimestamp || pod.status?.phase === 'Failed') { g.ignored.add(name); continue; }
    if (pod.status?.phase === 'Pending') { g.unready.add(name); continue; }
    const metric = metrics.get(name);
    if (!metric) { g.missing.add(name); continue; }
    if (resource === 'cpu') {
      const ready = (pod.status?.conditions ?? []).find((c) => c.type === 'Ready');
      const start = pod.status?.startTime ? Date.parse(pod.status.startTime) : NaN;
      let unready: boolean;
      if (!ready || Number.isNaN(start)) unready = true;
      else {
        const transition = Date.parse(ready.lastTransitionTime ?? '') || 0;
        // Within the initialisation period a pod's CPU counts only once it is ready and the
        // sample was taken wholly after it became ready; later, only a pod that never became
        // ready since its start is unready.
        unready = start + CPU_INITIALIZATION_PERIOD_MS > now
          ? ready.status === 'False' || metric.timestamp < transition + metric.windowMs
          : ready.status === 'False' && start + INITIAL_READINESS_DELAY_MS > transition;
      }
      if (unready) { g.unready.add(name); continue; }
    }
    g.ready++;
  }
  return g;
}

/** Per pod, the sum of its containers' requests of `resource` (thousandths); a container without one is an error. */
export function podRequests(pods: Pod[], resource: string, container?: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const pod of pods) {
    let sum = 0;
    for (const c of pod.spec?.containers ?? []) {
      if (container && c.name !== container) continue;
      const req = c.resources?.requests?.[resource];
      if (req === undefined) throw new MetricsError(`missing request for ${resource} in container ${c.name} of Pod ${pod.metadata.name}`);
      sum += milliValue(req);
    }
    out.set(pod.metadata.name ?? '', sum);
  }
  return out;
}

export function utilizationRatio(metrics: PodMetrics, requests: Map<string, number>, target: number): { ratio: number; utilization: number; rawAverage: number } {
  let used = 0, requested = 0, n = 0;
  for (const [pod, m] of metrics) {
    const r = requests.get(pod);
    if (r === undefined) continue;
    used += m.value;
    requested += r;
    n++;
  }
  if (requested === 0) throw new MetricsError('no metrics returned matched known pods');
  const utilization = Math.trunc((used * 100) / requested);
  return { ratio: utilization / target, utilization, rawAverage: Math.trunc(used / n) };
}

const within = (ratio: number, tolerance: number) => Math.abs(1 - ratio) <= tolerance;

/** The pods' metrics without the ignored and unready pods, and the groups the pods fall in. */
function countedMetrics(args: { resource: string; pods: Pod[]; metrics: PodMetrics; now: number }): { metrics: Map<string, PodMetric>; g: Groups } {
  const metrics = new Map(args.metrics);
  if (!metrics.size) throw new MetricsError(`unable to get metrics for resource ${args.resource}: no metrics returned from resource metrics API`);
  if (!args.pods.length) throw new MetricsError('no pods returned by selector while calculating replica count');
  const g = groupPods(args.pods, metrics, args.resource, args.now);
  for (const name of [...g.ignored, ...g.unready]) metrics.delete(name);
  if (!metrics.size) throw new MetricsError('did not receive metrics for targeted pods (pods might be unready)');
  return { metrics, g };
}

/** GetResourceReplicas: the count an average-utilisation target asks for. */
export function resourceReplicas(args: {
  currentReplicas: number; targetUtilization: number; resource: string; container?: string;
  pods: Pod[]; metrics: PodMetrics; now: number; tolerance?: number;
}): ReplicaResult {
  const { currentReplicas, targetUtilization, resource, pods } = args;
  const tolerance = args.tolerance ?? DEFAULT_TOLERANCE;
  const { metrics, g } = countedMetrics(args);
  const requests = podRequests(pods, resource, args.container);
  const { ratio, utilization, rawAverage } = utilizationRatio(metrics, requests, targetUtilization);
  const timestamp = Math.min(...[...metrics.values()].map((m) => m.timestamp));
  const keep = { replicas: currentReplicas, utilization, rawAverage, timestamp };
  const scaleUpWithUnready = g.unready.size > 0 && ratio > 1;
  if (!scaleUpWithUnready && !g.missing.size) {
    if (within(ratio, tolerance)) return keep;
    return { ...keep, replicas: Math.ceil(ratio * g.ready) };
  }
  if (g.missing.size) {
    // Scaling down, a pod without metrics may be busy: assume it uses its whole request (or
    // the target, if higher). Scaling up, assume it uses nothing.
    const fallback = Math.max(100, targetUtilization);
    for (const name of g.missing) metrics.set(name, { value: ratio < 1 ? ((requests.get(name) ?? 0) * fallback) / 100 : 0, timestamp, windowMs: 0 });
  }
  if (scaleUpWithUnready) for (const name of g.unready) metrics.set(name, { value: 0, timestamp, windowMs: 0 });
  const next = utilizationRatio(metrics, requests, targetUtilization).ratio;
  if (within(next, tolerance) || (ratio < 1 && next > 1) || (ratio > 1 && next < 1)) return keep;
  const replicas = Math.ceil(next * metrics.size);
  if ((next < 1 && replicas > currentReplicas) || (next > 1 && replicas < currentReplicas)) return keep;
  return { ...keep, replicas };
}

/** GetRawResourceReplicas: the count an average-value target (thousandths per pod) asks for. */
export function rawResourceReplicas(args: {
  currentReplicas: number; targetAverage: number; resource: string; pods: Pod[]; metrics: PodMetrics; now: number; tolerance?: number;
}): ReplicaResult {
  const { currentReplicas, targetAverage } = args;
  const tolerance = args.tolerance ?? DEFAULT_TOLERANCE;
  const { metrics, g } = countedMetrics(args);
  const avg = () => [...metrics.values()].reduce((s, m) => s + m.value, 0) / metrics.size;
  const rawAverage = Math.trunc(avg());
  const ratio = rawAverage / targetAverage;
  const timestamp = Math.min(...[...metrics.values()].map((m) => m.timestamp));
  const keep = { replicas: currentReplicas, utilization: 0, rawAverage, timestamp };
  const scaleUpWithUnready = g.unready.size > 0 && ratio > 1;
  if (!scaleUpWithUnready && !g.missing.size) {
    if (within(ratio, tolerance)) return keep;
    return { ...keep, replicas: Math.ceil(ratio * g.ready) };
  }
  for (const name of g.missing) metrics.set(name, { value: ratio < 1 ? targetAverage : 0, timestamp, windowMs: 0 });
  if (scaleUpWithUnready) for (const name of g.unready) metrics.set(name, { value: 0, timestamp, windowMs: 0 });
  const next = avg() / targetAverage;
  if (within(next, tolerance) || (ratio < 1 && next > 1) || (ratio > 1 && next < 1)) return keep;
  const replicas = Math.ceil(next * metrics.size);
  if ((next < 1 && replicas > currentReplicas) || (next > 1 && replicas < currentReplicas)) return keep;
  return { ...keep, replicas };
}
