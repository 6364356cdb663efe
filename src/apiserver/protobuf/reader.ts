// A bounds-checked reader for the protobuf wire format. Every overrun throws
// ProtobufDecodeError, so truncated bodies never decode into half an object.
import { ProtobufDecodeError } from './errors.js';

export const enum WireType { Varint = 0, Fixed64 = 1, Bytes = 2, StartGroup = 3, EndGroup = 4, Fixed32 = 5 }

export class Reader {
  pos: number;

  constructor(readonly buf: Buffer, start = 0, readonly end = buf.length) {
    this.pos = start;
  }

  eof(): boolean {
    return this.pos >= this.end;
  }

  /** Reads a key; returns [field number, wire type]. */
  tag(): [number, WireType] {
    const key = this.varint();
    const field = Number(key >> 3n);
    const wire = Number(key & 7n) as WireType;
    if (field < 1 || field > 0x1fffffff) throw new ProtobufDecodeError(`invalid field number ${field} at offset ${this.pos}`);
    return [field, wire];
  }

  varint(): bigint {
    let result = 0n;
    for (let shift = 0n; shift < 70n; shift += 7n) {
      if (this.pos >= this.end) throw new ProtobufDecodeError('truncated varint');
      const b = this.buf[this.pos++];
      result |= BigInt(b & 0x7f) << shift;
      if (b < 0x80) return BigInt.asUintN(64, result);
    }
    throw new ProtobufDecodeError('varint longer than 10 bytes');
  }

  private take(n: number): number {
    if (n < 0 || this.pos + n > this.end) throw new ProtobufDecodeError(`truncated field: needs ${n} bytes at offset ${this.pos}, message ends at ${this.end}`);
    const at = this.pos;
    this.pos += n;
    return at;
  }

  /** The extent of a length-delimited field, as [start, end) in buf. */
  delimited(): [number, number] {
    const len = this.varint();
    if (len > BigInt(this.end - this.pos)) throw new ProtobufDecodeError(`truncated length-delimited field (${len} bytes) at offset ${this.pos}`);
    const start = this.take(Number(len));
    return [start, this.pos];
  }

  bytes(): Buffer {
    const [start, end] = this.delimited();
    return this.buf.subarray(start, end);
  }

  string(): string {
    return this.bytes().toString('utf8');
  }

  fixed64(): Buffer {
    return this.buf.subarray(this.take(8), this.pos);
  }

  fixed32(): Buffer {
    return this.buf.subarray(this.take(4), this.pos);
  }

  skip(wire: WireType): void {
    switch (wire) {
      case WireType.Varint: this.varint(); return;
      case WireType.Fixed64: this.take(8); return;
      case WireType.Bytes: this.delimited(); return;
      case WireType.Fixed32: this.take(4); return;
      default: throw new ProtobufDecodeError(`unsupported wire type ${wire} at offset ${this.pos}`);
    }
  }
}
