// InterPodAffinity, after kube-scheduler's plugin. PreFilter counts, per topology domain
// (a key's value, as an integer id: topology.ts), the placed pods matching the incoming pod's
// required affinity and anti-affinity terms, and the placed pods whose required anti-affinity
// terms match the incoming pod (the symmetric check); Filter then reads an array slot per
// term and node. Existing pods' terms come grouped with their counts from the cache, so the
// symmetric check costs one selector match per distinct term rather than one per pod; the
// incoming pod's own terms read the cache's per-selector counts (matching-pods.ts) when they
// name one namespace, instead of matching the pods again.
// Score sums, per domain, the weights of preferred terms on either side (and the existing
// pods' required affinity terms at hardPodAffinityWeight 1), min-max normalised.
import type { Selector } from '../../api/labels.js';
import { termMatches, type AffinityTerm } from '../terms.js';
import type { ClusterView, TermKind } from '../cluster.js';
import type { MatchingPods } from '../matching-pods.js';
import { domainCount, domainId, domainIn, topologyKeyId } from '../topology.js';
import type { NodeInfo } from '../nodeinfo.js';
import type { PodInfo } from '../podinfo.js';
import { maxNodeScore, type CycleState, type FilterPlugin, type ScorePlugin } from './types.js';

export const errAffinity = "node(s) didn't match pod affinity rules";
export const errAntiAffinity = "node(s) didn't match pod anti-affinity rules";
export const errExistingAntiAffinity = "node(s) didn't satisfy existing pods anti-affinity rules";
const hardPodAffinityWeight = 1;
const name = 'InterPodAffinity';

/** Per topology key id, a count per domain id of that key (see topology.ts). */
type DomainCounts = Map<number, Float64Array>;

function add(m: DomainCounts, keyId: number, d: number, n: number): void {
  if (d < 0) return;
  let a = m.get(keyId);
  if (!a || d >= a.length) {
    const grown = new Float64Array(Math.max(domainCount(keyId), d + 1));
    if (a) grown.set(a);
    m.set(keyId, (a = grown));
  }
  a[d] += n;
}

/** Adds a per-value count map (the cache's, keyed by label value) under `key`, times `w`. */
function addValues(m: DomainCounts, key: string, byValue: ReadonlyMap<string, number>, w: number): void {
  const kid = topologyKeyId(key);
  for (const [v, c] of byValue) add(m, kid, domainId(kid, v), c * w);
}

const at = (a: Float64Array | undefined, d: number) => (a && d >= 0 && d < a.length ? a[d] : 0);

/** The namespaces a term's pods may be in, for the label index (undefined: any, by namespaceSelector). */
const termNamespaces = (t: AffinityTerm) => (t.namespaceSelector ? undefined : t.namespaces);

/**
 * The cache's incremental count of the pods a selector matches in one namespace
 * (terminating ones included, as upstream counts them here), when it can stand in for a
 * walk: not when the incoming pod is itself placed (it would count itself).
 */
function group(pod: PodInfo, view: ClusterView, namespace: string | undefined, sel: Selector, selectorKey: string): MatchingPods | undefined {
  if (namespace === undefined || !view.matchingPods || view.placed?.(pod.uid)) return undefined;
  return view.matchingPods(namespace, sel, selectorKey, true);
}

interface FilterState {
  existingAnti: DomainCounts;
  affinity: DomainCounts;
  anti: DomainCounts;
  /** Any pod at all matched the affinity terms (else a pod matching its own terms may go first). */
  affinityMatched: number;
  selfMatches: boolean;
  // What filter() reads per node, resolved from the maps above (again after updateState).
  affinityKeys: number[];
  affinityCounts: (Float64Array | undefined)[];
  antiKeys: number[];
  antiCounts: (Float64Array | undefined)[];
  existingKeys: number[];
  existingCounts: Float64Array[];
}

function resolve(s: FilterState): void {
  s.affinityCounts = s.affinityKeys.map((k) => s.affinity.get(k));
  s.antiCounts = s.antiKeys.map((k) => s.anti.get(k));
  s.existingKeys = [...s.existingAnti.keys()];
  s.existingCounts = [...s.existingAnti.values()];
}

