// The disruption controller's arithmetic, after upstream's pkg/controller/disruption: how many
// pods a budget expects and needs healthy, which allowed evictions still count as going, how
// many pods are healthy, and the status that follows. Pure functions of their inputs and `now`.
import type { Pod, PodDisruptionBudget } from '../../api/kinds.js';
import { DELETION_TIMEOUT_MS, isPodReady, withDisruptionAllowedCondition } from '../../api/policy/disruption.js';
import { resolveIntOrPercent } from '../deployment/util.js';
import { controllerRef } from '../replicaset/index.js';

type Status = NonNullable<PodDisruptionBudget['status']>;

/** The scale of the controller a pod's controller reference names, or undefined when no known controller has it. */
export type ScaleOf = (ref: { apiVersion: string; kind: string; name: string; uid: string }, namespace: string) => { uid: string; scale: number } | undefined;

export interface Expected {
  expectedCount: number;
  desiredHealthy: number;
  /** Pods without a controller: a percentage or maxUnavailable cannot count them. */
  unmanaged: string[];
}

/** Upstream's getExpectedScale: the sum of the scales of the pods' controllers, each counted once. */
function expectedScale(pods: Pod[], scaleOf: ScaleOf): { count: number; unmanaged: string[] } {
  const scales = new Map<string, number>();
  const unmanaged: string[] = [];
  for (const pod of pods) {
    const ref = controllerRef(pod);
    if (!ref) { unmanaged.push(pod.metadata.name!); continue; }
    if (scales.has(ref.uid)) continue;
    const found = scaleOf(ref, pod.metadata.namespace!);
    if (!found) throw new Error(`found no controllers for pod "${pod.metadata.name}"`);
    scales.set(found.uid, found.scale);
  }
  return { count: [...scales.values()].reduce((a, b) => a + b, 0), unmanaged };
}

/** Upstream's getExpectedPodCount: an integer minAvailable counts the pods; anything else the controllers' scale. */
export function expectedPods(pdb: PodDisruptionBudget, pods: Pod[], scaleOf: ScaleOf): Expected {
  const { minAvailable, maxUnavailable } = pdb.spec ?? {};
  if (maxUnavailable !== undefined && maxUnavailable !== null) {
    const { count, unmanaged } = expectedScale(pods, scaleOf);
    const desiredHealthy = Math.max(0, count - resolveIntOrPercent(maxUnavailable, count, true));
    return { expectedCount: count, desiredHealthy, unmanaged };
  }
  if (typeof minAvailable === 'number') return { expectedCount: pods.length, desiredHealthy: minAvailable, unmanaged: [] };
  if (typeof minAvailable === 'string') {
    const { count, unmanaged } = expectedScale(pods, scaleOf);
    return { expectedCount: count, desiredHealthy: resolveIntOrPercent(minAvailable, count, true), unmanaged };
  }
  return { expectedCount: 0, desiredHealthy: 0, unmanaged: [] };
}

export interface DisruptedPods {
  /** Evictions allowed less than DELETION_TIMEOUT_MS ago whose pods are not yet being deleted. */
  disrupted: Record<string, string>;
  /** When the earliest of them expires (ms), for a recheck. */
  recheckAt?: number;
  /** Pods an eviction was allowed for that outlived the timeout (a NotDeleted warning each). */
  notDeleted: Pod[];
}

/** Upstream's buildDisruptedPodMap. */
export function disruptedPods(pods: Pod[], pdb: PodDisruptionBudget, now: number): DisruptedPods {
  const recorded = pdb.status?.disruptedPods ?? {};
  const out: DisruptedPods = { disrupted: {}, notDeleted: [] };
  for (const pod of pods) {
    if (pod.metadata.deletionTimestamp) continue;
    const at = recorded[pod.metadata.name!];
    if (at === undefined) continue;
    const expires = Date.parse(at) + DELETION_TIMEOUT_MS;
    // At the very millisecond it expires it is over (a recheck due now would come back at once).
    if (expires <= now) { out.notDeleted.push(pod); continue; }
    out.disrupted[pod.metadata.name!] = at;
    if (out.recheckAt === undefined || expires < out.recheckAt) out.recheckAt = expires;
  }
  return out;
}

/** Ready pods that are neither being deleted nor about to be (an allowed eviction not yet expired). */
export function countHealthy(pods: Pod[], disrupted: Record<string, string>, now: number): number {
  let healthy = 0;
  for (const pod of pods) {
    if (pod.metadata.deletionTimestamp) continue;
    const at = disrupted[pod.metadata.name!];
    if (at !== undefined && Date.parse(at) + DELETION_TIMEOUT_MS > now) continue;
    if (isPodReady(pod)) healthy++;
  }
  return healthy;
}

/** The status upstream's updatePdbStatus writes: disruptions allowed are what healthy pods exceed the need by. */
export function budgetStatus(pdb: PodDisruptionBudget, s: { currentHealthy: number; desiredHealthy: number; expectedPods: number; disruptedPods: Record<string, string> }, now: Date): Status {
  let disruptionsAllowed = s.currentHealthy - s.desiredHealthy;
  if (s.expectedPods <= 0 || disruptionsAllowed <= 0) disruptionsAllowed = 0;
  const status: Status = {
    ...s, disruptionsAllowed, observedGeneration: pdb.metadata.generation ?? 0,
    ...(pdb.status?.conditions ? { conditions: pdb.status.conditions } : {}),
  };
  if (!Object.keys(status.disruptedPods!).length) delete status.disruptedPods;
  return withDisruptionAllowedCondition(status, now);
}
