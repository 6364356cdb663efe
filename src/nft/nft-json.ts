// `nft -j list table` output → the vocabulary, for the fallback driver's read-back.
import type { BaseChain, CtState, Element, Expr, Family, Field, KeyType, RuleState, SetFlag, SetState, TableState, Value, Verdict } from './types.js';

type Json = any;

function fieldOf(x: Json): Field | undefined {
  if (x?.payload) return `${x.payload.protocol} ${x.payload.field}` as Field;
  if (x?.meta) return `meta ${x.meta.key}` as Field;
  return undefined;
}

function verdictOf(x: Json): Verdict | undefined {
  if (!x || typeof x !== 'object') return undefined;
  for (const k of ['accept', 'drop', 'return', 'continue'] as const) if (k in x) return { kind: k };
  if (x.jump) return { kind: 'jump', chain: x.jump.target };
  if (x.goto) return { kind: 'goto', chain: x.goto.target };
  return undefined;
}

const num = (v: Value): Value => (typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v);

function exprOf(x: Json): Expr | Expr[] {
  const v = verdictOf(x);
  if (v) return v;
  if (x.counter !== undefined) return { kind: 'counter', ...(typeof x.counter.packets === 'number' ? { packets: x.counter.packets, bytes: x.counter.bytes ?? 0 } : {}) };
  if ('masquerade' in x) return { kind: 'masquerade' };
  if (x.vmap) {
    const key = x.vmap.key;
    const map = String(x.vmap.data).replace(/^@/, '');
    if (key.numgen) return { kind: 'numgenVmap', mod: key.numgen.mod, map, ...(key.numgen.offset ? { offset: key.numgen.offset } : {}) };
    const fields = (key.concat ?? [key]).map(fieldOf) as Field[];
    return { kind: 'vmap', fields, map };
  }
  if (x.dnat?.addr?.map) {
    const parts: Json[] = x.dnat.addr.map.key.concat ?? [x.dnat.addr.map.key];
    const ng = parts.find((p) => p.numgen);
    return { kind: 'dnatMap', fields: parts.filter((p) => !p.numgen).map(fieldOf) as Field[], ...(ng ? { numgen: ng.numgen.mod } : {}), map: String(x.dnat.addr.map.data).replace(/^@/, '') };
  }
  if (x.set?.op === 'update') {
    const elem = x.set.elem;
    const key = elem.elem ? elem.elem.val : elem; // `{ key timeout Ns }` is wrapped in an elem object
    const timeout = elem.elem?.timeout;
    return { kind: 'setUpdate', fields: (key.concat ?? [key]).map(fieldOf) as Field[], set: String(x.set.set).replace(/^@/, ''), ...(timeout ? { timeout } : {}) };
  }
  if (x.mangle && x.mangle.key?.meta?.key === 'mark' && x.mangle.value?.['|']) return { kind: 'markOr', value: x.mangle.value['|'][1] };
  if (x.dnat) return { kind: 'dnat', addr: x.dnat.addr, ...(x.dnat.port !== undefined ? { port: x.dnat.port } : {}) };
  if (x.mangle && x.mangle.key?.meta?.key === 'mark') return { kind: 'setMark', value: x.mangle.value };
  if (x.reject) {
    if (x.reject.type === 'tcp reset') return { kind: 'reject', with: 'tcp reset' };
    const type = x.reject.type ?? 'icmp';
    return { kind: 'reject', with: `${type} port-unreachable` as 'icmp port-unreachable' };
  }
  if (x.match) {
    const { op, left, right } = x.match;
    const neg = op === '!=' ? { op: '!=' as const } : {};
    if (left.numgen) return { kind: 'numgenMatch', mod: left.numgen.mod, value: right };
    if (left.ct?.key === 'state') return { kind: 'ctState', states: ([] as CtState[]).concat(right) };
    if (left.ct?.key === 'status' && ([] as string[]).concat(right).includes('dnat')) return { kind: 'ctStatusDnat' };
    if (left.fib && right === 'local') return { kind: 'fibDaddrLocal' };
    if (typeof right === 'string' && right.startsWith('@')) {
      const fields = (left.concat ?? [left]).map(fieldOf) as Field[];
      return { kind: 'lookup', fields, set: right.slice(1), ...neg };
    }
    if (left['&']) {
      const [l, mask] = left['&'];
      return { kind: 'match', field: fieldOf(l)!, value: right, mask, ...neg };
    }
    // nft lists `meta l4proto tcp th sport 9` as `tcp sport 9`; split it back.
    const proto = left.payload?.protocol;
    if ((proto === 'tcp' || proto === 'udp' || proto === 'sctp') && Array.isArray(right?.range)) {
      return [
        { kind: 'match', field: 'meta l4proto', value: proto },
        { kind: 'range', field: `th ${left.payload.field}` as Field, from: num(right.range[0]), to: num(right.range[1]) },
      ];
    }
    if (proto === 'tcp' || proto === 'udp' || proto === 'sctp') {
      return [
        { kind: 'match', field: 'meta l4proto', value: proto },
        { kind: 'match', field: `th ${left.payload.field}` as Field, value: num(right), ...neg },
      ];
    }
    const field = fieldOf(left);
    if (field) {
      const value = right?.prefix ? `${right.prefix.addr}/${right.prefix.len}` : num(right);
      return { kind: 'match', field, value, ...neg };
    }
  }
  return { kind: 'raw', text: JSON.stringify(x) };
}

