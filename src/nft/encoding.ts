// Kernel-side numbers and byte layouts behind the vocabulary: families, hooks, verdict
// codes, nft's datatype ids, and how each key type sits in a register.
import { formatIP as ipText, ipBytes as parseIP } from '../util/index.js';
import type { Family, Field, KeyType, Value, Verdict } from './types.js';

export const FAMILY: Record<Family, number> = { inet: 1, ip: 2, ip6: 10 };
export const HOOK = { prerouting: 0, input: 1, forward: 2, output: 3, postrouting: 4 } as const;
export const VERDICT = { drop: 0, accept: 1, continue: -1, jump: -3, goto: -4, return: -5 } as const;
export const NFT_DATA_VERDICT = 0xffffff00;
export const SET_FLAG = { anonymous: 1, constant: 2, interval: 4, map: 8, timeout: 16, dynamic: 32 } as const;
/** nft's datatype ids (datatype.h); a concatenation packs them 6 bits apart. */
export const KEY_TYPE_ID: Record<KeyType, number> = { integer: 4, ipv4_addr: 7, ipv6_addr: 8, inet_proto: 12, inet_service: 13, mark: 19 };
const TYPE_BITS = 6;

export const PROTO: Record<string, number> = { icmp: 1, tcp: 6, udp: 17, icmpv6: 58, sctp: 132 };
const PROTO_NAME = Object.fromEntries(Object.entries(PROTO).map(([k, v]) => [v, k])) as Record<number, string>;
export const NFPROTO: Record<string, number> = { ipv4: 2, ipv6: 10 };
const NFPROTO_NAME: Record<number, string> = { 2: 'ipv4', 10: 'ipv6' };

/** Bytes a key type occupies in a register (before 4-byte alignment in concatenations). */
export const KEY_LEN: Record<KeyType, number> = { ipv4_addr: 4, ipv6_addr: 16, inet_proto: 1, inet_service: 2, mark: 4, integer: 4 };

export const FIELD_TYPE: Record<Field, KeyType | 'nfproto'> = {
  'ip saddr': 'ipv4_addr', 'ip daddr': 'ipv4_addr', 'ip6 saddr': 'ipv6_addr', 'ip6 daddr': 'ipv6_addr',
  'meta l4proto': 'inet_proto', 'meta nfproto': 'nfproto', 'meta mark': 'mark', 'th sport': 'inet_service', 'th dport': 'inet_service',
};

export function keyTypeId(types: KeyType[]): number {
  // nft cannot split a concatenation containing the sizeless `integer` unless the set carries
  // nft's own typeof userdata (which the addon does not write): `nft list` would abort. In a
  // concatenation an integer slot is declared as a mark (also 32 bits), which nft can list.
  const id = (t: KeyType) => (t === 'integer' && types.length > 1 ? KEY_TYPE_ID.mark : KEY_TYPE_ID[t]);
  return types.reduce((acc, t) => (acc << TYPE_BITS) | id(t), 0);
}

export function keyTypesOf(id: number, count?: number): KeyType[] {
  const byId = Object.fromEntries(Object.entries(KEY_TYPE_ID).map(([k, v]) => [v, k])) as Record<number, KeyType>;
  const out: KeyType[] = [];
  for (let rest = id; rest; rest = Math.floor(rest / (1 << TYPE_BITS))) out.unshift(byId[rest % (1 << TYPE_BITS)] ?? 'integer');
  return count && out.length > count ? out.slice(-count) : out;
}

/** Key length for a (possibly concatenated) key: fields of a concatenation are 4-byte aligned. */
export function keyLen(types: KeyType[]): number {
  if (types.length === 1) return KEY_LEN[types[0]!];
  return types.reduce((n, t) => n + align4(KEY_LEN[t]), 0);
}

export const align4 = (n: number): number => (n + 3) & ~3;

/** Dotted quad → 4 bytes, or undefined if it is not one (a hand-rolled parse: big proxy
 *  tables encode hundreds of thousands of addresses per sync). */
function ipv4Into(text: string, out: Uint8Array, off: number): boolean {
  let part = 0, digits = 0, parts = 0;
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 46;
    if (c === 46) {
      if (!digits || part > 255 || parts === 4) return false;
      out[off + parts++] = part;
      part = 0; digits = 0;
    } else if (c >= 48 && c <= 57 && digits < 3) {
      part = part * 10 + (c - 48); digits++;
    } else return false;
  }
  return parts === 4;
}

