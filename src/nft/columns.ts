// A set's elements read back in columns (the addon's bulk listing): parallel arrays instead of
// an object per element, decoded one element at a time and only where a caller needs it. A
// proxy table holds hundreds of thousands of elements; comparing them as text ids straight
// from the bytes avoids building (and collecting) an Element for each.
import { align4, decodeValue, KEY_LEN, verdictOf } from './encoding.js';
import type { Element, KeyType, SetSpec, Value, Verdict } from './types.js';

/** As the addon returns them: count × keyLen key bytes, count × dataLen data bytes (data maps),
 *  verdict codes and chains (verdict maps), timeouts and ms left (-1: none). */
export interface ElementColumns {
  count: number;
  keys: Uint8Array;
  data?: Uint8Array;
  verdicts?: Int32Array;
  chains?: string[];
  timeouts: Float64Array;
  expires: Float64Array;
}

const PROTO_TEXT: Record<number, string> = { 1: 'icmp', 6: 'tcp', 17: 'udp', 58: 'icmpv6', 132: 'sctp' };

/** Text of one part as `String(value)` of the decoded Value would be, without the Value. */
function partText(type: KeyType, b: Uint8Array, off: number): string {
  switch (type) {
    case 'ipv4_addr': return `${b[off]}.${b[off + 1]}.${b[off + 2]}.${b[off + 3]}`;
    case 'inet_proto': return PROTO_TEXT[b[off]!] ?? String(b[off]);
    case 'inet_service': return String((b[off]! << 8) | b[off + 1]!);
    case 'mark':
    case 'integer': return String((b[off]! | (b[off + 1]! << 8) | (b[off + 2]! << 16) | (b[off + 3]! << 24)) >>> 0);
    default: return String(decodeValue(type, b.subarray(off, off + KEY_LEN[type])));
  }
}

/** Bytes one value of `types` takes (parts of a concatenation 4-byte aligned). */
const widthOf = (types: KeyType[]): number => (types.length === 1 ? KEY_LEN[types[0]!] : types.reduce((n, t) => n + align4(KEY_LEN[t]), 0));

function textOf(types: KeyType[], b: Uint8Array, base: number): string {
  if (types.length === 1) return partText(types[0]!, b, base);
  let out = '', off = base;
  for (let i = 0; i < types.length; i++) {
    const t = types[i]!;
    out += (i ? '|' : '') + partText(t, b, off);
    off += align4(KEY_LEN[t]);
  }
  return out;
}

function valuesOf(types: KeyType[], b: Uint8Array, base: number): Value[] {
  const out: Value[] = [];
  let off = base;
  for (const t of types) {
    out.push(decodeValue(t, b.subarray(off, off + KEY_LEN[t])));
    off += types.length === 1 ? KEY_LEN[t] : align4(KEY_LEN[t]);
  }
  return out;
}

/** Reads elements of one set out of its columns. */
export class ColumnReader {
  readonly count: number;
  private readonly keyWidth: number;
  private readonly dataWidth: number;

  constructor(readonly spec: SetSpec, readonly cols: ElementColumns) {
    this.count = cols.count;
    this.keyWidth = cols.count ? cols.keys.length / cols.count : widthOf(spec.keyType);
    this.dataWidth = spec.data && cols.data && cols.count ? cols.data.length / cols.count : 0;
  }

  /** The key's parts joined with '|' (what `key.join('|')` of the decoded key gives). */
  keyText(i: number): string {
    return textOf(this.spec.keyType, this.cols.keys, i * this.keyWidth);
  }

  key(i: number): Value[] {
    return valuesOf(this.spec.keyType, this.cols.keys, i * this.keyWidth);
  }

  /** A data map's value, parts joined with '|'. */
  dataText(i: number): string | undefined {
    return this.spec.data && this.cols.data ? textOf(this.spec.data, this.cols.data, i * this.dataWidth) : undefined;
  }

  verdict(i: number): Verdict | undefined {
    return this.cols.verdicts ? verdictOf(this.cols.verdicts[i]!, this.cols.chains?.[i] || undefined) : undefined;
  }

  /** ms left before the element lapses, if it has a timeout. */
  expiresMs(i: number): number | undefined {
    const v = this.cols.expires[i]!;
    return v < 0 ? undefined : v;
  }

  /** One element as `NftDriver.list` would return it. */
  element(i: number): Element {
    const verdict = this.verdict(i);
    const data = this.spec.data && this.cols.data ? valuesOf(this.spec.data, this.cols.data, i * this.dataWidth) : undefined;
    const timeout = this.cols.timeouts[i]!, expires = this.expiresMs(i);
    return {
      key: this.key(i),
      ...(verdict ? { verdict } : {}),
      ...(data ? { data } : {}),
      ...(timeout > 0 ? { timeoutMs: timeout } : {}),
      ...(expires !== undefined ? { expiresMs: expires } : {}),
    };
  }
}
