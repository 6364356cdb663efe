// Desired table vs what was applied (or read back) → the smallest transaction between them.
// Order inside the transaction matters for the kernel's costs: rules are added before map
// elements (a rule binding a map walks the elements already in it), and chains are deleted
// only after the elements and rules that pointed at them are gone.
import { ColumnReader, type Element, type Expr, type NftOp, type SetSpec, type TableState } from '../../nft/index.js';
import { stableStringify as canonical } from '../../util/index.js';
import { DYING_MS, elementId, LIVE_MS, type DesiredChain, type DesiredSet, type DesiredTable } from './ruleset.js';

/** Key-order-independent JSON, so read-back compares equal to what was written. */
export { canonical };

const rulesEqual = (a: Expr[][], b: Expr[][]): boolean => a.length === b.length && canonical(a) === canonical(b);
export const valueOf = (el: Element): string =>
  el.verdict ? `${el.verdict.kind}:${'chain' in el.verdict ? el.verdict.chain : ''}` : el.data ? el.data.join('|') : '';
/** Sets the kernel fills itself (affinity): their elements are not ours to reconcile. */
const isDynamic = (s: SetSpec): boolean => Boolean(s.flags?.includes('dynamic'));

/** Retired by us and about to lapse: such an element counts as absent. */
export const isDying = (el: Element): boolean => el.expiresMs !== undefined && el.expiresMs < DYING_MS;
const timed = (s: SetSpec) => (s.flags?.includes('timeout') ? { timeoutMs: LIVE_MS, expiresMs: LIVE_MS } : {});

export interface DiffOptions {
  /** Leave chains and sets nobody wants in place (a lapsed element may still hold them until
   *  the kernel's set GC runs); their names are returned in `unwanted` instead. */
  keepUnwanted?: boolean;
}

export function diffTables(actual: DesiredTable | undefined, desired: DesiredTable, opts: DiffOptions = {}): NftOp[] {
  return diffTablesWith(actual, desired, opts).ops;
}

export function diffTablesWith(actual: DesiredTable | undefined, desired: DesiredTable, opts: DiffOptions = {}): { ops: NftOp[]; unwanted: { chains: string[]; sets: string[] } } {
  const head: NftOp[] = [{ op: 'addTable' }];
  const delElems: NftOp[] = [], flush: NftOp[] = [], addRules: NftOp[] = [], addElems: NftOp[] = [], tail: NftOp[] = [];
  const unwanted = { chains: [] as string[], sets: [] as string[] };

  for (const [name, s] of desired.sets) {
    const have = actual?.sets.get(name);
    if (!have) head.push({ op: 'addSet', set: s.spec });
    if (isDynamic(s.spec)) continue;
    const del: Element[] = [], add: Element[] = [];
    if (have?.columns) diffColumns(have.columns, s, del, add);
    else if (have) {
      for (const [id, el] of have.elements) {
        const want = s.elements.get(id);
        // A retired element that is not wanted lapses by itself; one wanted with other data must go now.
        if (want ? valueOf(want) !== valueOf(el) : !isDying(el)) del.push({ key: el.key });
      }
    }
    if (!have?.columns) {
      for (const [id, el] of s.elements) {
        const old = have?.elements.get(id);
        if (!old || isDying(old) || valueOf(old) !== valueOf(el)) add.push(el);
      }
    }
    const data = s.spec.data ? { dataType: s.spec.data } : {};
    if (del.length) delElems.push({ op: 'deleteElements', set: name, keyType: s.spec.keyType, ...data, elements: del });
    if (add.length) addElems.push({ op: 'addElements', set: name, keyType: s.spec.keyType, ...data, elements: add, ...timed(s.spec) });
  }
  for (const [name, s] of actual?.sets ?? []) {
    if (desired.sets.has(name)) continue;
    if (opts.keepUnwanted) { unwanted.sets.push(name); continue; }
    // Empty it first so no element keeps a chain it jumps to alive.
    if ((s.elements.size || s.columns?.count) && !isDynamic(s.spec)) delElems.push({ op: 'flushSet', set: name, map: Boolean(s.spec.map || s.spec.data) });
    tail.push({ op: 'deleteSet', set: name, map: Boolean(s.spec.map || s.spec.data) });
  }

  for (const [name, c] of desired.chains) {
    const have = actual?.chains.get(name);
    if (!have) head.push({ op: 'addChain', chain: name, ...(c.base ? { base: c.base } : {}) });
    else if (rulesEqual(have.rules, c.rules)) continue;
    else flush.push({ op: 'flushChain', chain: name });
    for (const exprs of c.rules) addRules.push({ op: 'addRule', chain: name, exprs });
  }
  const gone: string[] = [];
  for (const [name, c] of actual?.chains ?? []) {
    if (desired.chains.has(name)) continue;
    if (opts.keepUnwanted) { unwanted.chains.push(name); continue; }
    if (c.rules.length) flush.push({ op: 'flushChain', chain: name });
    gone.push(name);
  }
  // A deleted chain may jump to another deleted chain: both are flushed above, so any order works.
  for (const name of gone) tail.unshift({ op: 'deleteChain', chain: name });

  const body = [...delElems, ...flush, ...addRules, ...addElems, ...tail];
  return { ops: actual && !body.length && head.length === 1 ? [] : [...head, ...body], unwanted };
}

