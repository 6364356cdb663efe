// Pods matching one (namespace, label selector) pair — a topology spread constraint's group —
// counted per node and per value of the topology keys asked for, and kept current as pods
// are placed and removed and nodes relabelled, as the per-owner counts are. Spreading then
// reads a domain's count instead of matching the group's pods again on every cycle.
// A group is made on first use (counted once from the label index) and dropped when
// the least recently used of too many.
import { matches, type Selector } from '../api/labels.js';
import type { PlacedPod } from './cluster.js';
import type { NodeInfo } from './nodeinfo.js';

export interface MatchingPods {
  /** How many pods match. */
  readonly total: number;
  /** Matching pods per node; nodes without any are absent. Read only. */
  readonly perNode: ReadonlyMap<NodeInfo, number>;
  /** Matching pods per value of `key` on their nodes; values without any are absent. Read only. */
  domains(key: string): ReadonlyMap<string, number>;
}

/** Groups kept at most; a cluster has about one per workload with spread constraints. */
const maxGroups = 4096;

function bump<K>(m: Map<K, number>, k: K, n: number): void {
  const c = (m.get(k) ?? 0) + n;
  if (c > 0) m.set(k, c);
  else m.delete(k);
}

/** Whether a placed pod counts for a spread constraint at all (terminating pods do not; for inter-pod affinity they do). */
const live = (p: PlacedPod) => !p.info.pod.metadata.deletionTimestamp;

class Group implements MatchingPods {
  readonly perNode = new Map<NodeInfo, number>();
  private readonly byKey = new Map<string, Map<string, number>>();
  total = 0;
  used = 0;

  constructor(readonly namespace: string, readonly selector: Selector, readonly id: string, readonly anchors: string[], readonly withTerminating: boolean) {}

  counts(p: PlacedPod): boolean {
    return this.withTerminating || live(p);
  }

  domains(key: string): ReadonlyMap<string, number> {
    let m = this.byKey.get(key);
    if (!m) {
      m = new Map();
      for (const [node, n] of this.perNode) { const v = node.labels[key]; if (v !== undefined) bump(m, v, n); }
      this.byKey.set(key, m);
    }
    return m;
  }

  count(node: NodeInfo, labels: Record<string, string>, n: number): void {
    this.total += n;
    bump(this.perNode, node, n);
    for (const [key, m] of this.byKey) { const v = labels[key]; if (v !== undefined) bump(m, v, n); }
  }
}

const anchorKey = (ns: string, k: string, v: string) => `${ns}\u0000${k}\u0000${v}`;

export class MatchingPodsIndex {
  private groups = new Map<string, Group>();
  /** Groups by namespace and one `key=value` their selector requires; a pod only tests these. */
  private anchored = new Map<string, Set<Group>>();
  /** Groups whose selector has no `In` requirement, by namespace. */
  private unanchored = new Map<string, Set<Group>>();
  private clock = 0;

  /**
   * The group of `sel` in `ns`, counted from `candidates` (the namespace's pods `sel` may
   * match) when new. Terminating pods count only `withTerminating` (inter-pod affinity).
   */
  get(ns: string, sel: Selector, key: string, candidates: () => Iterable<PlacedPod>, withTerminating = false): MatchingPods {
    const id = `${ns}\u0000${withTerminating ? 'all' : 'live'}\u0000${key}`;
    let g = this.groups.get(id);
    if (!g) {
      if (this.groups.size >= maxGroups) this.evict();
      const anchor = sel.find((r) => r.operator === 'In');
      g = new Group(ns, sel, id, anchor ? anchor.values.map((v) => anchorKey(ns, anchor.key, v)) : [], withTerminating);
      for (const p of candidates()) if (g.counts(p) && p.info.namespace === ns && matches(sel, p.info.labels)) g.count(p.node, p.node.labels, 1);
      this.groups.set(id, g);
      if (g.anchors.length) for (const a of g.anchors) addTo(this.anchored, a, g);
      else if (!anchor) addTo(this.unanchored, ns, g);
    }
    g.used = ++this.clock;
    return g;
  }

  /** A pod placed on (sign 1) or taken off (-1) its node. */
  account(p: PlacedPod, sign: 1 | -1): void {
    if (!this.groups.size) return;
    const { namespace: ns, labels } = p.info;
    for (const [k, v] of Object.entries(labels)) {
      const gs = this.anchored.get(anchorKey(ns, k, v));
      if (gs) for (const g of gs) if (g.counts(p) && matches(g.selector, labels)) g.count(p.node, p.node.labels, sign);
    }
    const loose = this.unanchored.get(ns);
    if (loose) for (const g of loose) if (g.counts(p) && matches(g.selector, labels)) g.count(p.node, p.node.labels, sign);
  }

  /** `node`'s labels changed from `before`: its pods move between domains. */
  relabelled(node: NodeInfo, before: Record<string, string>): void {
    for (const g of this.groups.values()) {
      const n = g.perNode.get(node);
      if (!n) continue;
      g.count(node, before, -n);
      g.count(node, node.labels, n);
    }
  }

  private evict(): void {
    let oldest: Group | undefined;
    for (const g of this.groups.values()) if (!oldest || g.used < oldest.used) oldest = g;
    if (!oldest) return;
    this.groups.delete(oldest.id);
    for (const a of oldest.anchors) removeFrom(this.anchored, a, oldest);
    removeFrom(this.unanchored, oldest.namespace, oldest);
  }
}

function addTo(m: Map<string, Set<Group>>, k: string, g: Group): void {
  let s = m.get(k);
  if (!s) m.set(k, (s = new Set()));
  s.add(g);
}

function removeFrom(m: Map<string, Set<Group>>, k: string, g: Group): void {
  const s = m.get(k);
  if (!s) return;
  s.delete(g);
  if (!s.size) m.delete(k);
}
