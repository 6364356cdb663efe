// PodTopologySpread, after kube-scheduler's plugin. A pod's topologySpreadConstraints count
// the pods their selector matches (same namespace, not terminating) per value of the
// topology key over the nodes that qualify (nodeAffinityPolicy / nodeTaintsPolicy, and
// carrying every constraint's key):
// * DoNotSchedule filters: matching pods in the node's domain, plus one if the pod matches
//   itself, minus the fewest in any domain (0 while fewer than minDomains domains exist)
//   must not exceed maxSkew.
// * ScheduleAnyway scores: per constraint count·log(domains+2) + maxSkew−1, fewer is better.
// Pods without constraints get the cluster defaults (upstream's system defaults, which
// replaced SelectorSpread): ScheduleAnyway on hostname (maxSkew 3) and zone (maxSkew 5),
// counting the pods of the same group — same controlling owner and matched by the same
// Services. Upstream builds that group's selector from the owner's selector; the owner UID
// stands in for it here (the pods a controller owns are the ones its selector matched).
import { matches } from '../../api/labels.js';
import { anyTermMatches } from '../nodeselector.js';
import type { ClusterView } from '../cluster.js';
import type { MatchingPods } from '../matching-pods.js';
import type { NodeInfo } from '../nodeinfo.js';
import type { PodInfo } from '../podinfo.js';
import type { SpreadConstraint } from '../terms.js';
import { domainCount, domainId, domainIn, topologyKeyId } from '../topology.js';
import { tolerates } from './tainttoleration.js';
import { maxNodeScore, type CycleState, type FilterPlugin, type ScorePlugin } from './types.js';

export const errConstraintsNotMatch = "node(s) didn't match pod topology spread constraints";
export const errMissingLabel = "node(s) didn't match pod topology spread constraints (missing required label)";
export const labelHostname = 'kubernetes.io/hostname';
export const labelZone = 'topology.kubernetes.io/zone';
const name = 'PodTopologySpread';

/** A constraint with how to find and test the pods it counts. */
interface Counted extends SpreadConstraint {
  counts(other: PodInfo): boolean;
  system: boolean;
  /** The pod's namespace, the only one whose pods count. */
  namespaces: ReadonlySet<string>;
}

type Kind = SpreadConstraint['whenUnsatisfiable'];
const explicitOf = new WeakMap<PodInfo, Record<Kind, Counted[]>>();

/** The pod's own constraints by kind, made once per pod version (PodInfos do not change). */
function explicit(pod: PodInfo): Record<Kind, Counted[]> {
  let byKind = explicitOf.get(pod);
  if (!byKind) {
    const namespaces = new Set([pod.namespace]);
    const all: Counted[] = pod.spread.map((c) => ({
      ...c, system: false, namespaces,
      counts: (o: PodInfo) => o.namespace === pod.namespace && !o.pod.metadata.deletionTimestamp && matches(c.selector, o.labels),
    }));
    byKind = { DoNotSchedule: all.filter((c) => c.whenUnsatisfiable === 'DoNotSchedule'), ScheduleAnyway: all.filter((c) => c.whenUnsatisfiable === 'ScheduleAnyway') };
    explicitOf.set(pod, byKind);
  }
  return byKind;
}

/** The system default constraints (all ScheduleAnyway), or none when the pod belongs to no group. */
function systemDefaults(pod: PodInfo, state: CycleState): Counted[] {
  const owner = pod.ownerUID, services = state.serviceSelectors;
  if (!owner && !services.length) return [];
  const counts = (o: PodInfo) => o.namespace === pod.namespace && !o.pod.metadata.deletionTimestamp
    && (!owner || o.ownerUID === owner) && services.every((s) => matches(s, o.labels));
  const base = {
    whenUnsatisfiable: 'ScheduleAnyway' as const, selector: [], selectorKey: '', minDomains: 1, honorNodeAffinity: true, honorNodeTaints: false,
    system: true, namespaces: new Set([pod.namespace]), counts,
  };
  return [{ ...base, maxSkew: 3, topologyKey: labelHostname }, { ...base, maxSkew: 5, topologyKey: labelZone }];
}