/**
 * The same comparison as the Map loops above, straight from a set read back in columns: each
 * element is looked up by its key's text and compared by its value's text, and only the
 * elements that differ become objects. Same outcome: what is unwanted (and live) or holds
 * other data is deleted; what is wanted and missing, retired or different is added.
 */
function diffColumns(have: ColumnReader, want: DesiredSet, del: Element[], add: Element[]): void {
  let matched = 0;
  const dying = (i: number) => { const e = have.expiresMs(i); return e !== undefined && e < DYING_MS; };
  const value = (i: number) => { const v = have.verdict(i); return v ? `${v.kind}:${'chain' in v ? v.chain : ''}` : have.dataText(i) ?? ''; };
  for (let i = 0; i < have.count; i++) {
    const w = want.elements.get(have.keyText(i));
    if (w ? valueOf(w) !== value(i) : !dying(i)) del.push({ key: have.key(i) });
    else if (w && !dying(i)) matched++;
  }
  if (matched === want.elements.size) return;
  // Some wanted element is missing, retired or different: find which.
  const live = new Set<string>();
  for (let i = 0; i < have.count; i++) {
    const id = have.keyText(i), w = want.elements.get(id);
    if (w && !dying(i) && valueOf(w) === value(i)) live.add(id);
  }
  for (const [id, el] of want.elements) if (!live.has(id)) add.push(el);
}

/** A table read back from the kernel, in the form diffTables compares. Sets listed in columns
 *  stay in columns (see `readElements`). */
export function fromTableState(s: TableState): DesiredTable {
  const chains = new Map<string, DesiredChain>();
  for (const c of s.chains) chains.set(c.name, { ...(c.base ? { base: c.base } : {}), rules: [] });
  for (const r of s.rules) chains.get(r.chain)?.rules.push(r.exprs);
  const sets = new Map<string, DesiredSet>();
  for (const x of s.sets) {
    const { elements, columns, ...spec } = x;
    sets.set(x.name, columns
      ? { spec, elements: new Map(), columns: new ColumnReader(spec, columns) }
      : { spec, elements: new Map(elements.map((el) => [elementId(el.key), el])) });
  }
  return { chains, sets };
}

/** A read-back set's elements by id (decoded from its columns on first use). */
export function readElements(set: DesiredSet): Map<string, Element> {
  const c = set.columns;
  if (c) {
    for (let i = 0; i < c.count; i++) set.elements.set(c.keyText(i), c.element(i));
    delete set.columns;
  }
  return set.elements;
}

export function opCount(ops: NftOp[]): number {
  return ops.reduce((n, op) => n + (op.op === 'addElements' || op.op === 'deleteElements' ? op.elements.length : 1), 0);
}
