// InterPodAffinity, after kube-scheduler's plugin. PreFilter counts, per topology pair
// (topologyKey, value), the placed pods matching the incoming pod's required affinity and
// anti-affinity terms, and the placed pods whose required anti-affinity terms match the
// incoming pod (the symmetric check); Filter then reads three maps per node. Existing pods'
// terms come grouped with their counts from the cache, so the symmetric check costs one
// selector match per distinct term rather than one per pod.
// Score sums, per topology pair, the weights of preferred terms on either side (and the
// existing pods' required affinity terms at hardPodAffinityWeight 1), min-max normalised.
import { termMatches, type AffinityTerm } from '../terms.js';
import type { ClusterView, TermKind } from '../cluster.js';
import type { NodeInfo } from '../nodeinfo.js';
import type { PodInfo } from '../podinfo.js';
import { maxNodeScore, type CycleState, type FilterPlugin, type ScorePlugin } from './types.js';

export const errAffinity = "node(s) didn't match pod affinity rules";
export const errAntiAffinity = "node(s) didn't match pod anti-affinity rules";
export const errExistingAntiAffinity = "node(s) didn't satisfy existing pods anti-affinity rules";
const hardPodAffinityWeight = 1;
const name = 'InterPodAffinity';

/** topologyKey → value → count. */
type PairCounts = Map<string, Map<string, number>>;

function add(m: PairCounts, key: string, value: string | undefined, n: number): void {
  if (value === undefined) return;
  let byValue = m.get(key);
  if (!byValue) m.set(key, (byValue = new Map()));
  const c = (byValue.get(value) ?? 0) + n;
  if (c) byValue.set(value, c);
  else byValue.delete(value);
}

function count(m: PairCounts, key: string, value: string | undefined): number {
  return value === undefined ? 0 : m.get(key)?.get(value) ?? 0;
}

/** The namespaces a term's pods may be in, for the label index (undefined: any, by namespaceSelector). */
const termNamespaces = (t: AffinityTerm) => (t.namespaceSelector ? undefined : t.namespaces);

interface FilterState {
  existingAnti: PairCounts;
  affinity: PairCounts;
  anti: PairCounts;
  /** Any pod at all matched the affinity terms (else a pod matching its own terms may go first). */
  affinityMatched: number;
  selfMatches: boolean;
}

function matchesAll(terms: readonly AffinityTerm[], p: PodInfo, view: ClusterView): boolean {
  for (const t of terms) if (!termMatches(t, p.namespace, p.labels, (ns) => view.namespaceLabels(ns))) return false;
  return true;
}

/** How `other` on `node` changes the incoming pod's counts (sign +1 placed, -1 removed). */
function accountOther(s: FilterState, pod: PodInfo, other: PodInfo, node: NodeInfo, view: ClusterView, sign: 1 | -1): void {
  const nsLabels = (ns: string) => view.namespaceLabels(ns);
  const a = pod.affinity;
  if (a?.requiredAffinity.length && matchesAll(a.requiredAffinity, other, view)) {
    for (const t of a.requiredAffinity) add(s.affinity, t.topologyKey, node.labels[t.topologyKey], sign);
    s.affinityMatched += sign;
  }
  for (const t of a?.requiredAntiAffinity ?? []) {
    if (termMatches(t, other.namespace, other.labels, nsLabels)) add(s.anti, t.topologyKey, node.labels[t.topologyKey], sign);
  }
  for (const t of other.affinity?.requiredAntiAffinity ?? []) {
    if (termMatches(t, pod.namespace, pod.labels, nsLabels)) add(s.existingAnti, t.topologyKey, node.labels[t.topologyKey], sign);
  }
}

function preFilter(pod: PodInfo, state: CycleState): void {
  const view = state.cluster;
  if (!view) return;
  const nsLabels = (ns: string) => view.namespaceLabels(ns);
  const s: FilterState = { existingAnti: new Map(), affinity: new Map(), anti: new Map(), affinityMatched: 0, selfMatches: false };
  for (const g of view.termGroups('requiredAntiAffinity')) {
    if (!termMatches(g.term, pod.namespace, pod.labels, nsLabels)) continue;
    for (const [v, c] of g.counts) add(s.existingAnti, g.term.topologyKey, v, c);
  }
  const a = pod.affinity;
  if (a?.requiredAffinity.length) {
    s.selfMatches = matchesAll(a.requiredAffinity, pod, view);
    for (const p of view.candidates(a.requiredAffinity[0].selector, termNamespaces(a.requiredAffinity[0]))) {
      if (p.info.uid === pod.uid || !matchesAll(a.requiredAffinity, p.info, view)) continue;
      for (const t of a.requiredAffinity) add(s.affinity, t.topologyKey, p.node.labels[t.topologyKey], 1);
      s.affinityMatched++;
    }
  }
  for (const t of a?.requiredAntiAffinity ?? []) {
    for (const p of view.candidates(t.selector, termNamespaces(t))) {
      if (p.info.uid !== pod.uid && termMatches(t, p.info.namespace, p.info.labels, nsLabels)) add(s.anti, t.topologyKey, p.node.labels[t.topologyKey], 1);
    }
  }
  // Nothing to check on any node: leave the filter a no-op.
  if (!a?.requiredAffinity.length && !a?.requiredAntiAffinity.length && !s.existingAnti.size) return;
  (state.data ??= {})[name] = s;
}

