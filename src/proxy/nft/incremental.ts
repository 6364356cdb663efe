// Partial syncs that cost what changed, not what exists, and never delete: the proxier hands
// over the same plan object for every service port that did not change, so only changed
// plans are turned into fragments and compared. A service port whose verdict or endpoint data
// changes moves to the other generation of the maps; elements that go away are re-added with
// a short expiry instead of deleted (a deleting transaction waits for an RCU grace period,
// ~10 ms here, which is the whole budget). Chains and sets nobody wants any more are
// collected later, in a transaction of their own. Shared elements and load-balancing chains
// are reference-counted.
import type { Element, NftOp } from '../../nft/index.js';
import type { EndpointTarget, ServicePortPlan } from '../model.js';
import type { SyncOptions } from '../backend.js';
import { valueOf } from './diff.js';
import {
  elementId, fragmentFor, isGenerational, isVerdictSet, lbRules, LIVE_MS, presetLbChains, RETIRE_DATA_MS, RETIRE_VERDICT_MS, SET_SPECS,
  type DesiredChain, type Fragment, type Gens,
} from './ruleset.js';

interface Entry { plan: ServicePortPlan; frag: Fragment }

const retired = (set: string, el: Element): Element =>
  ({ ...el, timeoutMs: LIVE_MS, expiresMs: isVerdictSet(set) ? RETIRE_VERDICT_MS : RETIRE_DATA_MS });

/** How an element that goes away leaves the kernel: re-added with a short expiry (kernels
 *  from 6.12 update an existing element's expiry on a re-add), or deleted (before 6.12 such a
 *  re-add is silently ignored, so only a delete works — and costs a grace period). */
export type RetireMode = 'expiry' | 'delete';

const sameTargets = (a: readonly EndpointTarget[], b: readonly EndpointTarget[]): boolean =>
  a.length === b.length && a.every((e, i) => e.ip === b[i]!.ip && e.port === b[i]!.port && e.remote === b[i]!.remote);

/** Everything a fragment is built from. */
function samePlan(a: ServicePortPlan, b: ServicePortPlan): boolean {
  return a.id === b.id && a.protocol === b.protocol && a.port === b.port && a.nodePort === b.nodePort
    && a.affinitySeconds === b.affinitySeconds && a.hasEndpoints === b.hasEndpoints && a.externalLocal === b.externalLocal
    && a.clusterIPs.length === b.clusterIPs.length && a.clusterIPs.every((ip, i) => ip === b.clusterIPs[i])
    && sameTargets(a.clusterEndpoints, b.clusterEndpoints) && sameTargets(a.nodePortEndpoints, b.nodePortEndpoints);
}

export class IncrementalState {
  constructor(private readonly retireMode: () => RetireMode = () => 'expiry') {}

  private entries = new Map<string, Entry>();
  /** Plan objects as last applied: an unchanged plan is skipped without touching its id. */
  private applied = new WeakSet<ServicePortPlan>();
  private sharedCount = new Map<string, { set: string; el: Element; count: number }>();
  private lbCount = new Map<string, number>();
  /** Load-balancing chains in the kernel (kept while unused: they cost nothing). */
  private lbChains = new Set<string>();
  /** Chains and sets left in the kernel for collect(), with the rules they still hold. */
  private orphanChains = new Map<string, DesiredChain>();
  private orphanSets = new Set<string>();

  /** The generations a plan lives in now, if it is known. */
  genOf(id: string): Gens | undefined {
    return this.entries.get(id)?.frag.gens;
  }

  /** After a full sync: the kernel holds exactly these fragments, plus what was left unwanted. */
  reset(fragments: readonly Fragment[], plans: readonly ServicePortPlan[], unwanted: { chains: Map<string, DesiredChain>; sets: string[] }): void {
    this.entries.clear();
    this.applied = new WeakSet();
    this.sharedCount.clear();
    this.lbCount.clear();
    this.lbChains.clear();
    this.orphanChains = new Map(unwanted.chains);
    this.orphanSets = new Set(unwanted.sets);
    for (const lb of presetLbChains()) this.lbChains.add(lb);
    fragments.forEach((frag, i) => {
      this.account(undefined, { plan: plans[i]!, frag });
      for (const lb of frag.lb) this.lbChains.add(lb);
    });
  }