function matchesAll(terms: readonly AffinityTerm[], p: PodInfo, view: ClusterView): boolean {
  for (const t of terms) if (!termMatches(t, p.namespace, p.labels, (ns) => view.namespaceLabels(ns))) return false;
  return true;
}

/** How `other` on `node` changes the incoming pod's counts (sign +1 placed, -1 removed). */
function accountOther(s: FilterState, pod: PodInfo, other: PodInfo, node: NodeInfo, view: ClusterView, sign: 1 | -1): void {
  const nsLabels = (ns: string) => view.namespaceLabels(ns);
  const dom = (key: string) => { const kid = topologyKeyId(key); return [kid, domainIn(node.domains, kid)] as const; };
  const a = pod.affinity;
  if (a?.requiredAffinity.length && matchesAll(a.requiredAffinity, other, view)) {
    for (const t of a.requiredAffinity) add(s.affinity, ...dom(t.topologyKey), sign);
    s.affinityMatched += sign;
  }
  for (const t of a?.requiredAntiAffinity ?? []) {
    if (termMatches(t, other.namespace, other.labels, nsLabels)) add(s.anti, ...dom(t.topologyKey), sign);
  }
  for (const t of other.affinity?.requiredAntiAffinity ?? []) {
    if (termMatches(t, pod.namespace, pod.labels, nsLabels)) add(s.existingAnti, ...dom(t.topologyKey), sign);
  }
}

function preFilter(pod: PodInfo, state: CycleState): void {
  const view = state.cluster;
  if (!view) return;
  const nsLabels = (ns: string) => view.namespaceLabels(ns);
  const a = pod.affinity;
  const s: FilterState = {
    existingAnti: new Map(), affinity: new Map(), anti: new Map(), affinityMatched: 0, selfMatches: false,
    affinityKeys: (a?.requiredAffinity ?? []).map((t) => topologyKeyId(t.topologyKey)), affinityCounts: [],
    antiKeys: (a?.requiredAntiAffinity ?? []).map((t) => topologyKeyId(t.topologyKey)), antiCounts: [],
    existingKeys: [], existingCounts: [],
  };
  for (const g of view.termGroups('requiredAntiAffinity')) {
    if (termMatches(g.term, pod.namespace, pod.labels, nsLabels)) addValues(s.existingAnti, g.term.topologyKey, g.counts, 1);
  }
  if (a?.requiredAffinity.length) {
    s.selfMatches = matchesAll(a.requiredAffinity, pod, view);
    const all = a.requiredAffinityAllOf;
    const g = all && group(pod, view, all.namespace, all.selector, all.selectorKey);
    if (g) {
      for (const t of a.requiredAffinity) addValues(s.affinity, t.topologyKey, g.domains(t.topologyKey), 1);
      s.affinityMatched = g.total;
    } else {
      for (const p of view.candidates(a.requiredAffinity[0].selector, termNamespaces(a.requiredAffinity[0]))) {
        if (p.info.uid === pod.uid || !matchesAll(a.requiredAffinity, p.info, view)) continue;
        for (let i = 0; i < s.affinityKeys.length; i++) add(s.affinity, s.affinityKeys[i], domainIn(p.node.domains, s.affinityKeys[i]), 1);
        s.affinityMatched++;
      }
    }
  }
  (a?.requiredAntiAffinity ?? []).forEach((t, i) => {
    const g = group(pod, view, t.namespace, t.selector, t.selectorKey);
    if (g) { addValues(s.anti, t.topologyKey, g.domains(t.topologyKey), 1); return; }
    for (const p of view.candidates(t.selector, termNamespaces(t))) {
      if (p.info.uid !== pod.uid && termMatches(t, p.info.namespace, p.info.labels, nsLabels)) add(s.anti, s.antiKeys[i], domainIn(p.node.domains, s.antiKeys[i]), 1);
    }
  });
  // Nothing to check on any node: leave the filter a no-op.
  if (!a?.requiredAffinity.length && !a?.requiredAntiAffinity.length && !s.existingAnti.size) return;
  resolve(s);
  (state.data ??= {})[name] = s;
}

