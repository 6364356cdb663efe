// Unknown-field handling for fieldValidation (Ignore / Warn / Strict). Built-in types are
// decoded like Kubernetes' Go decoder does: fields the schema does not know are dropped,
// and a value of the wrong JSON type, or an integer outside its format (int32, int64), is
// an error that names its path. This runs on every write of every kind.
import { resolve, type Schema } from './schema.js';
import { quantityFormatMessage, quantityValue } from '../util/index.js';

export interface FieldTypeError {
  /** Path in kubectl's notation: spec.template.spec.containers[0].ports[1].containerPort */
  path: string;
  message: string;
}

export interface PruneResult {
  /** A copy of the input without the unknown fields. */
  object: unknown;
  /** Paths of the fields the schema does not know, in document order. */
  unknown: string[];
  /** Values whose JSON type does not fit the schema. */
  invalid: FieldTypeError[];
}

/** Fields every top-level kind has, whether or not its schema lists them. */
const TYPE_META = new Set(['apiVersion', 'kind', 'metadata']);

/** The message Kubernetes uses for one unknown field, in Warning headers and Strict errors. */
export const unknownFieldMessage = (path: string): string => `unknown field "${path}"`;

/** The Status message of a Strict request rejected for unknown fields. */
export const strictDecodingMessage = (unknown: string[]): string =>
  `strict decoding error: ${unknown.map(unknownFieldMessage).join(', ')}`;

const jsonType = (v: unknown): string =>
  v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v === 'object' ? 'object' : typeof v;

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function typeName(s: Exclude<Schema, { kind: 'ref' }>): string {
  switch (s.kind) {
    case 'string': return 'string';
    case 'integer': return s.format === 'int64' ? 'int64' : 'int32';
    case 'number': return 'float64';
    case 'boolean': return 'bool';
    case 'int-or-string': return 'int or string';
    case 'quantity': return 'quantity (string or number)';
    case 'array': return 'array';
    case 'map':
    case 'object': return 'object';
    case 'any': return 'any';
  }
}

// Integer formats as Go holds them. JSON numbers arrive as doubles: an int64 beyond 2^63
// cannot be told from 2^63 itself, so 2^63 - 1 written out (which rounds to 2^63) is refused.
const ranges = {
  int32: [-(2 ** 31), 2 ** 31 - 1],
  int64: [-(2 ** 63), 2 ** 63],
} as const;

function inRange(n: number, format: keyof typeof ranges): boolean {
  const [min, max] = ranges[format];
  return format === 'int64' ? n >= min && n < max : n >= min && n <= max;
}

/** Where Go's standard base64 decoder would fail on `s` (it skips CR and LF), or null. */
function base64Error(s: string): number | null {
  const t = s.replace(/[\r\n]/g, '');
  const body = /^[A-Za-z0-9+/]*/.exec(t)![0].length;
  const padding = /^=*/.exec(t.slice(body))![0].length;
  if (body + padding < t.length) return body + padding;
  if (t.length % 4 !== 0 || padding > 2) return t.length - (t.length % 4 || 4);
  return null;
}

export function pruneUnknownFields(obj: unknown, schema: Schema): PruneResult {
  const unknown: string[] = [];
  const invalid: FieldTypeError[] = [];
  const join = (path: string, field: string): string => (path ? `${path}.${field}` : field);

  const walk = (value: unknown, s: Schema, path: string, topLevel: boolean): unknown => {
    const r = resolve(s);
    // null decodes to the zero value of any Go type; it is never a type error.
    if (value === null || r.kind === 'any') return value;
    const mismatch = (): unknown => {
      invalid.push({ path, message: `cannot unmarshal ${jsonType(value)} into field ${path || '<root>'} of type ${typeName(r)}` });
      return value;
    };
    const overflow = (n: number, type: string): unknown => {
      invalid.push({ path, message: `cannot unmarshal number ${BigInt(n)} into field ${path} of type ${type}` });
      return value;
    };
    switch (r.kind) {
      case 'string': {
        if (typeof value !== 'string') return mismatch();
        // []byte fields (Secret data, ConfigMap binaryData) are base64 in JSON, as Go decodes them.
        const bad = r.format === 'byte' ? base64Error(value) : null;
        if (bad !== null) invalid.push({ path, message: `illegal base64 data at input byte ${bad}` });
        return value;
      }
      case 'boolean':
        return typeof value === 'boolean' ? value : mismatch();
      case 'number':
        return typeof value === 'number' ? value : mismatch();
      case 'integer':
        if (typeof value !== 'number' || !Number.isInteger(value)) return mismatch();
        return inRange(value, r.format === 'int64' ? 'int64' : 'int32') ? value : overflow(value, typeName(r));
      case 'int-or-string':
        if (typeof value === 'string') return value;
        if (typeof value !== 'number' || !Number.isInteger(value)) return mismatch();
        // intstr.IntOrString holds an int32.
        return inRange(value, 'int32') ? value : overflow(value, 'int32');
      case 'quantity':
        if (typeof value !== 'string' && typeof value !== 'number') return mismatch();
        if (quantityValue(value) === null) invalid.push({ path, message: quantityFormatMessage });
        return value;
      case 'array':
        if (!Array.isArray(value)) return mismatch();
        return value.map((item, i) => walk(item, r.items, `${path}[${i}]`, false));
      case 'map': {
        if (!isPlainObject(value)) return mismatch();
        const out: Record<string, unknown> = {};
        for (const [k, v] of Object.entries(value)) out[k] = walk(v, r.values, join(path, k), false);
        return out;
      }
      case 'object': {
        if (!isPlainObject(value)) return mismatch();
        const out: Record<string, unknown> = {};
        for (const [k, v] of Object.entries(value)) {
          const prop = r.properties[k];
          if (prop) out[k] = walk(v, prop, join(path, k), false);
          else if (topLevel && TYPE_META.has(k)) out[k] = v;
          else unknown.push(join(path, k));
        }
        return out;
      }
    }
  };

  const object = walk(obj, schema, '', true);
  return { object, unknown, invalid };
}
