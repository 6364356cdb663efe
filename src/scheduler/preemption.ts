// DefaultPreemption's choice, after kube-scheduler's PostFilter: when a pod fits nowhere,
// find nodes where evicting pods of lower priority would let it fit, keep on each node only
// the victims it needs (the most important are reprieved first, those whose eviction would
// break a PodDisruptionBudget before the rest), and pick the node with, in order: the fewest
// PDB violations, the lowest highest-victim priority, the lowest sum of victim priorities,
// the fewest victims, the latest-started highest-priority victim. The what-if runs on the
// cache's own NodeInfos (victims taken off and put back before returning) with the plugins'
// per-cycle state updated through updateState, as upstream's PreFilterExtensions.
import { fromLabelSelector, matches, type LabelSelector, type Selector } from '../api/labels.js';
import type { PodDisruptionBudget } from '../api/kinds.js';
import type { Algorithm } from './algorithm.js';
import type { NodeInfo } from './nodeinfo.js';
import type { PodInfo } from './podinfo.js';
import type { CycleState } from './plugins/types.js';

export const msgNoVictims = 'No preemption victims found for incoming pod';
export const msgNotHelpful = 'Preemption is not helpful for scheduling';

/** Filter reasons that evicting pods cannot cure (upstream's UnschedulableAndUnresolvable). */
const unresolvable = [
  "node(s) didn't match Pod's node affinity/selector", 'node(s) had untolerated taint', 'node(s) were unschedulable',
  "node(s) didn't match the requested node name", "node(s) didn't match pod affinity rules",
  "node(s) didn't match pod topology spread constraints (missing required label)", 'node(s) had volume node affinity conflict',
];
const isUnresolvable = (r: string | string[]) => (Array.isArray(r) ? r : [r]).some((x) => unresolvable.some((u) => x.startsWith(u)));

export interface Candidate {
  node: NodeInfo;
  victims: PodInfo[];
  pdbViolations: number;
}

interface Budget {
  namespace: string;
  /** null: an empty or missing selector, which protects no pod. */
  selector: Selector | null;
  allowed: number;
  /** Pods already being disrupted (status.disruptedPods) do not count again. */
  disrupted: Set<string>;
}

export type PreemptionOutcome = Candidate | { message: string };

/** Fewer candidates than this (or 10% of the nodes) are enough to choose from, as upstream. */
const minCandidateNodesAbsolute = 100;
const minCandidateNodesPercentage = 10;

const startTime = (p: PodInfo) => Date.parse((p.pod.status?.startTime as string | undefined) ?? p.pod.metadata.creationTimestamp ?? '') || 0;
/** Higher priority first, then the earlier started (upstream's MoreImportantPod). */
const moreImportant = (a: PodInfo, b: PodInfo) => b.priority - a.priority || startTime(a) - startTime(b);

export class Preemptor {
  constructor(private algorithm: Algorithm, private pdbs: () => readonly PodDisruptionBudget[], private random: () => number = Math.random) {}

  /** Why the pod may not preempt, or undefined when it may. */
  ineligible(pod: PodInfo, nominated: NodeInfo | undefined): string | undefined {
    if (pod.preemptNever) return 'not eligible due to preemptionPolicy=Never.';
    // Victims chosen before are still terminating: wait for them rather than pick more.
    if (nominated) for (const p of nominated.pods.values()) if (p.pod.metadata.deletionTimestamp && p.priority < pod.priority) return 'not eligible due to a terminating pod on the nominated node.';
    return undefined;
  }