const none: Counted[] = [];

function constraintsOf(pod: PodInfo, state: CycleState, kind: Kind): Counted[] {
  if (pod.spread.length) return explicit(pod)[kind];
  return kind === 'ScheduleAnyway' ? systemDefaults(pod, state) : none;
}

/** The cache's incremental count of an explicit constraint's pods, when there is one to use. */
function matchingGroup(pod: PodInfo, c: Counted, view: ClusterView): MatchingPods | undefined {
  // The incoming pod itself never counts; the incremental counts would include it if placed.
  if (c.system || !view.matchingPods || view.placed?.(pod.uid)) return undefined;
  return view.matchingPods(pod.namespace, c.selector, c.selectorKey);
}

/** Matching pods per node: from the cache's owner index or selector groups, else from label-indexed candidates. */
function podsPerNode(pod: PodInfo, c: Counted, state: CycleState, view: ClusterView): ReadonlyMap<NodeInfo, number> {
  if (c.system && state.ownerNodes && !state.serviceSelectors.length) return state.ownerNodes;
  const group = matchingGroup(pod, c, view);
  if (group) return group.perNode;
  const out = new Map<NodeInfo, number>();
  const sel = c.system ? state.serviceSelectors[0] ?? [] : c.selector;
  for (const p of view.candidates(sel, c.namespaces)) if (p.info.uid !== pod.uid && c.counts(p.info)) out.set(p.node, (out.get(p.node) ?? 0) + 1);
  return out;
}

function nodeQualifies(pod: PodInfo, node: NodeInfo, c: SpreadConstraint): boolean {
  if (c.honorNodeAffinity) {
    for (const [k, v] of pod.nodeSelector) if (node.labels[k] !== v) return false;
    if (pod.requiredTerms && !anyTermMatches(pod.requiredTerms, node.name, node.labels)) return false;
  }
  if (c.honorNodeTaints) {
    for (const taint of node.taints) {
      if (taint.effect !== 'NoSchedule' && taint.effect !== 'NoExecute') continue;
      if (!pod.tolerations.some((t) => tolerates(t, taint))) return false;
    }
  }
  return true;
}

function hasKeyIds(node: NodeInfo, keyIds: readonly number[]): boolean {
  for (let i = 0; i < keyIds.length; i++) if (domainIn(node.domains, keyIds[i]) < 0) return false;
  return true;
}

function hasKeys(node: NodeInfo, cs: readonly Counted[]): boolean {
  for (let i = 0; i < cs.length; i++) if (node.labels[cs[i].topologyKey] === undefined) return false;
  return true;
}

/** Matching pods per domain (domains without any may be absent) and how many domains there are. */
interface Domains {
  counts: ReadonlyMap<string, number>;
  /** `counts` is the cache's own map: copy it before changing it. */
  shared: boolean;
  size: number;
}

/** Per constraint, matching pods per value of its key over the qualifying nodes. */
function domainCounts(pod: PodInfo, cs: readonly Counted[], state: CycleState, view: ClusterView, requireAll: boolean): Domains[] {
  const restricted = cs.some((c) => (c.honorNodeAffinity && (pod.nodeSelector.length || pod.requiredTerms)) || c.honorNodeTaints);
  if (!restricted) {
    // Every node qualifies: the domains are the key's values, the counts come from the
    // matching pods alone (no walk over the nodes) — kept by the cache per selector when
    // no other constraint's key has to be checked on the pods' nodes.
    return cs.map((c) => {
      const size = view.topologyValues(c.topologyKey)?.size ?? 0;
      const group = !requireAll || cs.length === 1 ? matchingGroup(pod, c, view) : undefined;
      if (group) return { counts: group.domains(c.topologyKey), shared: true, size };
      const counts = new Map<string, number>();
      for (const [node, n] of podsPerNode(pod, c, state, view)) {
        const v = node.labels[c.topologyKey];
        if (v !== undefined && (!requireAll || hasKeys(node, cs))) counts.set(v, (counts.get(v) ?? 0) + n);
      }
      return { counts, shared: false, size };
    });
  }
  const perNode = cs.map((c) => podsPerNode(pod, c, state, view));
  const domains = cs.map(() => ({ counts: new Map<string, number>(), shared: false, size: 0 }));
  for (const node of view.nodeList()) {
    if (requireAll && !hasKeys(node, cs)) continue;
    cs.forEach((c, i) => {
      const v = node.labels[c.topologyKey];
      if (v === undefined || !nodeQualifies(pod, node, c)) return;
      domains[i].counts.set(v, (domains[i].counts.get(v) ?? 0) + (perNode[i].get(node) ?? 0));
    });
  }
  for (const d of domains) d.size = d.counts.size;
  return domains;
}