  /** Whether collect() has anything to do. */
  get pendingCollect(): boolean {
    return this.orphanChains.size + this.orphanSets.size > 0;
  }

  /** The transaction removing orphaned chains and sets; call commitCollect() once it applied. */
  collect(): NftOp[] {
    if (!this.pendingCollect) return [];
    const chains = [...this.orphanChains.keys()];
    return [
      { op: 'addTable' },
      ...chains.map((chain): NftOp => ({ op: 'flushChain', chain })),
      ...chains.map((chain): NftOp => ({ op: 'deleteChain', chain })),
      ...[...this.orphanSets].map((set): NftOp => ({ op: 'deleteSet', set })),
    ];
  }

  commitCollect(ops: NftOp[]): void {
    for (const op of ops) {
      if (op.op === 'deleteChain') { this.orphanChains.delete(op.chain); this.lbChains.delete(op.chain); }
      if (op.op === 'deleteSet') this.orphanSets.delete(op.set);
    }
  }

  private account(old: Entry | undefined, next: Entry | undefined): void {
    for (const [e, d] of [[old, -1], [next, 1]] as const) {
      if (!e) continue;
      for (const [set, el] of e.frag.shared) {
        const id = `${set}#${elementId(el.key)}`;
        const cur = this.sharedCount.get(id) ?? { set, el, count: 0 };
        cur.count += d;
        if (cur.count) this.sharedCount.set(id, cur); else this.sharedCount.delete(id);
      }
      for (const lb of e.frag.lb) {
        const v = (this.lbCount.get(lb) ?? 0) + d;
        if (v) this.lbCount.set(lb, v); else this.lbCount.delete(lb);
      }
    }
    if (old) { this.entries.delete(old.plan.id); this.applied.delete(old.plan); }
    if (next) { this.entries.set(next.plan.id, next); this.applied.add(next.plan); }
  }

  private adopt(old: Entry, p: ServicePortPlan): void {
    this.applied.delete(old.plan);
    old.plan = p;
    this.applied.add(p);
  }

  /** The fragment for a changed plan: verdicts and endpoint data each stay in their
   *  generation, unless an element there would change or go. */
  private nextFragment(old: Entry | undefined, p: ServicePortPlan): Fragment {
    if (!old) return fragmentFor(p);
    const same = fragmentFor(p, old.frag.gens);
    const want = new Map(same.elements.map(([set, el]) => [`${set}#${elementId(el.key)}`, el]));
    let verdict = false, data = false;
    for (const [set, el] of old.frag.elements) {
      if (!isGenerational(set)) continue;
      const w = want.get(`${set}#${elementId(el.key)}`);
      if (w && valueOf(w) === valueOf(el)) continue;
      if (isVerdictSet(set)) verdict = true; else data = true;
    }
    if (!verdict && !data) return same;
    const g = old.frag.gens;
    return fragmentFor(p, { verdict: verdict ? (g.verdict ? 0 : 1) : g.verdict, data: data ? (g.data ? 0 : 1) : g.data });
  }