  preempt(pod: PodInfo, nodes: readonly NodeInfo[], state: CycleState): PreemptionOutcome {
    const all = nodes.length;
    if (!all) return { message: 'preemption: no nodes available' };
    const want = Math.max(minCandidateNodesAbsolute, Math.floor((all * minCandidateNodesPercentage) / 100));
    const start = Math.floor(this.random() * all);
    const candidates: Candidate[] = [];
    let noVictims = 0, notHelpful = 0;
    const budgets = this.budgets();
    for (let i = 0; i < all && candidates.length < want; i++) {
      const node = nodes[(start + i) % all];
      const c = this.victimsOn(pod, node, state, budgets);
      if (c === 'no-victims') noVictims++;
      else if (c === 'not-helpful') notHelpful++;
      else candidates.push(c);
    }
    if (!candidates.length) {
      const parts = [];
      if (noVictims) parts.push(`${noVictims} ${msgNoVictims}`);
      if (notHelpful) parts.push(`${notHelpful} ${msgNotHelpful}`);
      return { message: `preemption: 0/${all} nodes are available: ${parts.sort().join(', ')}.` };
    }
    return pickOne(candidates);
  }

  private budgets(): Budget[] {
    return this.pdbs().map((b) => {
      let selector: Selector | null = null;
      try { selector = fromLabelSelector(b.spec?.selector as LabelSelector | undefined); } catch { /* a malformed selector protects nothing */ }
      return {
        namespace: b.metadata.namespace ?? '', selector: selector?.length ? selector : null,
        allowed: Number(b.status?.disruptionsAllowed ?? 0), disrupted: new Set(Object.keys(b.status?.disruptedPods ?? {})),
      };
    });
  }

  private victimsOn(pod: PodInfo, node: NodeInfo, state: CycleState, budgets: Budget[]): Candidate | 'no-victims' | 'not-helpful' {
    const lower = [...node.pods.values()].filter((p) => p.priority < pod.priority);
    const filters = this.algorithm.filters;
    const take = (p: PodInfo, sign: 1 | -1) => {
      if (sign < 0) node.removePod(p);
      else node.addPod(p);
      for (const f of filters) f.updateState?.(pod, state, p, node, sign);
    };
    for (const p of lower) take(p, -1);
    const removed = new Set(lower);
    try {
      const failed = this.algorithm.filterNode(pod, node, state);
      if (failed) return isUnresolvable(failed) ? 'not-helpful' : 'no-victims';
      if (!lower.length) return 'no-victims';
      // Reprieve as many as fit back, the PDB-protected ones first, the most important first.
      lower.sort(moreImportant);
      const allowed = budgets.map((b) => b.allowed);
      const violating: PodInfo[] = [], fine: PodInfo[] = [];
      for (const p of lower) {
        let violates = false;
        budgets.forEach((b, i) => {
          if (b.namespace !== p.namespace || !b.selector || b.disrupted.has(p.pod.metadata.name as string) || !matches(b.selector, p.labels)) return;
          if (--allowed[i] < 0) violates = true;
        });
        (violates ? violating : fine).push(p);
      }
      const victims: PodInfo[] = [];
      let pdbViolations = 0;
      const reprieve = (p: PodInfo, violates: boolean) => {
        take(p, 1);
        removed.delete(p);
        if (!this.algorithm.filterNode(pod, node, state)) return;
        take(p, -1);
        removed.add(p);
        victims.push(p);
        if (violates) pdbViolations++;
      };
      for (const p of violating) reprieve(p, true);
      for (const p of fine) reprieve(p, false);
      return { node, victims, pdbViolations };
    } finally {
      for (const p of removed) take(p, 1);
    }
  }
}

/** Upstream's pickOneNodeForPreemption, criterion by criterion until one node is left. */
export function pickOne(candidates: Candidate[]): Candidate {
  const highest = (c: Candidate) => (c.victims.length ? Math.max(...c.victims.map((v) => v.priority)) : -Infinity);
  const sum = (c: Candidate) => c.victims.reduce((s, v) => s + v.priority + 2147483648, 0);
  const latestStart = (c: Candidate) => {
    const top = highest(c);
    return Math.min(...c.victims.filter((v) => v.priority === top).map(startTime));
  };
  const criteria: ((c: Candidate) => number)[] = [
    (c) => -c.pdbViolations, (c) => -highest(c), (c) => -sum(c), (c) => -c.victims.length, latestStart,
  ];
  let left = candidates;
  for (const score of criteria) {
    if (left.length === 1) break;
    const best = Math.max(...left.map(score));
    left = left.filter((c) => score(c) === best);
  }
  return left[0];
}