const noTerms: readonly AffinityTerm[] = [];

function satisfiesAffinity(pod: PodInfo, s: FilterState, node: NodeInfo): boolean {
  const terms = pod.affinity?.requiredAffinity;
  if (!terms?.length) return true;
  let podsExist = true;
  for (const t of terms) {
    const v = node.labels[t.topologyKey];
    // Every topology key must be on the node.
    if (v === undefined) return false;
    if (count(s.affinity, t.topologyKey, v) <= 0) podsExist = false;
  }
  // The first pod of a group with affinity to itself has nothing to join yet.
  return podsExist || (s.affinityMatched === 0 && s.selfMatches);
}

export const interPodAffinityFilter: FilterPlugin = {
  name,
  preFilter,
  skip: (_pod, state) => !state.data?.[name],
  filter(pod, node, state) {
    const s = state?.data?.[name] as FilterState | undefined;
    if (!s) return null;
    if (!satisfiesAffinity(pod, s, node)) return errAffinity;
    for (const t of pod.affinity?.requiredAntiAffinity ?? noTerms) if (count(s.anti, t.topologyKey, node.labels[t.topologyKey]) > 0) return errAntiAffinity;
    if (s.existingAnti.size) for (const [key, byValue] of s.existingAnti) {
      const v = node.labels[key];
      if (v !== undefined && (byValue.get(v) ?? 0) > 0) return errExistingAntiAffinity;
    }
    return null;
  },
  updateState(pod, state, other, node, sign) {
    const s = state.data?.[name] as FilterState | undefined;
    if (s && state.cluster) accountOther(s, pod, other, node, state.cluster, sign);
  },
};

const existingTerms: [TermKind, number][] = [['requiredAffinity', 1], ['preferredAffinity', 1], ['preferredAntiAffinity', -1]];

/** Per topology pair, the summed weights of terms linking the incoming pod with placed pods. */
function topologyScores(pod: PodInfo, view: ClusterView): PairCounts {
  const nsLabels = (ns: string) => view.namespaceLabels(ns);
  const m: PairCounts = new Map();
  for (const [kind, sign] of existingTerms) {
    for (const g of view.termGroups(kind)) {
      if (!termMatches(g.term, pod.namespace, pod.labels, nsLabels)) continue;
      const w = (kind === 'requiredAffinity' ? hardPodAffinityWeight : g.weight) * sign;
      for (const [v, c] of g.counts) add(m, g.term.topologyKey, v, w * c);
    }
  }
  const a = pod.affinity;
  const incoming: [readonly (AffinityTerm & { weight: number })[], number][] = [[a?.preferredAffinity ?? [], 1], [a?.preferredAntiAffinity ?? [], -1]];
  for (const [terms, sign] of incoming) {
    for (const t of terms) {
      for (const p of view.candidates(t.selector, termNamespaces(t))) {
        if (p.info.uid !== pod.uid && termMatches(t, p.info.namespace, p.info.labels, nsLabels)) add(m, t.topologyKey, p.node.labels[t.topologyKey], t.weight * sign);
      }
    }
  }
  return m;
}

export const interPodAffinityScore: ScorePlugin = {
  name,
  weight: 2,
  score(pod, nodes, out, state) {
    const n = nodes.length;
    const m = state.cluster ? topologyScores(pod, state.cluster) : undefined;
    if (!m?.size) { out.fill(0, 0, n); return; }
    // Arrays, not the Map's iterator, in the per-node loop.
    const keys = [...m.keys()], byValues = [...m.values()];
    let min = Infinity, max = -Infinity;
    for (let i = 0; i < n; i++) {
      let sum = 0;
      const labels = nodes[i].labels;
      for (let k = 0; k < keys.length; k++) {
        const v = labels[keys[k]];
        if (v !== undefined) sum += byValues[k].get(v) ?? 0;
      }
      out[i] = sum;
      if (sum < min) min = sum;
      if (sum > max) max = sum;
    }
    const diff = max - min;
    for (let i = 0; i < n; i++) out[i] = diff > 0 ? Math.trunc((maxNodeScore * (out[i] - min)) / diff) : 0;
  },
};
