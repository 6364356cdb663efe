import { compileOps } from './compile.js';
import type { LowOp } from './native.js';
import { encodeKey } from './encoding.js';
import { NftError, errnoOf } from './errors.js';
import { realClock, type Clock } from '../util/index.js';
import type { Applied, Element, Expr, NftDriver, NftOp, RuleState, SetSpec, SetState, TableRef, TableState } from './types.js';

class Failure extends Error {
  constructor(readonly code: string, message: string) {
    super(message);
  }
}

/**
 * In-memory nftables for unit tests and hollow nodes: the same atomicity (a failed
 * transaction changes nothing) and the kernel's error codes for the common mistakes (ENOENT
 * for missing objects, EBUSY for deleting something still in use, EEXIST for conflicting
 * elements). Element expiry follows the injected clock. A transaction copies only the sets it
 * touches and finds elements and chains by name or key (reusing the keys the validating
 * compilation encoded), so a thousand hollow proxies can each keep a table of thousands of
 * elements.
 */
export class FakeNft implements NftDriver {
  readonly name = 'fake';
  private readonly tables = new Map<string, MemTable>();
  private nextHandle = 1;
  /** Number of transactions applied, for tests that check a sync did (not) happen. */
  transactions = 0;

  /** Element timeouts run on `clock`, so a test steps a FakeClock instead of sleeping. */
  constructor(private readonly clock: Clock = realClock) {}

  async apply(netns: string | null, table: TableRef, ops: NftOp[]): Promise<Applied> {
    const low = compileOps(table, ops); // the same TypeErrors as the addon for malformed input
    const key = tableKey(netns, table);
    const before = this.tables.get(key);
    // Copy on write: the chains, rules and set list are small; a set's elements are copied
    // only when an op of this transaction changes them.
    let state: MemTable | undefined = before && { ...before, chains: new Map(before.chains), rules: [...before.rules], sets: new Map(before.sets) };
    const copied = new Set<string>();
    const handle = this.nextHandle;
    for (const [index, op] of ops.entries()) {
      try {
        state = this.step(state, table, op, low[index]!, copied);
      } catch (e) {
        if (!(e instanceof Failure)) throw e;
        this.nextHandle = handle;
        throw new NftError(`operation ${index} failed: ${e.message}`, errnoOf(e.code), e.code, index);
      }
    }
    if (state) this.tables.set(key, state);
    else this.tables.delete(key);
    this.transactions++;
    return { generation: this.transactions };
  }

  /** One generation for all namespaces: a conservative stand-in (any commit anywhere bumps it). */
  async generation(): Promise<number> {
    return this.transactions;
  }

  async list(netns: string | null, table: TableRef): Promise<TableState> {
    const t = this.tables.get(tableKey(netns, table));
    if (!t) throw new NftError(`table ${table.name} does not exist`, errnoOf('ENOENT'), 'ENOENT');
    const now = this.clock.now();
    const sets: SetState[] = [...t.sets.values()].map(({ spec, elements }) => ({
      ...structuredClone(spec),
      elements: [...elements.values()].filter((el) => !lapsed(el, now)).map((el) => {
        const { expiresAt, ...out } = copyElement(el);
        return expiresAt !== undefined ? { ...out, expiresMs: Math.max(0, expiresAt - now) } : out;
      }),
    }));
    return { family: t.family, name: t.name, chains: structuredClone([...t.chains.values()]), rules: structuredClone(t.rules), sets };
  }