interface FilterState {
  constraints: Counted[];
  domains: Domains[];
  selfMatch: number[];
  /** The fewest matching pods in any domain, per constraint (kept current by updateState). */
  mins: number[];
  /** Per constraint, its topology key's id. */
  keyIds: number[];
  /**
   * Per constraint, per domain id of its key: 1 when a node there passes. The skew is the
   * same for every node of a domain, so it is worked out once per domain, not per node.
   */
  fits: Uint8Array[];
  /** Per constraint, whether a domain with no matching pods passes (ids made after preFilter). */
  emptyFits: boolean[];
}

/** Works out constraint `i`'s per-domain answers from its counts and minimum. */
function judgeDomains(s: FilterState, i: number): void {
  const c = s.constraints[i], key = s.keyIds[i], base = s.selfMatch[i] - s.mins[i];
  const fits = new Uint8Array(domainCount(key));
  s.emptyFits[i] = base <= c.maxSkew;
  if (s.emptyFits[i]) fits.fill(1);
  for (const [v, n] of s.domains[i].counts) fits[domainId(key, v)] = n + base <= c.maxSkew ? 1 : 0;
  s.fits[i] = fits;
}

function minMatch(d: Domains, minDomains: number): number {
  if (d.size < minDomains || d.counts.size < d.size) return 0;
  let min = Infinity;
  for (const n of d.counts.values()) if (n < min) min = n;
  return min === Infinity ? 0 : min;
}

export const podTopologySpreadFilter: FilterPlugin = {
  name,
  domainWide: true,
  preFilter(pod, state) {
    const view = state.cluster;
    if (!view || !pod.spread.length) return;
    const constraints = constraintsOf(pod, state, 'DoNotSchedule');
    if (!constraints.length) return;
    const domains = domainCounts(pod, constraints, state, view, true);
    const s: FilterState = {
      constraints, domains,
      selfMatch: constraints.map((c) => (c.counts(pod) ? 1 : 0)),
      mins: constraints.map((c, i) => minMatch(domains[i], c.minDomains)),
      keyIds: constraints.map((c) => topologyKeyId(c.topologyKey)),
      fits: [], emptyFits: [],
    };
    for (let i = 0; i < constraints.length; i++) judgeDomains(s, i);
    (state.data ??= {})[name] = s;
  },
  skip: (_pod, state) => !state.data?.[name],
  filter(_pod, node, state) {
    const s = state?.data?.[name] as FilterState | undefined;
    if (!s) return null;
    const { keyIds, fits } = s;
    for (let i = 0; i < keyIds.length; i++) {
      const d = domainIn(node.domains, keyIds[i]);
      if (d < 0) return errMissingLabel;
      if (!(d < fits[i].length ? fits[i][d] : s.emptyFits[i])) return errConstraintsNotMatch;
    }
    return null;
  },
  updateState(pod, state, other, node, sign) {
    const s = state.data?.[name] as FilterState | undefined;
    if (!s || !hasKeys(node, s.constraints)) return;
    s.constraints.forEach((c, i) => {
      if (!c.counts(other) || !nodeQualifies(pod, node, c)) return;
      const v = node.labels[c.topologyKey]!;
      const dom = s.domains[i];
      if (dom.shared) { dom.counts = new Map(dom.counts); dom.shared = false; }
      const d = dom.counts as Map<string, number>;
      d.set(v, (d.get(v) ?? 0) + sign);
      s.mins[i] = minMatch(s.domains[i], c.minDomains);
      judgeDomains(s, i);
    });
  },
};

