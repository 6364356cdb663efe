// Taints and tolerations: which taints a node's Ready condition calls for, and whether a
// pod tolerates a taint (core/v1 ToleratesTaint semantics).
import { rfc3339 } from '../../api/time.js';
import type { Node, Pod } from '../../api/kinds.js';
import type { NodeCondition, PodCondition } from 'kubernetes-types/core/v1.js';

export const TaintNodeNotReady = 'node.kubernetes.io/not-ready';
export const TaintNodeUnreachable = 'node.kubernetes.io/unreachable';

export { tolerates, type Taint, type Toleration } from '../../api/core/taints.js';
import type { Taint } from '../../api/core/taints.js';

export function condition(obj: Node, type: string): NodeCondition | undefined;
export function condition(obj: Pod, type: string): PodCondition | undefined;
export function condition(obj: Node | Pod, type: string): NodeCondition | PodCondition | undefined {
  return (obj.status?.conditions ?? []).find((c: { type: string }) => c.type === type);
}

/** 'True' | 'False' | 'Unknown', or undefined when the node never reported Ready. */
export function readyStatus(node: Node): string | undefined {
  return condition(node, 'Ready')?.status;
}

const managed = new Set([TaintNodeNotReady, TaintNodeUnreachable]);

/** The taint key the node's Ready condition calls for, if any. */
function readinessTaintKey(node: Node): string | undefined {
  const ready = readyStatus(node);
  if (ready === 'False') return TaintNodeNotReady;
  if (ready === 'Unknown') return TaintNodeUnreachable;
  return undefined;
}

/**
 * The node's taints with not-ready/unreachable (NoSchedule and NoExecute) matching its Ready
 * condition; undefined when nothing changes. Taints already present keep their timeAdded.
 */
export function reconcileTaints(node: Node, now: number): Taint[] | undefined {
  const current = (node.spec?.taints ?? []) as Taint[];
  const key = readinessTaintKey(node);
  const keep = current.filter((t) => !managed.has(t.key) || (t.key === key && (t.effect === 'NoExecute' || t.effect === 'NoSchedule')));
  const next = [...keep];
  if (key) {
    for (const effect of ['NoSchedule', 'NoExecute'] as const) {
      if (next.some((t) => t.key === key && t.effect === effect)) continue;
      next.push(effect === 'NoExecute' ? { key, effect, timeAdded: rfc3339(new Date(now)) } : { key, effect });
    }
  }
  const same = next.length === current.length && next.every((t, i) => t === current[i]);
  return same ? undefined : next;
}

export function noExecuteTaints(node: Node): Taint[] {
  return ((node.spec?.taints ?? []) as Taint[]).filter((t) => t.effect === 'NoExecute');
}
