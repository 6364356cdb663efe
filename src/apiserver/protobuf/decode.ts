// Decodes one protobuf message into the JSON shape the API uses, driven by the tables.
import { ProtobufDecodeError } from './errors.js';
import { Reader, WireType } from './reader.js';
import { parseField, type FieldSpec, type Messages, type Scalar } from './schema.js';
import { fallbacks } from '../../log/fallback.js';

const fallback = fallbacks('apiserver');

const maxDepth = 64;

function naturalWire(base: Scalar): WireType {
  switch (base) {
    case 'double': return WireType.Fixed64;
    case 'float': return WireType.Fixed32;
    case 'bool': case 'int32': case 'int64': case 'uint32': case 'uint64': return WireType.Varint;
    default: return WireType.Bytes;
  }
}

function readScalar(r: Reader, base: Scalar): unknown {
  switch (base) {
    case 'string': return r.string();
    case 'bytes': return r.bytes().toString('base64');
    case 'raw': return Buffer.from(r.bytes());
    case 'bool': return r.varint() !== 0n;
    case 'int32': return Number(BigInt.asIntN(32, r.varint()));
    case 'int64': return Number(BigInt.asIntN(64, r.varint()));
    case 'uint32': return Number(BigInt.asUintN(32, r.varint()));
    case 'uint64': return Number(r.varint());
    case 'double': return r.fixed64().readDoubleLE(0);
    case 'float': return r.fixed32().readFloatLE(0);
  }
}

function zeroScalar(base: Scalar): unknown {
  switch (base) {
    case 'string': case 'bytes': return '';
    case 'raw': return Buffer.alloc(0);
    case 'bool': return false;
    default: return 0;
  }
}

const isZero = (v: unknown): boolean => v === '' || v === 0 || v === false;

export class MessageDecoder {
  private compiled = new Map<string, Map<number, FieldSpec>>();

  constructor(private readonly messages: Messages) {}

  has(name: string): boolean {
    return name in this.messages;
  }

  private fields(name: string): Map<number, FieldSpec> {
    let fields = this.compiled.get(name);
    if (!fields) {
      const def = this.messages[name];
      if (!def) throw new Error(`protobuf tables: no message ${name}`);
      fields = new Map(Object.entries(def.fields).map(([n, f]) => [Number(n), parseField(f)]));
      for (const f of fields.values()) {
        if (!f.scalar && !this.messages[f.base]) throw new Error(`protobuf tables: ${name}.${f.name} refers to unknown message ${f.base}`);
      }
      this.compiled.set(name, fields);
    }
    return fields;
  }

  /** Decodes buf[start, end) as message `name`; returns the converted value (an object unless the message converts). */
  decode(name: string, buf: Buffer, start = 0, end = buf.length, depth = 0): unknown {
    if (depth > maxDepth) throw new ProtobufDecodeError('message nesting too deep');
    const fields = this.fields(name);
    const out: Record<string, unknown> = {};
    const inlined: Record<string, unknown>[] = [];
    const r = new Reader(buf, start, end);
    while (!r.eof()) {
      const [num, wire] = r.tag();
      const spec = fields.get(num);
      if (!spec) {
        // A field our tables lack (a newer or rarely used one) is dropped, not a failed request.
        fallback('protobuf-untabled-field-dropped', { once: `${name}.${num}`, message: name, field: num });
        r.skip(wire);
        continue;
      }
      if (spec.map) {
        if (wire !== WireType.Bytes) throw new ProtobufDecodeError(`${name}.${spec.name}: map entry with wire type ${wire}`);
        const [s, e] = r.delimited();
        const [key, value] = this.mapEntry(spec, buf, s, e, depth + 1);
        const map = (out[spec.name] ??= {}) as Record<string, unknown>;
        map[key] = value;
        continue;
      }
      if (spec.repeated && spec.scalar && wire === WireType.Bytes && naturalWire(spec.base as Scalar) !== WireType.Bytes) {
        const [s, e] = r.delimited();
        const packed = new Reader(buf, s, e);
        const list = (out[spec.name] ??= []) as unknown[];
        while (!packed.eof()) list.push(readScalar(packed, spec.base as Scalar));
        continue;
      }
      const value = this.value(name, spec, r, wire, depth);
      if (spec.inline) {
        if (value && typeof value === 'object') inlined.push(value as Record<string, unknown>);
      } else if (spec.repeated) {
        if (value !== undefined) ((out[spec.name] ??= []) as unknown[]).push(value);
      } else {
        out[spec.name] = value;
      }
    }
    for (const f of fields.values()) {
      if (f.repeated || f.map || f.inline || !(f.name in out)) continue;
      const v = out[f.name];
      if (v === undefined || (!f.keepZero && isZero(v))) delete out[f.name];
    }
    for (const o of inlined) Object.assign(out, o);
    const convert = this.messages[name].convert;
    return convert ? convert(out) : out;
  }

  private value(owner: string, spec: FieldSpec, r: Reader, wire: WireType, depth: number): unknown {
    const expected = spec.scalar ? naturalWire(spec.base as Scalar) : WireType.Bytes;
    if (wire !== expected) throw new ProtobufDecodeError(`${owner}.${spec.name}: wire type ${wire}, expected ${expected}`);
    if (spec.scalar) return readScalar(r, spec.base as Scalar);
    const [s, e] = r.delimited();
    return this.decode(spec.base, r.buf, s, e, depth + 1);
  }

  private mapEntry(spec: FieldSpec, buf: Buffer, start: number, end: number, depth: number): [string, unknown] {
    const r = new Reader(buf, start, end);
    let key = '';
    let value: unknown;
    while (!r.eof()) {
      const [num, wire] = r.tag();
      if (num === 1 && wire === WireType.Bytes) key = r.string();
      else if (num === 2) value = this.value(`${spec.name}[${key}]`, spec, r, wire, depth);
      else r.skip(wire);
    }
    if (value === undefined) value = spec.scalar ? zeroScalar(spec.base as Scalar) : this.decode(spec.base, Buffer.alloc(0), 0, 0, depth + 1);
    return [key, value];
  }
}
