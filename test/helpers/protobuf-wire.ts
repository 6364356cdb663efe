// A tiny protobuf writer for hand-built fixtures. Field numbers are written out in the tests
// from generated.proto, independently of the decoder's tables, so a wrong table entry fails.

export type Part = Buffer;

export function varint(n: number | bigint): Buffer {
  let v = BigInt.asUintN(64, BigInt(n));
  const out: number[] = [];
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v) b |= 0x80;
    out.push(b);
  } while (v);
  return Buffer.from(out);
}

const key = (field: number, wire: number): Buffer => varint((field << 3) | wire);

/** A varint field (int32, int64, bool, enum). */
export const int = (field: number, n: number | bigint | boolean): Buffer => Buffer.concat([key(field, 0), varint(typeof n === 'boolean' ? Number(n) : n)]);
/** A length-delimited field with raw bytes. */
export const bytes = (field: number, b: Buffer): Buffer => Buffer.concat([key(field, 2), varint(b.length), b]);
export const str = (field: number, s: string): Buffer => bytes(field, Buffer.from(s, 'utf8'));
/** An embedded message from its parts. */
export const msg = (field: number, ...parts: Buffer[]): Buffer => bytes(field, Buffer.concat(parts));
export const fixed64 = (field: number): Buffer => Buffer.concat([key(field, 1), Buffer.alloc(8, 0xee)]);
export const fixed32 = (field: number): Buffer => Buffer.concat([key(field, 5), Buffer.alloc(4, 0xee)]);
/** One map<string, V> entry; `value` is the encoded field 2. */
export const entry = (field: number, k: string, value: Buffer): Buffer => msg(field, str(1, k), value);

/** The whole request body: `k8s\0` and runtime.Unknown {typeMeta, raw, contentEncoding, contentType}. */
export function envelope(apiVersion: string, kind: string, ...object: Buffer[]): Buffer {
  return Buffer.concat([
    Buffer.from([0x6b, 0x38, 0x73, 0x00]),
    msg(1, str(1, apiVersion), str(2, kind)),
    msg(2, ...object),
    str(3, ''),
    str(4, ''),
  ]);
}
