// Vocabulary → libnftnl-shaped expressions and objects for the addon. Register use follows
// nft: a single value goes to reg 1; a concatenation fills 32-bit registers 8, 9, ... with
// each field 4-byte aligned (the first one aliasing reg 1).
import type { LowElement, LowExpr, LowOp } from './native.js';
import {
  CT_KEY_STATUS, IPS_DST_NAT, FAMILY, FIELD_TYPE, HOOK, KEY_LEN, NFT_DATA_VERDICT, SET_FLAG, align4, encodeKey, encodeValue, ipBytes,
  keyLen, keyTypeId, u16be, u32le, verdictCode,
} from './encoding.js';
import type { Element, Expr, Field, NftOp, TableRef } from './types.js';

const PAYLOAD_NETWORK = 1, PAYLOAD_TRANSPORT = 2;
const META = { mark: 3, nfproto: 15, l4proto: 16 } as const;
const CMP = { '==': 0, '!=': 1 } as const;
const CT_STATE_BITS = { invalid: 1, established: 2, related: 4, new: 8, untracked: 64 } as const;
const NG_RANDOM = 1;
const NAT_DNAT = 1;

export function loadField(field: Field, dreg: number): LowExpr {
  switch (field) {
    case 'ip saddr': return { type: 'payload', base: PAYLOAD_NETWORK, offset: 12, len: 4, dreg };
    case 'ip daddr': return { type: 'payload', base: PAYLOAD_NETWORK, offset: 16, len: 4, dreg };
    case 'ip6 saddr': return { type: 'payload', base: PAYLOAD_NETWORK, offset: 8, len: 16, dreg };
    case 'ip6 daddr': return { type: 'payload', base: PAYLOAD_NETWORK, offset: 24, len: 16, dreg };
    case 'th sport': return { type: 'payload', base: PAYLOAD_TRANSPORT, offset: 0, len: 2, dreg };
    case 'th dport': return { type: 'payload', base: PAYLOAD_TRANSPORT, offset: 2, len: 2, dreg };
    case 'meta l4proto': return { type: 'meta', key: META.l4proto, dreg };
    case 'meta nfproto': return { type: 'meta', key: META.nfproto, dreg };
    case 'meta mark': return { type: 'meta', key: META.mark, dreg };
  }
}

const fieldLen = (f: Field): number => {
  const t = FIELD_TYPE[f];
  return t === 'nfproto' ? 1 : KEY_LEN[t];
};

/** Loads fields (and optionally a numgen after them) into consecutive registers, as a
 *  concatenated key starting at register 1. */
function loadConcat(fields: Field[], numgen?: number): LowExpr[] {
  if (fields.length === 1 && numgen === undefined) return [loadField(fields[0]!, 1)];
  const out: LowExpr[] = [];
  let slot = 0; // 32-bit register index
  for (const f of fields) {
    out.push(loadField(f, slot === 0 ? 1 : 8 + slot));
    slot += align4(fieldLen(f)) / 4;
  }
  if (numgen !== undefined) out.push({ type: 'numgen', dreg: slot === 0 ? 1 : 8 + slot, modulus: numgen, ngType: NG_RANDOM, offset: 0 });
  return out;
}

function prefixMask(bytes: number, prefix: number): Uint8Array {
  const m = new Uint8Array(bytes);
  for (let i = 0; i < bytes; i++) m[i] = prefix >= (i + 1) * 8 ? 255 : prefix <= i * 8 ? 0 : (0xff << (8 - (prefix - i * 8))) & 255;
  return m;
}

function compileMatch(e: Extract<Expr, { kind: 'match' }>): LowExpr[] {
  const type = FIELD_TYPE[e.field];
  const out: LowExpr[] = [loadField(e.field, 1)];
  let value: Uint8Array;
  if ((type === 'ipv4_addr' || type === 'ipv6_addr') && String(e.value).includes('/')) {
    const [addr, p] = String(e.value).split('/');
    value = ipBytes(addr!);
    const prefix = Number(p);
    if (!Number.isInteger(prefix) || prefix < 0 || prefix > value.length * 8) throw new TypeError(`bad prefix: ${e.value}`);
    if (prefix < value.length * 8) {
      const mask = prefixMask(value.length, prefix);
      value = value.map((b, i) => b & mask[i]!);
      out.push({ type: 'bitwise', sreg: 1, dreg: 1, len: value.length, mask, xor: new Uint8Array(value.length) });
    }
  } else {
    value = encodeValue(type, e.value);
    if (e.mask !== undefined) out.push({ type: 'bitwise', sreg: 1, dreg: 1, len: value.length, mask: u32le(e.mask), xor: new Uint8Array(value.length) });
  }
  out.push({ type: 'cmp', sreg: 1, op: CMP[e.op ?? '=='], data: value });
  return out;
}

