// What plugins that look beyond one node read from the cache: pods by label (so counting the
// pods a selector matches touches only candidates, not every pod), the (anti-)affinity terms
// of placed pods grouped by content with their counts per topology value (so checking an
// incoming pod against every existing pod's terms costs one match per distinct term), and
// the values each node label takes.
import type { Selector } from '../api/labels.js';
import type { NodeInfo } from './nodeinfo.js';
import type { PodInfo } from './podinfo.js';
import type { AffinityTerm } from './terms.js';
import type { MatchingPods } from './matching-pods.js';

export interface PlacedPod {
  readonly info: PodInfo;
  readonly node: NodeInfo;
}

export type TermKind = 'requiredAffinity' | 'requiredAntiAffinity' | 'preferredAffinity' | 'preferredAntiAffinity';
const kinds: TermKind[] = ['requiredAffinity', 'requiredAntiAffinity', 'preferredAffinity', 'preferredAntiAffinity'];

export interface TermGroup {
  readonly term: AffinityTerm;
  /** The preferred term's weight; 0 for required terms. */
  readonly weight: number;
  /** Placed pods carrying this term, per topology value of their node. */
  readonly counts: Map<string, number>;
  pods: number;
}

export interface ClusterView {
  nodeList(): readonly NodeInfo[];
  /**
   * A superset of the placed pods in `namespaces` (every namespace when undefined) that `sel`
   * matches; callers still match each.
   */
  candidates(sel: Selector, namespaces?: ReadonlySet<string>): Iterable<PlacedPod>;
  /**
   * Pods of `namespace` matching `sel` (not terminating, unless `withTerminating`), kept
   * incrementally in the cache (absent: callers count candidates themselves). `key` names
   * the selector by content.
   */
  matchingPods?(namespace: string, sel: Selector, key: string, withTerminating?: boolean): MatchingPods;
  /** Where a pod is placed (bound or assumed), if it is. */
  placed?(uid: string): PlacedPod | undefined;
  termGroups(kind: TermKind): Iterable<TermGroup>;
  /** The values of a node label and how many nodes carry each. */
  topologyValues(key: string): ReadonlyMap<string, number> | undefined;
  namespaceLabels(ns: string): Record<string, string> | undefined;
}

const pairKey = (ns: string, k: string, v: string) => `${ns}\u0000${k}\u0000${v}`;

/**
 * Placed pods per namespace and `key=value` label, so a selector's candidates are the pods of
 * its narrowest `In` requirement in the namespaces asked for, never other namespaces' pods.
 */
export class LabelIndex<T extends PlacedPod> {
  private byPair = new Map<string, Set<T>>();
  private byNamespace = new Map<string, Set<T>>();

  add(p: T): void {
    const ns = p.info.namespace;
    let all = this.byNamespace.get(ns);
    if (!all) this.byNamespace.set(ns, (all = new Set()));
    all.add(p);
    for (const [k, v] of Object.entries(p.info.labels)) {
      const key = pairKey(ns, k, v);
      let set = this.byPair.get(key);
      if (!set) this.byPair.set(key, (set = new Set()));
      set.add(p);
    }
  }

  remove(p: T): void {
    const ns = p.info.namespace;
    const all = this.byNamespace.get(ns);
    if (all) { all.delete(p); if (!all.size) this.byNamespace.delete(ns); }
    for (const [k, v] of Object.entries(p.info.labels)) {
      const key = pairKey(ns, k, v);
      const set = this.byPair.get(key);
      if (!set) continue;
      set.delete(p);
      if (!set.size) this.byPair.delete(key);
    }
  }

  /**
   * The pods in `namespaces` (every namespace when undefined) of the narrowest `In`
   * requirement of `sel`, or all their pods when it has none.
   */
  *candidates(sel: Selector, namespaces?: ReadonlySet<string>): Iterable<T> {
    const nss: Iterable<string> = namespaces ?? this.byNamespace.keys();
    let best: Set<T>[] | undefined, size = Infinity;
    for (const r of sel) {
      if (r.operator !== 'In') continue;
      const sets: Set<T>[] = [];
      let n = 0;
      for (const ns of nss) {
        for (const v of r.values) { const s = this.byPair.get(pairKey(ns, r.key, v)); if (s) { sets.push(s); n += s.size; } }
      }
      if (n < size) { best = sets; size = n; }
    }
    if (!best) {
      for (const ns of nss) { const s = this.byNamespace.get(ns); if (s) yield* s; }
      return;
    }
    // A pod has one namespace and one value per key, so the sets of one requirement are disjoint.
    for (const s of best) yield* s;
  }
}

export class TermIndex {
  private byKind = new Map<TermKind, Map<string, TermGroup>>(kinds.map((k) => [k, new Map()]));

  groups(kind: TermKind): Iterable<TermGroup> {
    return this.byKind.get(kind)!.values();
  }

  account(info: PodInfo, node: NodeInfo, sign: 1 | -1): void {
    const a = info.affinity;
    if (!a) return;
    this.accountTerms('requiredAffinity', a.requiredAffinity, node, sign);
    this.accountTerms('requiredAntiAffinity', a.requiredAntiAffinity, node, sign);
    this.accountTerms('preferredAffinity', a.preferredAffinity, node, sign);
    this.accountTerms('preferredAntiAffinity', a.preferredAntiAffinity, node, sign);
  }

  private accountTerms(kind: TermKind, terms: readonly (AffinityTerm & { weight?: number })[], node: NodeInfo, sign: 1 | -1): void {
    if (!terms.length) return;
    const m = this.byKind.get(kind)!;
    for (const term of terms) {
      const weight = term.weight ?? 0;
      const gk = `${weight}|${term.key}`;
      let g = m.get(gk);
      if (!g) m.set(gk, (g = { term, weight, counts: new Map(), pods: 0 }));
      g.pods += sign;
      const v = node.labels[term.topologyKey];
      if (v !== undefined) {
        const c = (g.counts.get(v) ?? 0) + sign;
        if (c > 0) g.counts.set(v, c);
        else g.counts.delete(v);
      }
      if (g.pods <= 0) m.delete(gk);
    }
  }
}
