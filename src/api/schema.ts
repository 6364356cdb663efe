// The schema of versioned API types. One description drives everything that needs to know
// a type's shape: the OpenAPI v3 documents (kubectl apply validation, kubectl explain),
// unknown-field detection for fieldValidation, strategic-merge-patch merge keys and
// strategies, and server-side apply's list and map semantics.
//
// Schemas are plain data built with the helpers below. Named types are registered once with
// `defineType` under their OpenAPI name (e.g. `io.k8s.api.core.v1.PodSpec`) and referenced
// with `ref`, so recursive and shared types stay single definitions.

export interface SchemaCommon {
  description?: string;
  /** Where the field sits in upstream's protobuf message (set with `pb`); see src/api/DESIGN.md §3. */
  proto?: ProtoTag;
}

/**
 * A field's place in the protobuf message of upstream's generated.proto. The protobuf decode
 * tables are generated from these (src/apiserver/protobuf/generate.ts).
 */
export interface ProtoTag {
  /** The field number. */
  n: number;
  /**
   * A zero value (0, false, '') read from protobuf stays in the JSON, because the Go field is
   * a pointer (`*int32`) or has no omitempty. Otherwise it is dropped: gogo-protobuf writes
   * the zero values that JSON's omitempty leaves out.
   */
  keepZero?: boolean;
  /** The field belongs to an embedded Go struct that JSON inlines (VolumeSource in Volume); `n` is its number there. */
  in?: string;
}

export interface PrimitiveSchema extends SchemaCommon {
  kind: 'string' | 'integer' | 'number' | 'boolean';
  /** OpenAPI format: int32, int64, double, byte, date-time, ... */
  format?: string;
  enum?: string[];
  default?: unknown;
}

/** A string or an integer (ports, maxSurge): OpenAPI `x-kubernetes-int-or-string`. */
export interface IntOrStringSchema extends SchemaCommon {
  kind: 'int-or-string';
}

/**
 * A resource quantity ("500m", "1Gi", 2, 0.5): a string or any number. Kubernetes decodes
 * both forms, so schemas must accept both where int-or-string would refuse 0.5.
 */
export interface QuantitySchema extends SchemaCommon {
  kind: 'quantity';
}

/** Any JSON value kept as sent (`x-kubernetes-preserve-unknown-fields`). */
export interface AnySchema extends SchemaCommon {
  kind: 'any';
}

export interface ObjectSchema extends SchemaCommon {
  kind: 'object';
  properties: Record<string, Schema>;
  required?: string[];
  /** Set for top-level kinds: the group/version/kind(s) this schema is served as. */
  gvk?: { group: string; version: string; kind: string }[];
  /** For `x-kubernetes-map-type`: 'atomic' objects are replaced whole by apply. */
  mapType?: 'atomic' | 'granular';
  /** Embedded Go structs JSON inlines (fields tagged `in`), by message name: their field number in this message. */
  protoEmbeds?: Record<string, number>;
  /**
   * An embedded struct inside another embedded struct (admissionregistration's Rule inside
   * RuleWithOperations inside NamedRuleWithOperations): the embed it sits in, by message name;
   * its `protoEmbeds` number is then its number in that message.
   */
  protoEmbedIn?: Record<string, string>;
}

/** An object with free-form keys and values of one schema (labels, data). */
export interface MapSchema extends SchemaCommon {
  kind: 'map';
  values: Schema;
}

export interface ArraySchema extends SchemaCommon {
  kind: 'array';
  items: Schema;
  /** Strategic merge patch: `x-kubernetes-patch-merge-key`. */
  patchMergeKey?: string;
  /** Strategic merge patch: `x-kubernetes-patch-strategy`. */
  patchStrategy?: 'merge' | 'replace' | 'retainKeys' | 'merge,retainKeys';
  /** Server-side apply: `x-kubernetes-list-type`. */
  listType?: 'atomic' | 'set' | 'map';
  /** Server-side apply: `x-kubernetes-list-map-keys` (with listType 'map'). */
  listMapKeys?: string[];
}

export interface RefSchema extends SchemaCommon {
  kind: 'ref';
  name: string;
}

