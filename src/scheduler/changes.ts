// Which changes matter to scheduling, so routine updates (node heartbeats, pod status
// writes) neither wake unschedulable pods nor re-run them.
import type { Node, Pod } from '../api/kinds.js';

export function isTerminal(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase === 'Succeeded' || phase === 'Failed';
}

function readyStatus(node: Node): string | undefined {
  return (node.status?.conditions as { type: string; status: string }[] | undefined)?.find((c) => c.type === 'Ready')?.status;
}

const same = (a: unknown, b: unknown) => a === b || JSON.stringify(a) === JSON.stringify(b);

/** A node change that could let a pod fit where it did not before. */
export function nodeChangeMayHelp(old: Node, node: Node): boolean {
  return !!old.spec?.unschedulable !== !!node.spec?.unschedulable
    || readyStatus(old) !== readyStatus(node)
    || !same(old.status?.allocatable, node.status?.allocatable)
    || !same(old.metadata.labels, node.metadata.labels)
    || !same(old.spec?.taints, node.spec?.taints);
}

/** A pending pod's change that could change where (or whether) it fits. */
export function podSchedulingChanged(old: Pod, pod: Pod): boolean {
  return !same(old.spec, pod.spec) || !same(old.metadata.labels, pod.metadata.labels);
}
