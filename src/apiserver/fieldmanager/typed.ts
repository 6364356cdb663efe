// How the schema DSL reads for server-side apply (structured-merge-diff's element
// relationships): structs and maps are granular unless `mapType: atomic`; lists are
// associative by `listType` (map keyed by `listMapKeys`, or set), falling back to the
// strategic-merge-patch tags as Kubernetes' schema conversion does, and atomic otherwise.
// `any` values are deduced from the value: objects granular, lists atomic.
import { resolve, type Schema } from '../../api/schema.js';
import { FieldManagerError } from './errors.js';
import { isObject, type JsonObject } from '../../api/json.js';
import { keyElement, valueElement, type PathElement } from './path-element.js';

export type Shape =
  | { kind: 'leaf' }
  /** Named fields; `required` lists the fields the type always has. */
  | { kind: 'struct'; fields: Record<string, Schema>; required: ReadonlySet<string> }
  /** Free-form keys (labels, `any` objects); `values` undefined means deduced. */
  | { kind: 'map'; values: Schema | undefined }
  | { kind: 'set'; items: Schema }
  | { kind: 'listMap'; items: Schema; keys: string[] };

const LEAF: Shape = { kind: 'leaf' };
const UNTYPED_MAP: Shape = { kind: 'map', values: undefined };

/**
 * The shape of `value` under `schema` (undefined schema: deduced from the value). A value of
 * the wrong JSON type for its schema is treated as a leaf so that walkers never crash.
 */
export function shapeOf(schema: Schema | undefined, value: unknown): Shape {
  const s = schema ? resolve(schema) : undefined;
  if (!s || s.kind === 'any') return isObject(value) ? UNTYPED_MAP : LEAF;
  switch (s.kind) {
    case 'object':
      if (s.mapType === 'atomic' || !isObjectOrAbsent(value)) return LEAF;
      return { kind: 'struct', fields: s.properties, required: new Set(s.required ?? []) };
    case 'map':
      return isObjectOrAbsent(value) ? { kind: 'map', values: s.values } : LEAF;
    case 'array': {
      if (!Array.isArray(value) && value !== undefined && value !== null) return LEAF;
      const merges = s.patchStrategy === 'merge' || s.patchStrategy === 'merge,retainKeys';
      const listType = s.listType ?? (merges ? (s.patchMergeKey ? 'map' : 'set') : 'atomic');
      if (listType === 'set') return { kind: 'set', items: s.items };
      if (listType === 'map') {
        const keys = s.listMapKeys ?? (s.patchMergeKey ? [s.patchMergeKey] : []);
        return keys.length ? { kind: 'listMap', items: s.items, keys } : LEAF;
      }
      return LEAF;
    }
    default:
      return LEAF;
  }
}

function isObjectOrAbsent(v: unknown): boolean {
  return v === undefined || v === null || isObject(v);
}

/** The schema of a field or map value under a struct or map shape. */
export function childSchema(shape: Shape, key: string): Schema | undefined {
  if (shape.kind === 'struct') return shape.fields[key];
  if (shape.kind === 'map') return shape.values;
  return undefined;
}

export function isNamedField(shape: Shape, key: string): boolean {
  return shape.kind === 'struct' && Object.hasOwn(shape.fields, key);
}

/**
 * The path element of a list item: `k:` with the key fields it has (or their schema
 * defaults, as `protocol: TCP` for ports), `v:` for set items. Throws FieldManagerError for
 * a list-map item that is not an object or has none of the key fields.
 */
export function itemElement(shape: Extract<Shape, { kind: 'set' | 'listMap' }>, item: unknown): PathElement {
  if (shape.kind === 'set') return valueElement(item);
  if (!isObject(item)) throw new FieldManagerError(`associative list with keys may not have non-map elements: ${JSON.stringify(item)}`);
  const itemSchema = resolve(shape.items);
  const fields: JsonObject = {};
  for (const key of shape.keys) {
    if (item[key] !== undefined && item[key] !== null) fields[key] = item[key];
    else if (itemSchema.kind === 'object') {
      const keySchema = itemSchema.properties[key];
      const def = keySchema ? (resolve(keySchema) as { default?: unknown }).default : undefined;
      if (def !== undefined) fields[key] = def;
    }
  }
  if (Object.keys(fields).length === 0) {
    throw new FieldManagerError(`associative list with keys has an element that omits all key fields ${JSON.stringify(shape.keys)}`);
  }
  return keyElement(fields);
}
