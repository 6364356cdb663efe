// The plugin contracts. Filters answer for one pod on one node; scorers fill scores for the
// nodes that passed, already normalised to 0..maxNodeScore. Both run inside the scheduling
// loop: no I/O, no allocation per node where it can be helped, never mutate pod or node.
import type { Selector } from '../../api/labels.js';
import type { ClusterView } from '../cluster.js';
import type { NodeInfo } from '../nodeinfo.js';
import type { PodInfo } from '../podinfo.js';

export const maxNodeScore = 100;

export interface FilterPlugin {
  readonly name: string;
  /** Once per scheduling cycle, before any filter: work out what filter() reads from `state`. */
  preFilter?(pod: PodInfo, state: CycleState): void;
  /**
   * After preFilter: true when filter() would pass every node for this pod whatever the
   * nodes hold (upstream's PreFilter Skip), so the cycle leaves it out.
   */
  skip?(pod: PodInfo, state: CycleState): boolean;
  /**
   * filter() is a lookup of the node's topology domain (the same answer for every node of
   * one): the walk runs it before the others, as a cheap early exit.
   */
  readonly domainWide?: boolean;
  /** null when the pod fits; else the reason(s), worded as in Kubernetes' FailedScheduling. */
  filter(pod: PodInfo, node: NodeInfo, state?: CycleState): string | string[] | null;
  /**
   * Preemption's what-if: `other` is taken off (sign -1) or put back on (+1) `node`; the
   * plugin updates what its preFilter computed, as upstream's PreFilterExtensions.
   */
  updateState?(pod: PodInfo, state: CycleState, other: PodInfo, node: NodeInfo, sign: 1 | -1): void;
}

/** What the scheduler works out once per pod for the scorers. */
export interface CycleState {
  /** Selectors of Services in the pod's namespace that select it (spreading). */
  serviceSelectors: Selector[];
  /**
   * Pods of the pod's controlling owner per node, when the caller keeps that index (the
   * scheduler's cache does); without it spreading reads each node's own counts.
   */
  ownerNodes?: ReadonlyMap<NodeInfo, number>;
  /** The cluster beyond one node (inter-pod affinity, topology spread); absent, those plugins pass. */
  cluster?: ClusterView;
  /** What plugins worked out in preFilter, by plugin name. */
  data?: Record<string, unknown>;
  /** The filters this pod needs, in order (set with preFilter; the others pass every node). */
  filters?: FilterPlugin[];
}

export interface ScorePlugin {
  readonly name: string;
  readonly weight: number;
  /** Writes a 0..maxNodeScore score for nodes[i] into out[i]. */
  score(pod: PodInfo, nodes: readonly NodeInfo[], out: Float64Array, state: CycleState): void;
}

/** Scales raw scores so the best becomes maxNodeScore (or the worst, when `reverse`). */
export function normalize(out: Float64Array, n: number, reverse: boolean): void {
  let max = 0;
  for (let i = 0; i < n; i++) if (out[i] > max) max = out[i];
  if (max === 0) {
    if (reverse) out.fill(maxNodeScore, 0, n);
    return;
  }
  for (let i = 0; i < n; i++) {
    const s = (maxNodeScore * out[i]) / max;
    out[i] = reverse ? maxNodeScore - s : s;
  }
}
