// One scheduling decision: walk the nodes from a rotating start, keep those every filter
// passes until "enough" are found (kube-scheduler's adaptive percentageOfNodesToScore), run
// the scorers over them, and pick the best weighted sum with a random tie-break. When no
// node fits, every node has been tried and the reasons are tallied for FailedScheduling.
// Filters marked `domainWide` (an array read per node, one answer per topology domain) run
// first, so a node whose whole domain is out costs one check; its reason — the first
// failing filter in the configured order — is only worked out if no node fits at all.
import type { NodeInfo } from './nodeinfo.js';
import type { PodInfo } from './podinfo.js';
import type { CycleState, FilterPlugin, ScorePlugin } from './plugins/types.js';

const minFeasibleNodesToFind = 100;
const minFeasibleNodesPercentageToFind = 5;

/** How many feasible nodes to look for before scoring, out of `all`. */
export function numFeasibleNodesToFind(all: number, percentage = 0): number {
  if (all < minFeasibleNodesToFind) return all;
  const pct = percentage > 0 ? Math.min(percentage, 100) : Math.max(minFeasibleNodesPercentageToFind, 50 - all / 125);
  return Math.min(all, Math.max(minFeasibleNodesToFind, Math.floor((all * pct) / 100)));
}

export class FitError extends Error {
  constructor(readonly numAllNodes: number, readonly reasons: Map<string, number>, postFilter = '') {
    super(fitMessage(numAllNodes, reasons) + (postFilter ? ` ${postFilter}` : ''));
  }
}

export function fitMessage(numAllNodes: number, reasons: Map<string, number>): string {
  if (numAllNodes === 0) return 'no nodes available to schedule pods';
  const parts = [...reasons].map(([reason, n]) => `${n} ${reason}`).sort();
  return `0/${numAllNodes} nodes are available: ${parts.join(', ')}.`;
}

function tally(reasons: Map<string, number>, failed: string | string[]): void {
  if (typeof failed === 'string') reasons.set(failed, (reasons.get(failed) ?? 0) + 1);
  else for (const r of failed) reasons.set(r, (reasons.get(r) ?? 0) + 1);
}

export interface AlgorithmOptions {
  filters: FilterPlugin[];
  scorers: ScorePlugin[];
  /** 0 = adaptive, as kube-scheduler's default. */
  percentageOfNodesToScore?: number;
  random?: () => number;
}

export class Algorithm {
  private nextStart = 0;
  private feasible: NodeInfo[] = [];
  /** Nodes a domain-wide filter rejected, whose reasons are owed only if nothing fits. */
  private rejectedEarly: NodeInfo[] = [];
  /** Filter reasons of the nodes that failed, reused across cycles (copied into a FitError). */
  private reasons = new Map<string, number>();
  private scratch = new Float64Array(0);
  private total = new Float64Array(0);
  private readonly random: () => number;

  constructor(private opts: AlgorithmOptions) {
    this.random = opts.random ?? Math.random;
  }

  get filters(): readonly FilterPlugin[] {
    return this.opts.filters;
  }

  /** Runs every filter's preFilter and keeps the filters the pod needs: once per cycle, before filterNode. */
  preFilter(pod: PodInfo, state: CycleState): void {
    state.data = {};
    for (const f of this.opts.filters) f.preFilter?.(pod, state);
    state.filters = this.opts.filters.filter((f) => !f.skip?.(pod, state));
  }

  /** null when every filter passes on `node`; else the first failing filter's reason(s). */
  filterNode(pod: PodInfo, node: NodeInfo, state: CycleState): string | string[] | null {
    const filters = state.filters ?? this.opts.filters;
    let failed: string | string[] | null = null;
    for (let f = 0; f < filters.length && !failed; f++) failed = filters[f].filter(pod, node, state);
    return failed;
  }

  /** The chosen node's name, or a FitError saying why no node fits. */
  schedule(pod: PodInfo, nodes: readonly NodeInfo[], state: CycleState): string | FitError {
    this.preFilter(pod, state);
    const all = nodes.length;
    const want = numFeasibleNodesToFind(all, this.opts.percentageOfNodesToScore);
    const feasible = this.feasible;
    feasible.length = 0;
    const reasons = this.reasons;
    reasons.clear();
    const early = state.filters!.filter((f) => f.domainWide), rest = state.filters!.filter((f) => !f.domainWide);
    const rejectedEarly = this.rejectedEarly;
    rejectedEarly.length = 0;
    let processed = 0;
    for (; processed < all && feasible.length < want; processed++) {
      const node = nodes[(this.nextStart + processed) % all];
      let out = false;
      for (let f = 0; f < early.length && !out; f++) out = early[f].filter(pod, node, state) !== null;
      if (out) { rejectedEarly.push(node); continue; }
      let failed: string | string[] | null = null;
      for (let f = 0; f < rest.length && !failed; f++) failed = rest[f].filter(pod, node, state);
      if (!failed) feasible.push(node);
      else tally(reasons, failed);
    }
    if (all) this.nextStart = (this.nextStart + processed) % all;
    if (!feasible.length) {
      for (const node of rejectedEarly) tally(reasons, this.filterNode(pod, node, state)!);
      return new FitError(all, new Map(reasons));
    }
    if (feasible.length === 1) return feasible[0].name;
    return feasible[this.best(pod, feasible, state)].name;
  }

  private best(pod: PodInfo, feasible: NodeInfo[], state: CycleState): number {
    const n = feasible.length;
    if (this.total.length < n) { this.total = new Float64Array(n * 2); this.scratch = new Float64Array(n * 2); }
    const total = this.total, scratch = this.scratch;
    total.fill(0, 0, n);
    for (const s of this.opts.scorers) {
      s.score(pod, feasible, scratch, state);
      for (let i = 0; i < n; i++) total[i] += scratch[i] * s.weight;
    }
    let best = 0, ties = 1;
    for (let i = 1; i < n; i++) {
      if (total[i] > total[best]) { best = i; ties = 1; }
      else if (total[i] === total[best] && this.random() * ++ties < 1) best = i;
    }
    return best;
  }
}