  /** The transaction from the last state to `plans`, and the state updated as if it applied. */
  step(plans: readonly ServicePortPlan[], hint?: SyncOptions['changed']): NftOp[] {
    const changes: [Entry | undefined, Entry | undefined][] = [];
    if (hint) {
      for (const p of hint.plans) {
        if (this.applied.has(p)) continue;
        const old = this.entries.get(p.id);
        if (old && samePlan(old.plan, p)) { this.adopt(old, p); continue; }
        changes.push([old, { plan: p, frag: this.nextFragment(old, p) }]);
      }
      for (const id of hint.removed) {
        const old = this.entries.get(id);
        if (old) changes.push([old, undefined]);
      }
    } else {
      let kept = 0;
      for (const p of plans) {
        if (this.applied.has(p)) { kept++; continue; }
        const old = this.entries.get(p.id);
        if (old) kept++;
        // A rebuilt but equal plan (a full sync rebuilds them all) only takes the old one's place.
        if (old && samePlan(old.plan, p)) { this.adopt(old, p); continue; }
        changes.push([old, { plan: p, frag: this.nextFragment(old, p) }]);
      }
      // Plan ids are unique, so entries not matched by any plan exist only when kept < size.
      if (kept < this.entries.size) {
        const seen = new Set(plans.map((p) => p.id));
        for (const [id, e] of this.entries) if (!seen.has(id)) changes.push([e, undefined]);
      }
    }
    if (!changes.length) return [];

    const head: NftOp[] = [], flush: NftOp[] = [], rules: NftOp[] = [], add = new Map<string, Element[]>(), del = new Map<string, Element[]>();
    const into = (m: Map<string, Element[]>, set: string, el: Element) => { let l = m.get(set); if (!l) m.set(set, (l = [])); l.push(el); };
    const push = (set: string, el: Element) => into(add, set, el);
    const deleting = this.retireMode() === 'delete';
    const retire = (set: string, el: Element) => (deleting ? into(del, set, { key: el.key }) : push(set, retired(set, el)));
    const sharedBefore = new Map<string, { count: number; set: string; el: Element }>();
    const wantChain = (name: string, c: DesiredChain, had: DesiredChain | undefined) => {
      const orphan = this.orphanChains.get(name);
      if (orphan) this.orphanChains.delete(name);
      const have = had ?? orphan;
      if (!have) head.push({ op: 'addChain', chain: name });
      else if (JSON.stringify(have.rules) === JSON.stringify(c.rules)) return;
      else flush.push({ op: 'flushChain', chain: name });
      for (const exprs of c.rules) rules.push({ op: 'addRule', chain: name, exprs });
    };

    for (const [old, next] of changes) {
      // Owned elements: in if new or changed (a changed one is in the other generation), retired if gone.
      const oldEls = new Map<string, [string, Element]>();
      for (const [set, el] of old?.frag.elements ?? []) oldEls.set(`${set}#${elementId(el.key)}`, [set, el]);
      const nextIds = new Set<string>();
      for (const [set, el] of next?.frag.elements ?? []) {
        const id = `${set}#${elementId(el.key)}`;
        nextIds.add(id);
        const o = oldEls.get(id);
        if (o && valueOf(o[1]) === valueOf(el)) continue;
        push(set, el);
      }
      for (const [id, [set, el]] of oldEls) if (!nextIds.has(id)) retire(set, el);
      // Owned chains and sets (affinity): written when new or changed; unwanted ones wait for collect().
      const oc = old?.frag.chains ?? new Map<string, DesiredChain>(), nc = next?.frag.chains ?? new Map<string, DesiredChain>();
      for (const [name, c] of nc) wantChain(name, c, oc.get(name));
      for (const [name, c] of oc) if (!nc.has(name)) this.orphanChains.set(name, c);
      const os = old?.frag.sets ?? new Map(), ns = next?.frag.sets ?? new Map();
      for (const [name, s] of ns) {
        if (os.has(name)) continue;
        if (this.orphanSets.delete(name)) continue;
        head.unshift({ op: 'addSet', set: s.spec });
      }
      for (const name of os.keys()) if (!ns.has(name)) this.orphanSets.add(name);
      // Shared elements: remember counts before, to find 0 ↔ n transitions afterwards.
      for (const e of [old, next]) for (const [set, el] of e?.frag.shared ?? []) {
        const id = `${set}#${elementId(el.key)}`;
        if (!sharedBefore.has(id)) sharedBefore.set(id, { count: this.sharedCount.get(id)?.count ?? 0, set, el });
      }
      this.account(old, next);
    }
    for (const [id, before] of sharedBefore) {
      const now = this.sharedCount.get(id);
      if (!before.count && now) push(now.set, now.el);
      if (before.count && !now) retire(before.set, before.el);
    }
    for (const lb of this.lbCount.keys()) {
      if (this.lbChains.has(lb)) continue;
      this.lbChains.add(lb);
      wantChain(lb, { rules: lbRules(lb) }, undefined);
    }
    const elemOps = (m: Map<string, Element[]>, op: 'addElements' | 'deleteElements'): NftOp[] => [...m].map(([set, elements]) => {
      const spec = SET_SPECS.get(set)!;
      const data = spec.data ? { dataType: spec.data } : {};
      return op === 'addElements'
        ? { op, set, keyType: spec.keyType, ...data, elements, timeoutMs: LIVE_MS, expiresMs: LIVE_MS }
        : { op, set, keyType: spec.keyType, ...data, elements };
    });
    const body = [...head, ...elemOps(del, 'deleteElements'), ...flush, ...rules, ...elemOps(add, 'addElements')];
    return body.length ? [{ op: 'addTable' }, ...body] : [];
  }
}