const REJECT = {
  'icmp port-unreachable': { type: 0, code: 3 },
  'icmpv6 port-unreachable': { type: 0, code: 4 },
  'tcp reset': { type: 1, code: 0 },
  'icmpx port-unreachable': { type: 2, code: 1 },
} as const;

export function compileExpr(e: Expr, family: TableRef['family']): LowExpr[] {
  switch (e.kind) {
    case 'match': return compileMatch(e);
    case 'range': {
      const type = FIELD_TYPE[e.field];
      return [loadField(e.field, 1), { type: 'range', sreg: 1, op: 0, from: encodeValue(type, e.from), to: encodeValue(type, e.to) }];
    }
    case 'ctState': {
      const bits = e.states.reduce((n, s) => n | CT_STATE_BITS[s], 0);
      return [
        { type: 'ct', key: 0, dreg: 1 },
        { type: 'bitwise', sreg: 1, dreg: 1, len: 4, mask: u32le(bits), xor: new Uint8Array(4) },
        { type: 'cmp', sreg: 1, op: CMP['!='], data: new Uint8Array(4) },
      ];
    }
    case 'ctStatusDnat':
      return [
        { type: 'ct', key: CT_KEY_STATUS, dreg: 1 },
        { type: 'bitwise', sreg: 1, dreg: 1, len: 4, mask: u32le(IPS_DST_NAT), xor: new Uint8Array(4) },
        { type: 'cmp', sreg: 1, op: CMP['!='], data: new Uint8Array(4) },
      ];
    case 'fibDaddrLocal':
      return [{ type: 'fib', flags: 2, result: 3, dreg: 1 }, { type: 'cmp', sreg: 1, op: 0, data: u32le(2) }];
    case 'lookup':
      return [...loadConcat(e.fields), { type: 'lookup', sreg: 1, set: e.set, ...(e.op === '!=' ? { flags: 1 } : {}) }];
    case 'vmap':
      return [...loadConcat(e.fields), { type: 'lookup', sreg: 1, set: e.map, dreg: 0 }];
    case 'numgenVmap':
      return [{ type: 'numgen', dreg: 1, modulus: e.mod, ngType: NG_RANDOM, offset: e.offset ?? 0 }, { type: 'lookup', sreg: 1, set: e.map, dreg: 0 }];
    case 'counter': return [{ type: 'counter' }];
    case 'dnatMap':
      if (family !== 'ip') throw new TypeError('dnatMap is only supported in ip tables');
      // Data `ipv4_addr . inet_service` lands in registers 8 (address) and 9 (port), as nft does it.
      return [
        ...loadConcat(e.fields, e.numgen),
        { type: 'lookup', sreg: 1, set: e.map, dreg: 1 },
        { type: 'nat', natType: NAT_DNAT, family: FAMILY.ip, regAddrMin: 1, regAddrMax: 1, regProtoMin: 9, regProtoMax: 9, flags: 3 },
      ];
    case 'markOr':
      return [
        { type: 'meta', key: META.mark, dreg: 1 },
        { type: 'bitwise', sreg: 1, dreg: 1, len: 4, mask: u32le(~e.value >>> 0), xor: u32le(e.value) },
        { type: 'meta', key: META.mark, sreg: 1 },
      ];
    case 'numgenMatch':
      return [{ type: 'numgen', dreg: 1, modulus: e.mod, ngType: NG_RANDOM, offset: 0 }, { type: 'cmp', sreg: 1, op: 0, data: u32le(e.value) }];
    case 'setUpdate':
      return [...loadConcat(e.fields), { type: 'dynset', sregKey: 1, dynsetOp: 1, set: e.set, ...(e.timeout !== undefined ? { timeout: e.timeout * 1000 } : {}) }];
    case 'accept': case 'drop': case 'return': case 'continue': case 'jump': case 'goto':
      return [{ type: 'immediate', dreg: 0, ...verdictCode(e) }];
    case 'reject': return [{ type: 'reject', rejectType: REJECT[e.with].type, code: REJECT[e.with].code }];
    case 'dnat': {
      const addr = ipBytes(e.addr);
      const natFamily = addr.length === 4 ? FAMILY.ip : FAMILY.ip6;
      if (family !== 'inet' && FAMILY[family] !== natFamily) throw new TypeError(`dnat to ${e.addr} in a ${family} table`);
      const out: LowExpr[] = [{ type: 'immediate', dreg: 1, data: addr }];
      if (e.port !== undefined) out.push({ type: 'immediate', dreg: 2, data: u16be(e.port) });
      out.push({ type: 'nat', natType: NAT_DNAT, family: natFamily, regAddrMin: 1, ...(e.port !== undefined ? { regProtoMin: 2, flags: 2 } : {}) });
      return out;
    }
    case 'masquerade': return [{ type: 'masq' }];
    case 'setMark': return [{ type: 'immediate', dreg: 1, data: u32le(e.value) }, { type: 'meta', key: META.mark, sreg: 1 }];
    case 'raw': throw new TypeError(`cannot compile a raw expression: ${e.text}`);
  }
}