export function ipBytes(text: string): Uint8Array {
  const fast = new Uint8Array(4);
  if (ipv4Into(text, fast, 0)) return fast;
  const b = parseIP(text);
  if (!b) throw new TypeError(`not an IP address: ${text}`);
  return b;
}

export { ipText };

const u32le = (n: number): Uint8Array => Uint8Array.of(n & 255, (n >>> 8) & 255, (n >>> 16) & 255, (n >>> 24) & 255);
const u16be = (n: number): Uint8Array => Uint8Array.of((n >> 8) & 255, n & 255);

/** The bytes of one value as the kernel compares it in a register. */
export function encodeValue(type: KeyType | 'nfproto', value: Value): Uint8Array {
  switch (type) {
    case 'ipv4_addr':
    case 'ipv6_addr': return ipBytes(String(value));
    case 'inet_proto': {
      const n = typeof value === 'number' ? value : PROTO[value];
      if (n === undefined || n < 0 || n > 255) throw new TypeError(`unknown protocol: ${value}`);
      return Uint8Array.of(n);
    }
    case 'nfproto': {
      const n = typeof value === 'number' ? value : NFPROTO[value];
      if (n === undefined) throw new TypeError(`unknown nfproto: ${value}`);
      return Uint8Array.of(n);
    }
    case 'inet_service': {
      const n = Number(value);
      if (!Number.isInteger(n) || n < 0 || n > 65535) throw new TypeError(`not a port: ${value}`);
      return u16be(n);
    }
    case 'mark':
    case 'integer': return u32le(Number(value));
  }
}

export function decodeValue(type: KeyType | 'nfproto', b: Uint8Array): Value {
  switch (type) {
    case 'ipv4_addr':
    case 'ipv6_addr': return ipText(b);
    case 'inet_proto': return PROTO_NAME[b[0]!] ?? b[0]!;
    case 'nfproto': return NFPROTO_NAME[b[0]!] ?? b[0]!;
    case 'inet_service': return (b[0]! << 8) | b[1]!;
    case 'mark':
    case 'integer': return new DataView(b.buffer, b.byteOffset, 4).getUint32(0, true);
  }
}

/** A set key: each part encoded; in concatenations each part padded to 4 bytes. */
export function encodeKey(types: KeyType[], key: Value[]): Uint8Array {
  if (key.length !== types.length) throw new TypeError(`key ${JSON.stringify(key)} does not match type ${types.join(' . ')}`);
  if (types.length === 1) return encodeValue(types[0]!, key[0]!);
  const out = new Uint8Array(keyLen(types));
  let off = 0;
  for (let i = 0; i < types.length; i++) {
    const t = types[i]!, v = key[i]!;
    if (t === 'ipv4_addr' && typeof v === 'string' && ipv4Into(v, out, off)) { /* written in place */ }
    else out.set(encodeValue(t, v), off);
    off += align4(KEY_LEN[t]);
  }
  return out;
}

export function decodeKey(types: KeyType[], b: Uint8Array): Value[] {
  if (types.length === 1) return [decodeValue(types[0]!, b)];
  let off = 0;
  return types.map((t) => { const v = decodeValue(t, b.subarray(off, off + KEY_LEN[t])); off += align4(KEY_LEN[t]); return v; });
}

export function verdictCode(v: Verdict): { verdict: number; chain?: string } {
  return 'chain' in v ? { verdict: VERDICT[v.kind], chain: v.chain } : { verdict: VERDICT[v.kind] };
}

export function verdictOf(code: number, chain?: string): Verdict {
  switch (code) {
    case VERDICT.accept: return { kind: 'accept' };
    case VERDICT.drop: return { kind: 'drop' };
    case VERDICT.return: return { kind: 'return' };
    case VERDICT.jump: return { kind: 'jump', chain: chain ?? '' };
    case VERDICT.goto: return { kind: 'goto', chain: chain ?? '' };
    default: return { kind: 'continue' };
  }
}

export { u32le, u16be };

/** NFT_CT_STATUS, and the conntrack status bit IPS_DST_NAT. */
export const CT_KEY_STATUS = 2;
export const IPS_DST_NAT = 0x20;