  private step(t: MemTable | undefined, ref: TableRef, op: NftOp, low: LowOp, copied: Set<string>): MemTable | undefined {
    if (op.op === 'addTable') return t ?? { family: ref.family, name: ref.name, chains: new Map(), rules: [], sets: new Map() };
    if (!t) throw new Failure('ENOENT', `table ${ref.name} does not exist`);
    const chain = (name: string) => {
      const c = t.chains.get(name);
      if (!c) throw new Failure('ENOENT', `chain ${name} does not exist`);
      return c;
    };
    const set = (name: string) => {
      const s = t.sets.get(name);
      if (!s) throw new Failure('ENOENT', `set ${name} does not exist`);
      return s;
    };
    /** The set, copied once per transaction before its elements change. */
    const writable = (name: string): MemSet => {
      const s = set(name);
      if (copied.has(name)) return s;
      const c = { spec: s.spec, elements: new Map(s.elements) };
      t.sets.set(name, c);
      copied.add(name);
      return c;
    };
    const chainInUse = (name: string) => {
      if (t.rules.some((r) => r.chain === name || r.exprs.some((e) => 'chain' in e && e.chain === name))) return true;
      const now = this.clock.now();
      for (const s of t.sets.values()) {
        if (s.spec.map !== 'verdict') continue;
        for (const el of s.elements.values()) if (el.verdict && 'chain' in el.verdict && el.verdict.chain === name && !lapsed(el, now)) return true;
      }
      return false;
    };
    switch (op.op) {
      case 'deleteTable': return undefined;
      case 'addChain':
        if (!t.chains.has(op.chain)) t.chains.set(op.chain, { name: op.chain, handle: this.nextHandle++, ...(op.base ? { base: { ...op.base, policy: op.base.policy ?? 'accept' } } : {}) });
        return t;
      case 'deleteChain':
        chain(op.chain);
        if (chainInUse(op.chain)) throw new Failure('EBUSY', `chain ${op.chain} is in use`);
        t.chains.delete(op.chain);
        return t;
      case 'flushChain':
        chain(op.chain);
        t.rules = t.rules.filter((r) => r.chain !== op.chain);
        return t;
      case 'addRule':
        chain(op.chain);
        for (const e of op.exprs) checkRefs(e, chain, set);
        t.rules.push({ chain: op.chain, handle: this.nextHandle++, exprs: structuredClone(op.exprs), ...(op.comment ? { comment: op.comment } : {}) });
        return t;
      case 'deleteRule': {
        const i = t.rules.findIndex((r) => r.chain === op.chain && r.handle === op.handle);
        if (i < 0) throw new Failure('ENOENT', `rule ${op.handle} does not exist`);
        t.rules.splice(i, 1);
        return t;
      }
      case 'addSet':
        if (!t.sets.has(op.set.name)) t.sets.set(op.set.name, { spec: structuredClone(op.set), elements: new Map() });
        return t;
      case 'deleteSet':
        set(op.set);
        if (t.rules.some((r) => r.exprs.some((e) => ('set' in e && e.set === op.set) || ('map' in e && e.map === op.set))))
          throw new Failure('EBUSY', `set ${op.set} is in use`);
        t.sets.delete(op.set);
        return t;
      case 'flushSet':
        set(op.set);
        t.sets.set(op.set, { spec: t.sets.get(op.set)!.spec, elements: new Map() });
        copied.add(op.set);
        return t;
      case 'addElements':
      case 'deleteElements': {
        const s = writable(op.set);
        // The kernel reads keys as the set's type: the compiled keys serve when the op says the same.
        const compiled = sameTypes(op.keyType, s.spec.keyType) && 'elements' in low ? low.elements : undefined;
        const id = (el: Element, i: number) => latin1(compiled?.[i]?.key ?? encodeKey(s.spec.keyType, el.key));
        const now = this.clock.now();
        for (const [i, given] of op.elements.entries()) {
          const el = op.op === 'addElements' && (op.timeoutMs || op.expiresMs)
            ? { ...given, timeoutMs: given.timeoutMs ?? op.timeoutMs, expiresMs: given.expiresMs ?? op.expiresMs } : given;
          const k = id(el, i);
          let have = s.elements.get(k);
          if (have && lapsed(have, now)) { s.elements.delete(k); have = undefined; } // the kernel ignores lapsed elements
          if (op.op === 'deleteElements') {
            if (!have) throw new Failure('ENOENT', `element ${el.key.join(' . ')} does not exist`);
            s.elements.delete(k);
            continue;
          }
          if (el.verdict && 'chain' in el.verdict) chain(el.verdict.chain);
          if (have) {
            if (JSON.stringify(have.verdict) !== JSON.stringify(el.verdict) || JSON.stringify(have.data) !== JSON.stringify(el.data))
              throw new Failure('EEXIST', `element ${el.key.join(' . ')} exists`);
            // As the kernel: a re-add moves the expiry only when it names one.
            if (el.expiresMs) s.elements.set(k, { ...have, expiresAt: now + el.expiresMs });
            continue;
          }
          s.elements.set(k, timed(el, now));
        }
        return t;
      }
    }
  }
}

/** A set as the fake keeps it: elements by encoded key, in insertion order as the kernel lists them. */
interface MemSet { spec: SetSpec; elements: Map<string, Timed> }
/** Chains by name, in creation order as the kernel lists them. */
interface MemTable { family: TableState['family']; name: string; chains: Map<string, TableState['chains'][number]>; rules: RuleState[]; sets: Map<string, MemSet> }

type Timed = Element & { expiresAt?: number };
const lapsed = (el: Timed, now: number): boolean => el.expiresAt !== undefined && el.expiresAt <= now;
function timed(el: Element, now: number): Timed {
  const { expiresMs, ...rest } = copyElement(el);
  return el.timeoutMs ? { ...rest, expiresAt: now + (expiresMs ?? el.timeoutMs) } : rest;
}

/** A copy that shares nothing with the caller's element: its parts are flat lists and a flat
 *  verdict of strings and numbers (structuredClone of each was most of a hollow node's apply). */
function copyElement<E extends Element>(el: E): E {
  const out = { ...el, key: [...el.key] };
  if (el.data) out.data = [...el.data];
  if (el.verdict) out.verdict = { ...el.verdict };
  return out;
}

const sameTypes = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((x, i) => x === b[i]);
const latin1 = (b: Uint8Array): string => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('latin1');

function checkRefs(e: Expr, chain: (n: string) => unknown, set: (n: string) => unknown): void {
  if (e.kind === 'jump' || e.kind === 'goto') chain(e.chain);
  if (e.kind === 'lookup') set(e.set);
  if (e.kind === 'vmap' || e.kind === 'numgenVmap' || e.kind === 'dnatMap') set(e.map);
  if (e.kind === 'setUpdate') set(e.set);
}

const tableKey = (netns: string | null, t: TableRef) => `${netns ?? ''}|${t.family}|${t.name}`;