export type Schema =
  | PrimitiveSchema
  | IntOrStringSchema
  | QuantitySchema
  | AnySchema
  | ObjectSchema
  | MapSchema
  | ArraySchema
  | RefSchema;

const registry = new Map<string, Schema>();
let generation = 0;

/** Registers a named type and returns a reference to it. Defining a name twice is a bug. */
export function defineType(name: string, schema: Schema): RefSchema {
  if (registry.has(name)) throw new Error(`schema ${name} defined twice`);
  registry.set(name, schema);
  generation++;
  return { kind: 'ref', name };
}

/**
 * Defines or replaces a type that comes and goes at run time (a custom resource version's
 * schema, from its CustomResourceDefinition); `undefined` removes it.
 */
export function setDynamicType(name: string, schema: Schema | undefined): void {
  if (schema) registry.set(name, schema);
  else registry.delete(name);
  generation++;
}

/** Changes with every definition, so indexes over allTypes() know when to rebuild. */
export function typesGeneration(): number {
  return generation;
}

/** The definition behind a name; throws for unknown names (a schema bug, not user input). */
export function lookupType(name: string): Schema {
  const s = registry.get(name);
  if (!s) throw new Error(`schema ${name} is not defined`);
  return s;
}

/** Follows references until a concrete schema. */
export function resolve(schema: Schema): Exclude<Schema, RefSchema> {
  let s = schema;
  while (s.kind === 'ref') s = lookupType(s.name);
  return s;
}

export function allTypes(): ReadonlyMap<string, Schema> {
  return registry;
}

// Builders. Each takes the description last so definitions read like the field list.
export const str = (description?: string, extra: Partial<PrimitiveSchema> = {}): PrimitiveSchema =>
  ({ kind: 'string', description, ...extra });
export const int32 = (description?: string): PrimitiveSchema => ({ kind: 'integer', format: 'int32', description });
export const int64 = (description?: string): PrimitiveSchema => ({ kind: 'integer', format: 'int64', description });
export const num = (description?: string): PrimitiveSchema => ({ kind: 'number', format: 'double', description });
export const bool = (description?: string): PrimitiveSchema => ({ kind: 'boolean', description });
export const time = (description?: string): PrimitiveSchema => ({ kind: 'string', format: 'date-time', description });
export const bytes = (description?: string): PrimitiveSchema => ({ kind: 'string', format: 'byte', description });
export const intOrString = (description?: string): IntOrStringSchema => ({ kind: 'int-or-string', description });
export const quantity = (description?: string): QuantitySchema => ({ kind: 'quantity', description });
export const withDefault = <S extends PrimitiveSchema>(schema: S, value: unknown): S => ({ ...schema, default: value });
export const any = (description?: string): AnySchema => ({ kind: 'any', description });
export const ref = (name: string, description?: string): RefSchema => ({ kind: 'ref', name, description });
export const obj = (
  properties: Record<string, Schema>,
  description?: string,
  extra: Partial<ObjectSchema> = {},
): ObjectSchema => ({ kind: 'object', properties, description, ...extra });
export const map = (values: Schema, description?: string): MapSchema => ({ kind: 'map', values, description });
export const arr = (items: Schema, description?: string, extra: Partial<ArraySchema> = {}): ArraySchema =>
  ({ kind: 'array', items, description, ...extra });
/** A list merged by key (containers by name): SMP merge key and SSA list-map in one. */
export const keyedList = (items: Schema, key: string, description?: string): ArraySchema =>
  ({ kind: 'array', items, description, patchMergeKey: key, patchStrategy: 'merge', listType: 'map', listMapKeys: [key] });
/**
 * Tags a field with its upstream protobuf number: `pb(3, str())`; `'keepZero'` for a pointer or
 * non-omitempty Go field; `{ in: 'VolumeSource' }` for a field of an inlined embedded struct.
 */
export const pb = <S extends Schema>(n: number, schema: S, opts: 'keepZero' | Omit<ProtoTag, 'n'> = {}): S =>
  ({ ...schema, proto: { n, ...(opts === 'keepZero' ? { keepZero: true } : opts) } });
