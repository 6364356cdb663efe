// JSON objects in and out of CEL. Kubernetes hands CEL integers as `int` and only schema
// `number` fields as `double` (apiserver/pkg/cel's UnstructuredToVal); JSON has one number
// type, so a whole number becomes a bigint unless the schema says number.
import { isCelList, isCelMap, isCelUint, type CelInput, type CelValue } from '@bufbuild/cel';

/** The part of an OpenAPI schema the conversion reads (a CRD's structural schema, or none). */
export interface ValueSchema {
  type?: string;
  properties?: Record<string, ValueSchema>;
  items?: ValueSchema | ValueSchema[];
  additionalProperties?: ValueSchema | boolean;
}

export function toCel(v: unknown, schema?: ValueSchema): CelInput {
  if (v === undefined || v === null) return null;
  if (typeof v === 'number') return schema?.type === 'number' || !Number.isInteger(v) ? v : BigInt(v);
  if (typeof v === 'string' || typeof v === 'boolean' || typeof v === 'bigint') return v;
  if (Array.isArray(v)) {
    const items = schema && !Array.isArray(schema.items) ? schema.items : undefined;
    return v.map((x) => toCel(x, items));
  }
  if (typeof v === 'object') {
    const out: Record<string, CelInput> = {};
    const extra = typeof schema?.additionalProperties === 'object' ? schema.additionalProperties : undefined;
    for (const [k, x] of Object.entries(v)) {
      if (x === undefined) continue;
      out[k] = toCel(x, schema?.properties?.[k] ?? extra);
    }
    return out;
  }
  return String(v);
}

/** A CEL result as JSON (bigints within the safe range become numbers). */
export function fromCel(v: CelValue): unknown {
  if (typeof v === 'bigint') return Number(v);
  if (isCelUint(v)) return Number(v.value);
  if (isCelList(v)) return [...v].map(fromCel);
  if (isCelMap(v)) return Object.fromEntries([...v.entries()].map(([k, x]) => [String(isCelUint(k) ? k.value : k), fromCel(x)]));
  return v;
}

/** CEL's type name of a value, for error messages ("no such overload", "expected bool"). */
export function typeName(v: CelValue): string {
  if (v === null) return 'null_type';
  if (typeof v === 'bigint') return 'int';
  if (typeof v === 'number') return 'double';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (isCelList(v)) return 'list';
  if (isCelMap(v)) return 'map';
  if (isCelUint(v)) return 'uint';
  return 'dyn';
}