// Per-cycle scratch of the scorer, grown as needed (one scheduling loop, one thread).
let ignored = new Uint8Array(0);
let sums = new Float64Array(0);
let hostCounts = new Float64Array(0);

export const podTopologySpreadScore: ScorePlugin = {
  name,
  weight: 2,
  score(pod, nodes, out, state) {
    const n = nodes.length;
    const view = state.cluster;
    const cs = view ? constraintsOf(pod, state, 'ScheduleAnyway') : none;
    if (!view || !cs.length) { out.fill(maxNodeScore, 0, n); return; }
    if (ignored.length < n) { ignored = new Uint8Array(n * 2); sums = new Float64Array(n * 2); hostCounts = new Float64Array(n * 2); }
    const requireAll = pod.spread.length > 0;
    const zoned = cs.filter((c) => c.topologyKey !== labelHostname);
    const zonedDomains = domainCounts(pod, zoned, state, view, requireAll);
    const keyIds = cs.map((c) => topologyKeyId(c.topologyKey));
    // Domains seen among the nodes being scored set each constraint's weight; nodes missing
    // a key of the pod's own constraints take no part.
    let scored = 0;
    const all = cs.map((c) => (c.topologyKey === labelHostname ? 0 : view.topologyValues(c.topologyKey)?.size ?? 0));
    const seen = keyIds.map((k, j) => new Uint8Array(all[j] ? domainCount(k) : 0));
    const seenCount = cs.map(() => 0);
    for (let i = 0; i < n; i++) {
      const node = nodes[i];
      node.scoreSlot = i;
      if (requireAll && !hasKeyIds(node, keyIds)) { ignored[i] = 1; continue; }
      ignored[i] = 0;
      scored++;
      for (let j = 0; j < cs.length; j++) {
        // Every value seen already: the rest of the nodes cannot add one.
        if (seenCount[j] >= all[j]) continue;
        const d = domainIn(node.domains, keyIds[j]);
        if (d >= 0 && !seen[j][d]) { seen[j][d] = 1; seenCount[j]++; }
      }
    }
    sums.fill(0, 0, n);
    for (let j = 0; j < cs.length; j++) {
      const c = cs[j], key = c.topologyKey, skew = c.maxSkew - 1;
      if (key === labelHostname) {
        // Per node: walk the matching pods' nodes (a group's few) rather than look every node up.
        const w = Math.log(scored + 2);
        hostCounts.fill(0, 0, n);
        for (const [node, cnt] of podsPerNode(pod, c, state, view)) {
          const i = node.scoreSlot;
          if (i >= 0 && i < n && nodes[i] === node) hostCounts[i] = cnt;
        }
        const kid = keyIds[j];
        for (let i = 0; i < n; i++) if (!ignored[i] && (requireAll || domainIn(nodes[i].domains, kid) >= 0)) sums[i] += hostCounts[i] * w + skew;
        continue;
      }
      // Per domain, what a node there adds, worked out once; per node an array read.
      const w = Math.log(seenCount[j] + 2), kid = keyIds[j];
      const byDomain = new Float64Array(domainCount(kid)).fill(skew);
      for (const [v, cnt] of zonedDomains[zoned.indexOf(c)].counts) byDomain[domainId(kid, v)] = cnt * w + skew;
      for (let i = 0; i < n; i++) {
        if (ignored[i]) continue;
        const d = domainIn(nodes[i].domains, kid);
        if (d >= 0) sums[i] += byDomain[d];
      }
    }
    let min = Infinity, max = 0;
    for (let i = 0; i < n; i++) {
      if (ignored[i]) continue;
      out[i] = Math.round(sums[i]);
      if (out[i] < min) min = out[i];
      if (out[i] > max) max = out[i];
    }
    for (let i = 0; i < n; i++) {
      if (ignored[i]) out[i] = 0;
      else if (max === 0) out[i] = maxNodeScore;
      else out[i] = Math.trunc((maxNodeScore * (max + min - out[i])) / max);
    }
  },
};
