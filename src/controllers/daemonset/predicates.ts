// Which nodes a DaemonSet's pod belongs on, after upstream's NodeShouldRunDaemonPod: the
// template's nodeName, nodeSelector and required node affinity must match the node, and every
// NoSchedule/NoExecute taint must be tolerated — counting the tolerations every daemon pod
// gets (not-ready, unreachable, the pressure taints, unschedulable, and network-unavailable for
// host-network pods), so a cordoned or not-ready node keeps its daemons.
import type { Node, Pod } from '../../api/kinds.js';
import { anyTermMatches, compileNodeSelectorTerms } from '../../api/core/node-selector.js';
import { tolerates, type Taint, type Toleration } from '../nodelifecycle/taints.js';

type PodSpec = NonNullable<Pod['spec']>;

const exists = (key: string, effect: string): Toleration => ({ key, operator: 'Exists', effect });

/** The template's tolerations with the ones upstream adds to every daemon pod (AddOrUpdateDaemonPodTolerations). */
export function daemonPodTolerations(spec: PodSpec | undefined): Toleration[] {
  const out = [...((spec?.tolerations ?? []) as Toleration[])];
  const add = [
    exists('node.kubernetes.io/not-ready', 'NoExecute'),
    exists('node.kubernetes.io/unreachable', 'NoExecute'),
    exists('node.kubernetes.io/disk-pressure', 'NoSchedule'),
    exists('node.kubernetes.io/memory-pressure', 'NoSchedule'),
    exists('node.kubernetes.io/pid-pressure', 'NoSchedule'),
    exists('node.kubernetes.io/unschedulable', 'NoSchedule'),
  ];
  if (spec?.hostNetwork) add.push(exists('node.kubernetes.io/network-unavailable', 'NoSchedule'));
  for (const t of add) {
    const i = out.findIndex((o) => o.key === t.key && o.effect === t.effect);
    if (i >= 0) out[i] = t; else out.push(t);
  }
  return out;
}

export interface Placement {
  /** A daemon pod should be created on the node. */
  shouldRun: boolean;
  /** A daemon pod already there may stay (false: it must go, e.g. an untolerated NoExecute taint). */
  shouldContinueRunning: boolean;
}

function fitsSelectorAndAffinity(spec: PodSpec | undefined, node: Node): boolean {
  const labels = node.metadata.labels ?? {};
  for (const [k, v] of Object.entries(spec?.nodeSelector ?? {})) if (labels[k] !== v) return false;
  const terms = spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  if (terms === undefined) return true;
  try {
    return anyTermMatches(compileNodeSelectorTerms(terms), node.metadata.name as string, labels);
  } catch {
    return false; // a selector validation would reject matches no node
  }
}

export function placement(spec: PodSpec | undefined, node: Node): Placement {
  if (spec?.nodeName && spec.nodeName !== node.metadata.name) return { shouldRun: false, shouldContinueRunning: false };
  if (!fitsSelectorAndAffinity(spec, node)) return { shouldRun: false, shouldContinueRunning: false };
  const tolerations = daemonPodTolerations(spec);
  let shouldRun = true, shouldContinueRunning = true;
  for (const taint of (node.spec?.taints ?? []) as Taint[]) {
    if (taint.effect !== 'NoSchedule' && taint.effect !== 'NoExecute') continue;
    if (tolerations.some((t) => tolerates(t, taint))) continue;
    shouldRun = false;
    if (taint.effect === 'NoExecute') shouldContinueRunning = false;
  }
  return { shouldRun, shouldContinueRunning };
}

/**
 * Pins a pod to `node` through required node affinity, as upstream does since the scheduler
 * places daemon pods: the template's required terms (already checked against the node) are
 * replaced by one term matching the node's name.
 */
export function pinToNode(spec: PodSpec, node: string): void {
  const term = { matchFields: [{ key: 'metadata.name', operator: 'In', values: [node] }] };
  const affinity = spec.affinity ?? {};
  const nodeAffinity = affinity.nodeAffinity ?? {};
  spec.affinity = { ...affinity, nodeAffinity: { ...nodeAffinity, requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [term] } } };
}

/** The node a daemon pod is on, or is pinned to while it waits for the scheduler. */
export function targetNode(pod: Pod): string | undefined {
  if (pod.spec?.nodeName) return pod.spec.nodeName;
  for (const term of pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? []) {
    for (const f of term.matchFields ?? []) {
      if (f.key === 'metadata.name' && f.operator === 'In' && f.values?.length === 1) return f.values[0];
    }
  }
  return undefined;
}
