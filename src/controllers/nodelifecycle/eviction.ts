// When a pod on a node with NoExecute taints must go: at once for a taint it does not
// tolerate, else when the shortest matching tolerationSeconds since the taint ran out, never
// when every matching toleration is unbounded.
import { TaintNodeNotReady, TaintNodeUnreachable, tolerates, type Taint, type Toleration } from './taints.js';
import type { Pod } from '../../api/kinds.js';

/**
 * The tolerations Kubernetes' DefaultTolerationSeconds admission would have added: pods that
 * do not tolerate not-ready/unreachable NoExecute get them for `defaultMs`.
 */
export function effectiveTolerations(pod: Pod, defaultMs: number): Toleration[] {
  const own = (pod.spec?.tolerations ?? []) as Toleration[];
  const out = [...own];
  for (const key of [TaintNodeNotReady, TaintNodeUnreachable]) {
    if (own.some((t) => tolerates(t, { key, effect: 'NoExecute' }))) continue;
    out.push({ key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: defaultMs / 1000 });
  }
  return out;
}

/**
 * The time (ms since the epoch) the pod is to be evicted, or null for never. `taintStart`
 * says since when each taint has been on the node; the clock for a pod starts no earlier
 * than the pod itself.
 */
export function evictionTime(pod: Pod, taints: Taint[], defaultMs: number, taintStart: (t: Taint) => number): number | null {
  if (!taints.length) return null;
  const tolerations = effectiveTolerations(pod, defaultMs);
  const created = Date.parse(pod.metadata.creationTimestamp ?? '') || 0;
  let at: number | null = null;
  for (const taint of taints) {
    const matching = tolerations.filter((t) => tolerates(t, taint));
    if (!matching.length) return -Infinity;
    const bounded = matching.filter((t) => typeof t.tolerationSeconds === 'number');
    if (!bounded.length) continue;
    const seconds = Math.max(0, Math.min(...bounded.map((t) => t.tolerationSeconds as number)));
    const due = Math.max(taintStart(taint), created) + seconds * 1000;
    at = at === null ? due : Math.min(at, due);
  }
  return at;
}
