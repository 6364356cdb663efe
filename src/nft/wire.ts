// Encodes low-level ops into the addon's binary transaction form (native/nft_wire.h), so
// big transactions cost the event loop a linear byte write instead of N-API object walks.
// Attribute and expression indexes come from the addon itself (nftSchema), one source of truth.
import type { LowExpr, LowOp } from './native.js';

export interface WireSchema {
  exprs: { name: string; attrs: { key: string; kind: 'u8' | 'u16' | 'u32' | 'i32' | 'u64' | 'data' | 'str' }[] }[];
  ops: string[];
}

const utf8 = new TextEncoder();

class Writer {
  buf = new Uint8Array(1 << 16);
  view = new DataView(this.buf.buffer);
  len = 0;
  private need(n: number) {
    if (this.len + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.len + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.len));
    this.buf = next;
    this.view = new DataView(next.buffer);
  }
  u8(v: number) { this.need(1); this.buf[this.len++] = v; }
  u16(v: number) { this.need(2); this.view.setUint16(this.len, v, true); this.len += 2; }
  u32(v: number) { this.need(4); this.view.setUint32(this.len, v >>> 0, true); this.len += 4; }
  i32(v: number) { this.need(4); this.view.setInt32(this.len, v, true); this.len += 4; }
  u64(v: number) { this.need(8); this.view.setBigUint64(this.len, BigInt(v), true); this.len += 8; }
  bytes(b: Uint8Array) {
    if (b.length > 0xffff) throw new TypeError('byte string longer than 65535');
    this.u16(b.length); this.need(b.length); this.buf.set(b, this.len); this.len += b.length;
  }
  str(s: string) {
    // Names are ASCII in practice: write them directly, fall back to TextEncoder otherwise.
    const n = s.length;
    this.need(2 + n);
    for (let i = 0; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c > 127) return this.bytes(utf8.encode(s));
      this.buf[this.len + 2 + i] = c;
    }
    this.view.setUint16(this.len, n, true);
    this.len += 2 + n;
  }
  opt(v: number | undefined, write: (v: number) => void) { if (v === undefined) this.u8(0); else { this.u8(1); write(v); } }
  done(): Uint8Array { return this.buf.subarray(0, this.len); }
}

const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);

export class WireEncoder {
  private readonly exprIndex = new Map<string, { index: number; attrs: Map<string, { index: number; kind: string }> }>();
  private readonly opIndex = new Map<string, number>();

  constructor(schema: WireSchema) {
    schema.exprs.forEach((e, index) => this.exprIndex.set(e.name, { index, attrs: new Map(e.attrs.map((a, i) => [a.key, { index: i, kind: a.kind }])) }));
    schema.ops.forEach((o, i) => this.opIndex.set(o, i));
  }

  encode(ops: LowOp[]): Uint8Array {
    return this.encodeEach(ops, (op) => op);
  }

  /** Converts and writes op by op, so intermediate objects die young (cheap to collect). */
  encodeEach<T>(ops: T[], toLow: (op: T) => LowOp): Uint8Array {
    const w = new Writer();
    w.u32(ops.length);
    for (const op of ops) this.op(w, toLow(op));
    return w.done();
  }

  private op(w: Writer, op: LowOp) {
    const kind = this.opIndex.get(op.op);
    if (kind === undefined) throw new TypeError(`unknown operation ${op.op}`);
    w.u8(kind); w.u32(op.family); w.str(op.table); w.u8(op.exclusive ? 1 : 0);
    switch (op.op) {
      case 'addTable': w.u32(op.flags ?? 0); break;
      case 'delTable': break;
      case 'addChain':
        w.str(op.chain);
        if (op.hook !== undefined) { w.u8(1); w.u32(op.hook); w.i32(op.priority ?? 0); w.str(op.type ?? 'filter'); } else w.u8(0);
        w.opt(op.policy, (v) => w.u32(v));
        break;
      case 'delChain': case 'flushChain': w.str(op.chain); break;
      case 'addRule':
        w.str(op.chain);
        w.opt(op.position, (v) => w.u64(v));
        w.bytes(op.userdata ?? new Uint8Array());
        w.u16(op.exprs.length);
        for (const e of op.exprs) this.expr(w, e);
        break;
      case 'delRule': w.str(op.chain); w.u64(op.handle); break;
      case 'addSet':
        w.str(op.set); w.u32(op.flags); w.u32(op.keyType); w.u32(op.keyLen);
        w.opt(op.dataType, (v) => w.u32(v)); w.opt(op.dataLen, (v) => w.u32(v)); w.opt(op.size, (v) => w.u32(v));
        break;
      case 'delSet': case 'flushSet': w.str(op.set); break;
      case 'addElements': case 'delElements':
        w.str(op.set); w.u32(op.elements.length);
        for (const el of op.elements) {
          w.bytes(el.key);
          w.u8((el.data ? 1 : 0) | (el.verdict !== undefined ? 2 : 0) | (el.chain ? 4 : 0) | (el.timeout ? 8 : 0) | (el.expiration ? 16 : 0));
          if (el.data) w.bytes(el.data);
          if (el.verdict !== undefined) w.i32(el.verdict);
          if (el.chain) w.str(el.chain);
          if (el.timeout) w.u64(el.timeout);
          if (el.expiration) w.u64(el.expiration);
          w.u32(el.flags ?? 0);
        }
        break;
    }
  }

  private expr(w: Writer, e: LowExpr) {
    const spec = this.exprIndex.get(e.type);
    if (!spec) throw new TypeError(`unsupported expression ${e.type}`);
    w.u8(spec.index);
    const countAt = w.len;
    w.u8(0);
    let count = 0;
    for (const key in e) {
      if (key === 'type' || e[key] === undefined) continue;
      count++;
      const a = spec.attrs.get(key);
      if (!a) throw new TypeError(`${e.type} has no attribute ${key}`);
      const v = e[key];
      w.u8(a.index);
      switch (a.kind) {
        case 'data': if (!(v instanceof Uint8Array)) throw new TypeError(`${e.type}.${key} must be bytes`); w.bytes(v); break;
        case 'str': if (typeof v !== 'string') throw new TypeError(`${e.type}.${key} must be a string`); w.str(v); break;
        default: {
          if (!isInt(v)) throw new TypeError(`${e.type}.${key} must be an integer`);
          if (a.kind === 'u8') w.u8(v);
          else if (a.kind === 'u16') w.u16(v);
          else if (a.kind === 'i32') w.i32(v);
          else if (a.kind === 'u64') w.u64(v);
          else w.u32(v);
        }
      }
    }
    w.buf[countAt] = count;
  }
}