function partsOf(k: Json): Value[] {
  return (k && typeof k === 'object' && Array.isArray(k.concat) ? k.concat : [k]).map((p: Json) => (typeof p === 'object' && p?.prefix ? `${p.prefix.addr}/${p.prefix.len}` : num(p)));
}

function elementOf(e: Json, isMap: boolean): Element {
  const [wrapped, data] = isMap ? e : [e, undefined];
  // `{ key timeout … expires … }` comes wrapped in an elem object, times in seconds.
  const k = wrapped && typeof wrapped === 'object' && wrapped.elem ? wrapped.elem.val : wrapped;
  const times = wrapped?.elem?.timeout !== undefined ? { timeoutMs: wrapped.elem.timeout * 1000, expiresMs: (wrapped.elem.expires ?? 0) * 1000 } : {};
  const verdict = verdictOf(data);
  return { key: partsOf(k), ...(verdict ? { verdict } : isMap && data !== undefined ? { data: partsOf(data) } : {}), ...times };
}

export function tableFromNftJson(doc: Json, family: Family, name: string): TableState {
  const items: Json[] = doc.nftables ?? [];
  const state: TableState = { family, name, chains: [], rules: [], sets: [] };
  for (const it of items) {
    if (it.chain) {
      const c = it.chain;
      const base: BaseChain | undefined = c.hook ? { type: c.type, hook: c.hook, priority: c.prio, policy: c.policy ?? 'accept' } : undefined;
      state.chains.push({ name: c.name, handle: c.handle, ...(base ? { base } : {}) });
    } else if (it.set || it.map) {
      const s = it.set ?? it.map;
      const keyType = ([] as KeyType[]).concat(s.type);
      const flags = ([] as SetFlag[]).concat(s.flags ?? []).filter((f) => f === 'constant' || f === 'interval' || f === 'timeout' || f === 'dynamic');
      const data = it.map && s.map !== 'verdict' ? (String(s.map).split(' . ') as KeyType[]) : undefined;
      const set: SetState = {
        name: s.name, keyType, elements: (s.elem ?? []).map((e: Json) => elementOf(e, Boolean(it.map))),
        ...(it.map && !data ? { map: 'verdict' as const } : {}), ...(data ? { data } : {}), ...(flags.length ? { flags } : {}),
      };
      state.sets.push(set);
    } else if (it.rule) {
      const r = it.rule;
      const rule: RuleState = { chain: r.chain, handle: r.handle, exprs: (r.expr ?? []).flatMap(exprOf), ...(r.comment ? { comment: r.comment } : {}) };
      state.rules.push(rule);
    }
  }
  return state;
}
