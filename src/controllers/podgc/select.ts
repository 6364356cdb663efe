// Which pods pod GC may collect, and in which order: pure, so the choices are tested without
// an API. After Kubernetes' pkg/controller/podgc.
import type { Pod } from '../../api/kinds.js';

/** Succeeded or Failed: the kubelet is done with it (upstream's isPodTerminated). */
export function isTerminated(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase === 'Succeeded' || phase === 'Failed';
}

/** Failed with reason Evicted (the kubelet's node-pressure eviction). */
function isEvicted(pod: Pod): boolean {
  return pod.status?.phase === 'Failed' && pod.status?.reason === 'Evicted';
}

/**
 * The terminated pods to delete so that at most `threshold` remain: evicted ones first
 * (they matter least to the controllers that made them), then the oldest, name breaking ties.
 * A threshold of 0 or less turns this off.
 */
export function terminatedOverThreshold(terminated: readonly Pod[], threshold: number): Pod[] {
  const excess = terminated.length - threshold;
  if (threshold <= 0 || excess <= 0) return [];
  const created = (p: Pod) => Date.parse(p.metadata.creationTimestamp ?? '') || 0;
  const byName = (a: Pod, b: Pod) => {
    const [x, y] = [String(a.metadata.name), String(b.metadata.name)];
    return x < y ? -1 : x > y ? 1 : 0;
  };
  return [...terminated]
    .sort((a, b) => Number(isEvicted(b)) - Number(isEvicted(a)) || created(a) - created(b) || byName(a, b))
    .slice(0, excess);
}

/** Deleted (deletionTimestamp set) but never bound: no kubelet will ever finish it. */
export function isUnscheduledTerminating(pod: Pod): boolean {
  return !!pod.metadata.deletionTimestamp && !pod.spec?.nodeName;
}
