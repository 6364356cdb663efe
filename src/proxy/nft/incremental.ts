// Partial syncs that cost what changed, not what exists: the proxier hands over the same plan
// object for every service port that did not change, so only changed plans are turned into
// fragments and compared; shared elements and load-balancing chains are reference-counted.
import type { Element, NftOp } from '../../nft/index.js';
import type { ServicePortPlan } from '../model.js';
import { valueOf } from './diff.js';
import {
  elementId, fragmentFor, lbChain, lbNodePortChain, lbNodePortRule, lbRule, SETS, type DesiredChain, type Fragment,
} from './ruleset.js';

const SPEC = new Map(Object.values(SETS).map((s) => [s.name, s]));

interface Entry { plan: ServicePortPlan; frag: Fragment }

export class IncrementalState {
  private entries = new Map<string, Entry>();
  private sharedCount = new Map<string, { set: string; el: Element; count: number }>();
  private lbCount = new Map<number, number>();
  private npCount = new Map<number, number>();

  /** Forget everything (the next full sync rebuilds from scratch). */
  reset(plans: readonly ServicePortPlan[]): void {
    this.entries.clear();
    this.sharedCount.clear();
    this.lbCount.clear();
    this.npCount.clear();
    for (const p of plans) this.account(undefined, { plan: p, frag: fragmentFor(p) });
  }

  private account(old: Entry | undefined, next: Entry | undefined): void {
    const bump = <K>(m: Map<K, number>, k: K, d: number) => {
      const v = (m.get(k) ?? 0) + d;
      if (v) m.set(k, v); else m.delete(k);
    };
    for (const [e, d] of [[old, -1], [next, 1]] as const) {
      if (!e) continue;
      for (const [set, el] of e.frag.shared) {
        const id = `${set}#${elementId(el.key)}`;
        const cur = this.sharedCount.get(id) ?? { set, el, count: 0 };
        cur.count += d;
        if (cur.count) this.sharedCount.set(id, cur); else this.sharedCount.delete(id);
      }
      for (const n of e.frag.lb) bump(this.lbCount, n, d);
      for (const n of e.frag.lbNodePort) bump(this.npCount, n, d);
    }
    if (old) this.entries.delete(old.plan.id);
    if (next) this.entries.set(next.plan.id, next);
  }

  /** The transaction from the last state to `plans`, and the state updated as if it applied. */
  step(plans: readonly ServicePortPlan[]): NftOp[] {
    const changes: [Entry | undefined, Entry | undefined][] = [];
    let kept = 0;
    for (const p of plans) {
      const old = this.entries.get(p.id);
      if (old) kept++;
      if (old?.plan === p) continue;
      changes.push([old, { plan: p, frag: fragmentFor(p) }]);
    }
    // Plan ids are unique, so entries not matched by any plan exist only when kept < size.
    if (kept < this.entries.size) {
      const seen = new Set(plans.map((p) => p.id));
      for (const [id, e] of this.entries) if (!seen.has(id)) changes.push([e, undefined]);
    }
    if (!changes.length) return [];

    const head: NftOp[] = [], delEl = new Map<string, Element[]>(), flush: NftOp[] = [], rules: NftOp[] = [], addEl = new Map<string, Element[]>(), tail: NftOp[] = [];
    const push = (m: Map<string, Element[]>, set: string, el: Element) => { let l = m.get(set); if (!l) m.set(set, (l = [])); l.push(el); };
    const sharedBefore = new Map<string, { count: number; set: string; el: Element }>(), lbBefore = new Map(this.lbCount), npBefore = new Map(this.npCount);

    for (const [old, next] of changes) {
      // Owned elements: out if gone or changed, in if new or changed.
      const oldEls = new Map<string, [string, Element]>();
      for (const [set, el] of old?.frag.elements ?? []) oldEls.set(`${set}#${elementId(el.key)}`, [set, el]);
      const nextIds = new Set<string>();
      for (const [set, el] of next?.frag.elements ?? []) {
        const id = `${set}#${elementId(el.key)}`;
        nextIds.add(id);
        const o = oldEls.get(id);
        if (o && valueOf(o[1]) === valueOf(el)) continue;
        if (o) push(delEl, set, { key: el.key });
        push(addEl, set, el);
      }
      for (const [id, [set, el]] of oldEls) if (!nextIds.has(id)) push(delEl, set, { key: el.key });
      // Owned chains and sets (affinity).
      const oc = old?.frag.chains ?? new Map<string, DesiredChain>(), nc = next?.frag.chains ?? new Map<string, DesiredChain>();
      for (const [name, c] of nc) {
        const o = oc.get(name);
        if (!o) head.push({ op: 'addChain', chain: name });
        else if (JSON.stringify(o.rules) === JSON.stringify(c.rules)) continue;
        else flush.push({ op: 'flushChain', chain: name });
        for (const exprs of c.rules) rules.push({ op: 'addRule', chain: name, exprs });
      }
      for (const name of oc.keys()) if (!nc.has(name)) { flush.push({ op: 'flushChain', chain: name }); tail.unshift({ op: 'deleteChain', chain: name }); }
      const os = old?.frag.sets ?? new Map(), ns = next?.frag.sets ?? new Map();
      for (const [name, s] of ns) if (!os.has(name)) head.unshift({ op: 'addSet', set: s.spec });
      for (const name of os.keys()) if (!ns.has(name)) tail.push({ op: 'deleteSet', set: name });
      // Shared elements: remember counts before, to find 0 ↔ n transitions afterwards.
      for (const e of [old, next]) for (const [set, el] of e?.frag.shared ?? []) {
        const id = `${set}#${elementId(el.key)}`;
        if (!sharedBefore.has(id)) sharedBefore.set(id, { count: this.sharedCount.get(id)?.count ?? 0, set, el });
      }
      this.account(old, next);
    }
    for (const [id, before] of sharedBefore) {
      const now = this.sharedCount.get(id);
      if (!before.count && now) push(addEl, now.set, now.el);
      if (before.count && !now) push(delEl, before.set, { key: before.el.key });
    }
    for (const [counts, before, chain, rule] of [[this.lbCount, lbBefore, lbChain, lbRule], [this.npCount, npBefore, lbNodePortChain, lbNodePortRule]] as const) {
      for (const n of new Set([...before.keys(), ...counts.keys()])) {
        if (!before.get(n) && counts.get(n)) { head.push({ op: 'addChain', chain: chain(n) }); rules.push({ op: 'addRule', chain: chain(n), exprs: rule(n) }); }
        if (before.get(n) && !counts.get(n)) { flush.push({ op: 'flushChain', chain: chain(n) }); tail.unshift({ op: 'deleteChain', chain: chain(n) }); }
      }
    }
    const elemOps = (m: Map<string, Element[]>, op: 'addElements' | 'deleteElements'): NftOp[] =>
      [...m].map(([set, elements]) => {
        const spec = SPEC.get(set)!;
        return { op, set, keyType: spec.keyType, ...('data' in spec ? { dataType: spec.data } : {}), elements };
      });
    return [{ op: 'addTable' }, ...head, ...elemOps(delEl, 'deleteElements'), ...flush, ...rules, ...elemOps(addEl, 'addElements'), ...tail];
  }
}