function satisfiesAffinity(s: FilterState, node: NodeInfo): boolean {
  const keys = s.affinityKeys;
  if (!keys.length) return true;
  let podsExist = true;
  for (let i = 0; i < keys.length; i++) {
    const d = domainIn(node.domains, keys[i]);
    // Every topology key must be on the node.
    if (d < 0) return false;
    if (at(s.affinityCounts[i], d) <= 0) podsExist = false;
  }
  // The first pod of a group with affinity to itself has nothing to join yet.
  return podsExist || (s.affinityMatched === 0 && s.selfMatches);
}

export const interPodAffinityFilter: FilterPlugin = {
  name,
  domainWide: true,
  preFilter,
  skip: (_pod, state) => !state.data?.[name],
  filter(_pod, node, state) {
    const s = state?.data?.[name] as FilterState | undefined;
    if (!s) return null;
    if (!satisfiesAffinity(s, node)) return errAffinity;
    const domains = node.domains;
    for (let i = 0; i < s.antiKeys.length; i++) if (at(s.antiCounts[i], domainIn(domains, s.antiKeys[i])) > 0) return errAntiAffinity;
    for (let i = 0; i < s.existingKeys.length; i++) if (at(s.existingCounts[i], domainIn(domains, s.existingKeys[i])) > 0) return errExistingAntiAffinity;
    return null;
  },
  updateState(pod, state, other, node, sign) {
    const s = state.data?.[name] as FilterState | undefined;
    if (!s || !state.cluster) return;
    accountOther(s, pod, other, node, state.cluster, sign);
    resolve(s);
  },
};

const existingTerms: [TermKind, number][] = [['requiredAffinity', 1], ['preferredAffinity', 1], ['preferredAntiAffinity', -1]];

/** Per topology domain, the summed weights of terms linking the incoming pod with placed pods. */
function topologyScores(pod: PodInfo, view: ClusterView): DomainCounts {
  const nsLabels = (ns: string) => view.namespaceLabels(ns);
  const m: DomainCounts = new Map();
  for (const [kind, sign] of existingTerms) {
    for (const g of view.termGroups(kind)) {
      if (!termMatches(g.term, pod.namespace, pod.labels, nsLabels)) continue;
      addValues(m, g.term.topologyKey, g.counts, (kind === 'requiredAffinity' ? hardPodAffinityWeight : g.weight) * sign);
    }
  }
  const a = pod.affinity;
  const incoming: [readonly (AffinityTerm & { weight: number })[], number][] = [[a?.preferredAffinity ?? [], 1], [a?.preferredAntiAffinity ?? [], -1]];
  for (const [terms, sign] of incoming) {
    for (const t of terms) {
      const g = group(pod, view, t.namespace, t.selector, t.selectorKey);
      if (g) { addValues(m, t.topologyKey, g.domains(t.topologyKey), t.weight * sign); continue; }
      const kid = topologyKeyId(t.topologyKey);
      for (const p of view.candidates(t.selector, termNamespaces(t))) {
        if (p.info.uid !== pod.uid && termMatches(t, p.info.namespace, p.info.labels, nsLabels)) add(m, kid, domainIn(p.node.domains, kid), t.weight * sign);
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
    // Arrays, not the Map's iterator, in the per-node loop; a domain id per key and node.
    const keys = [...m.keys()], byDomain = [...m.values()];
    let min = Infinity, max = -Infinity;
    for (let i = 0; i < n; i++) {
      let sum = 0;
      const domains = nodes[i].domains;
      for (let k = 0; k < keys.length; k++) sum += at(byDomain[k], domainIn(domains, keys[k]));
      out[i] = sum;
      if (sum < min) min = sum;
      if (sum > max) max = sum;
    }
    const diff = max - min;
    for (let i = 0; i < n; i++) out[i] = diff > 0 ? Math.trunc((maxNodeScore * (out[i] - min)) / diff) : 0;
  },
};