function comment(text: string | undefined): Uint8Array | undefined {
  if (!text) return undefined;
  const bytes = new TextEncoder().encode(text);
  if (bytes.length > 127) throw new TypeError('rule comment longer than 127 bytes');
  // nft's userdata TLV: type 0 (comment), length including the NUL, the text, NUL.
  return Uint8Array.of(0, bytes.length + 1, ...bytes, 0);
}

function compileElements(types: Parameters<typeof encodeKey>[0], elements: Element[], dataTypes?: Parameters<typeof encodeKey>[0], times: { timeoutMs?: number; expiresMs?: number } = {}): LowElement[] {
  return elements.map((el) => {
    if (el.data && !dataTypes) throw new TypeError('element data without the map\'s data type');
    const timeout = el.timeoutMs ?? times.timeoutMs, expiration = el.expiresMs ?? times.expiresMs;
    const out: LowElement = { key: encodeKey(types, el.key) };
    if (el.verdict) Object.assign(out, verdictCode(el.verdict));
    if (el.data) out.data = encodeKey(dataTypes!, el.data);
    if (timeout) out.timeout = timeout;
    if (expiration) out.expiration = expiration;
    return out;
  });
}

export function compileOps(table: TableRef, ops: NftOp[]): LowOp[] {
  return ops.map((op) => compileOp(table, op));
}

/** One op; callers that stream (the addon's binary encoder) compile op by op. */
export function compileOp(table: TableRef, op: NftOp): LowOp {
  const base = { family: FAMILY[table.family], table: table.name };
  switch (op.op) {
    case 'addTable': return { ...base, op: 'addTable' };
    case 'deleteTable': return { ...base, op: 'delTable' };
    case 'addChain':
      return op.base
        ? { ...base, op: 'addChain', chain: op.chain, type: op.base.type, hook: HOOK[op.base.hook], priority: op.base.priority, policy: op.base.policy === 'drop' ? 0 : 1 }
        : { ...base, op: 'addChain', chain: op.chain };
    case 'deleteChain': return { ...base, op: 'delChain', chain: op.chain };
    case 'flushChain': return { ...base, op: 'flushChain', chain: op.chain };
    case 'addRule': {
      const userdata = comment(op.comment);
      return { ...base, op: 'addRule', chain: op.chain, exprs: op.exprs.flatMap((e) => compileExpr(e, table.family)), ...(userdata ? { userdata } : {}) };
    }
    case 'deleteRule': return { ...base, op: 'delRule', chain: op.chain, handle: op.handle };
    case 'addSet': {
      const s = op.set;
      let flags = (s.flags ?? []).reduce((n, f) => n | SET_FLAG[f], 0);
      if (s.map && s.data) throw new TypeError(`set ${s.name}: a verdict map cannot also have data`);
      if (s.map || s.data) flags |= SET_FLAG.map;
      return {
        ...base, op: 'addSet', set: s.name, flags, keyType: keyTypeId(s.keyType), keyLen: keyLen(s.keyType),
        ...(s.map ? { dataType: NFT_DATA_VERDICT, dataLen: 0 } : {}),
        ...(s.data ? { dataType: keyTypeId(s.data), dataLen: keyLen(s.data) } : {}),
      };
    }
    case 'deleteSet': return { ...base, op: 'delSet', set: op.set };
    case 'flushSet': return { ...base, op: 'flushSet', set: op.set };
    case 'addElements': return { ...base, op: 'addElements', set: op.set, elements: compileElements(op.keyType, op.elements, op.dataType, op) };
    case 'deleteElements': return { ...base, op: 'delElements', set: op.set, elements: compileElements(op.keyType, op.elements.map((e) => ({ key: e.key }))) };
  }
}
