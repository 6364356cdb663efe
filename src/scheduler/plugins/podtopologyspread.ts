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
import type { NodeInfo } from '../nodeinfo.js';
import type { PodInfo } from '../podinfo.js';
import type { SpreadConstraint } from '../terms.js';
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
}

function explicit(pod: PodInfo, c: SpreadConstraint): Counted {
  return { ...c, system: false, counts: (o) => o.namespace === pod.namespace && !o.pod.metadata.deletionTimestamp && matches(c.selector, o.labels) };
}

/** The system default constraints, or none when the pod belongs to no group. */
function systemDefaults(pod: PodInfo, state: CycleState): Counted[] {
  const owner = pod.ownerUID, services = state.serviceSelectors;
  if (!owner && !services.length) return [];
  const counts = (o: PodInfo) => o.namespace === pod.namespace && !o.pod.metadata.deletionTimestamp
    && (!owner || o.ownerUID === owner) && services.every((s) => matches(s, o.labels));
  const base = { whenUnsatisfiable: 'ScheduleAnyway' as const, selector: [], minDomains: 1, honorNodeAffinity: true, honorNodeTaints: false, system: true, counts };
  return [{ ...base, maxSkew: 3, topologyKey: labelHostname }, { ...base, maxSkew: 5, topologyKey: labelZone }];
}

function constraintsOf(pod: PodInfo, state: CycleState, kind: SpreadConstraint['whenUnsatisfiable']): Counted[] {
  const all = pod.spread.length ? pod.spread.map((c) => explicit(pod, c)) : systemDefaults(pod, state);
  return all.filter((c) => c.whenUnsatisfiable === kind);
}

/** Matching pods per node: from the cache's owner index, else from label-indexed candidates. */
function podsPerNode(pod: PodInfo, c: Counted, state: CycleState, view: ClusterView): ReadonlyMap<NodeInfo, number> {
  if (c.system && state.ownerNodes && !state.serviceSelectors.length) return state.ownerNodes;
  const out = new Map<NodeInfo, number>();
  const sel = c.system ? state.serviceSelectors[0] ?? [] : c.selector;
  for (const p of view.candidates(sel)) if (p.info.uid !== pod.uid && c.counts(p.info)) out.set(p.node, (out.get(p.node) ?? 0) + 1);
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

const hasKeys = (node: NodeInfo, cs: readonly Counted[]) => cs.every((c) => node.labels[c.topologyKey] !== undefined);

/** Matching pods per domain (domains without any may be absent) and how many domains there are. */
interface Domains {
  counts: Map<string, number>;
  size: number;
}

/** Per constraint, matching pods per value of its key over the qualifying nodes. */
function domainCounts(pod: PodInfo, cs: readonly Counted[], state: CycleState, view: ClusterView, requireAll: boolean): Domains[] {
  const perNode = cs.map((c) => podsPerNode(pod, c, state, view));
  const restricted = cs.some((c) => (c.honorNodeAffinity && (pod.nodeSelector.length || pod.requiredTerms)) || c.honorNodeTaints);
  if (!restricted) {
    // Every node qualifies: the domains are the key's values, the counts come from the
    // matching pods alone (no walk over the nodes).
    return cs.map((c, i) => {
      const counts = new Map<string, number>();
      for (const [node, n] of perNode[i]) {
        const v = node.labels[c.topologyKey];
        if (v !== undefined && (!requireAll || hasKeys(node, cs))) counts.set(v, (counts.get(v) ?? 0) + n);
      }
      return { counts, size: view.topologyValues(c.topologyKey)?.size ?? 0 };
    });
  }
  const domains = cs.map(() => ({ counts: new Map<string, number>(), size: 0 }));
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
}

function minMatch(d: Domains, minDomains: number): number {
  if (d.size < minDomains || d.counts.size < d.size) return 0;
  let min = Infinity;
  for (const n of d.counts.values()) if (n < min) min = n;
  return min === Infinity ? 0 : min;
}

export const podTopologySpreadFilter: FilterPlugin = {
  name,
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
    };
    (state.data ??= {})[name] = s;
  },
  filter(_pod, node, state) {
    const s = state?.data?.[name] as FilterState | undefined;
    if (!s) return null;
    for (let i = 0; i < s.constraints.length; i++) {
      const c = s.constraints[i];
      const v = node.labels[c.topologyKey];
      if (v === undefined) return errMissingLabel;
      const skew = (s.domains[i].counts.get(v) ?? 0) + s.selfMatch[i] - s.mins[i];
      if (skew > c.maxSkew) return errConstraintsNotMatch;
    }
    return null;
  },
  updateState(pod, state, other, node, sign) {
    const s = state.data?.[name] as FilterState | undefined;
    if (!s || !hasKeys(node, s.constraints)) return;
    s.constraints.forEach((c, i) => {
      if (!c.counts(other) || !nodeQualifies(pod, node, c)) return;
      const v = node.labels[c.topologyKey]!;
      const d = s.domains[i].counts;
      d.set(v, (d.get(v) ?? 0) + sign);
      s.mins[i] = minMatch(s.domains[i], c.minDomains);
    });
  },
};

export const podTopologySpreadScore: ScorePlugin = {
  name,
  weight: 2,
  score(pod, nodes, out, state) {
    const n = nodes.length;
    const view = state.cluster;
    const cs = view ? constraintsOf(pod, state, 'ScheduleAnyway') : [];
    if (!view || !cs.length) { out.fill(maxNodeScore, 0, n); return; }
    const requireAll = pod.spread.length > 0;
    const zoned = cs.filter((c) => c.topologyKey !== labelHostname);
    const zonedDomains = domainCounts(pod, zoned, state, view, requireAll);
    const domains = cs.map((c) => zonedDomains[zoned.indexOf(c)]);
    // Domains seen among the nodes being scored set each constraint's weight; nodes missing
    // a key of the pod's own constraints take no part.
    const ignored = new Uint8Array(n);
    let scored = 0;
    const seen = cs.map(() => new Set<string>());
    for (let i = 0; i < n; i++) {
      const labels = nodes[i].labels;
      if (requireAll && !hasKeys(nodes[i], cs)) { ignored[i] = 1; continue; }
      scored++;
      for (let j = 0; j < cs.length; j++) {
        const key = cs[j].topologyKey;
        if (key === labelHostname) continue;
        const v = labels[key];
        if (v !== undefined) seen[j].add(v);
      }
    }
    const weights = cs.map((c, j) => Math.log((c.topologyKey === labelHostname ? scored : seen[j].size) + 2));
    const perHost = cs.map((c) => (c.topologyKey === labelHostname ? podsPerNode(pod, c, state, view) : undefined));
    let min = Infinity, max = 0;
    for (let i = 0; i < n; i++) {
      if (ignored[i]) continue;
      let score = 0;
      for (let j = 0; j < cs.length; j++) {
        const v = nodes[i].labels[cs[j].topologyKey];
        if (v === undefined) continue;
        const cnt = perHost[j] ? perHost[j]!.get(nodes[i]) ?? 0 : domains[j].counts.get(v) ?? 0;
        score += cnt * weights[j] + (cs[j].maxSkew - 1);
      }
      out[i] = Math.round(score);
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
