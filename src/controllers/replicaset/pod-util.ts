// Facts about pods the workload controllers agree on: which pods count, which are ready and
// available, and which to delete first when scaling down.
import type { Pod } from '../../api/kinds.js';

interface Condition { type: string; status: string; lastTransitionTime?: string }

/** A pod that still counts toward replicas: not finished and not being deleted. */
export function isPodActive(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase !== 'Succeeded' && phase !== 'Failed' && !pod.metadata.deletionTimestamp;
}

function readyCondition(pod: Pod): Condition | undefined {
  return (pod.status?.conditions as Condition[] | undefined)?.find((c) => c.type === 'Ready');
}

export function isPodReady(pod: Pod): boolean {
  return readyCondition(pod)?.status === 'True';
}

/** When the pod became ready (ms), or undefined when it is not ready. */
export function readySince(pod: Pod): number | undefined {
  const c = readyCondition(pod);
  if (c?.status !== 'True') return undefined;
  const t = c.lastTransitionTime ? Date.parse(c.lastTransitionTime) : NaN;
  return Number.isNaN(t) ? 0 : t;
}

/** Ready for at least minReadySeconds (a ready pod without a transition time counts as available). */
export function isPodAvailable(pod: Pod, minReadySeconds: number, now: number): boolean {
  const since = readySince(pod);
  if (since === undefined) return false;
  return minReadySeconds <= 0 || since + minReadySeconds * 1000 <= now;
}

/** Milliseconds until a ready-but-not-yet-available pod becomes available; undefined otherwise. */
export function msUntilAvailable(pod: Pod, minReadySeconds: number, now: number): number | undefined {
  const since = readySince(pod);
  if (since === undefined || minReadySeconds <= 0) return undefined;
  const left = since + minReadySeconds * 1000 - now;
  return left > 0 ? left : undefined;
}

const phaseRank: Record<string, number> = { Pending: 0, Unknown: 1, Running: 2 };

function restarts(pod: Pod): number {
  return ((pod.status?.containerStatuses ?? []) as { restartCount?: number }[]).reduce((n, c) => Math.max(n, c.restartCount ?? 0), 0);
}

function created(pod: Pod): number {
  const t = Date.parse(pod.metadata.creationTimestamp ?? '');
  return Number.isNaN(t) ? 0 : t;
}

/**
 * Orders pods so the ones to delete first come first, as Kubernetes' ActivePods does:
 * unscheduled before scheduled, Pending before Unknown before Running, not ready before
 * ready, ready for less time before longer, more restarts before fewer, newer before older.
 */
export function deletionOrder(a: Pod, b: Pod): number {
  const aBound = a.spec?.nodeName ? 1 : 0, bBound = b.spec?.nodeName ? 1 : 0;
  if (aBound !== bBound) return aBound - bBound;
  const aPhase = phaseRank[a.status?.phase ?? 'Pending'] ?? 0, bPhase = phaseRank[b.status?.phase ?? 'Pending'] ?? 0;
  if (aPhase !== bPhase) return aPhase - bPhase;
  const aReady = isPodReady(a) ? 1 : 0, bReady = isPodReady(b) ? 1 : 0;
  if (aReady !== bReady) return aReady - bReady;
  if (aReady && bReady) {
    const d = (readySince(b) ?? 0) - (readySince(a) ?? 0);
    if (d !== 0) return d;
  }
  const r = restarts(b) - restarts(a);
  if (r !== 0) return r;
  const c = created(b) - created(a);
  if (c !== 0) return c;
  return String(a.metadata.name).localeCompare(String(b.metadata.name));
}
