// How the schema DSL reads for strategic merge patch: which values merge as maps, which
// lists merge by key, and where the schema runs out (then JSON merge patch rules apply).
import { resolve, type ArraySchema, type Schema } from '../../api/schema.js';

export type MergeShape =
  | { kind: 'map'; field: (key: string) => Schema | undefined }
  | { kind: 'list'; schema: ArraySchema }
  /** No schema, or `any`: the value is merged as RFC 7386 JSON merge patch. */
  | { kind: 'untyped' }
  | { kind: 'scalar' };

export function shapeOf(schema: Schema | undefined): MergeShape {
  if (!schema) return { kind: 'untyped' };
  const s = resolve(schema);
  switch (s.kind) {
    case 'object':
      return { kind: 'map', field: (key) => s.properties[key] };
    case 'map':
      return { kind: 'map', field: () => s.values };
    case 'array':
      return { kind: 'list', schema: s };
    case 'any':
      return { kind: 'untyped' };
    default:
      return { kind: 'scalar' };
  }
}

export function fieldSchema(schema: Schema | undefined, key: string): Schema | undefined {
  const shape = shapeOf(schema);
  return shape.kind === 'map' ? shape.field(key) : undefined;
}

export function listSchema(schema: Schema | undefined): ArraySchema | undefined {
  const shape = shapeOf(schema);
  return shape.kind === 'list' ? shape.schema : undefined;
}

/** `patchStrategy: merge` (alone or with retainKeys) makes a list merge instead of replace. */
export function mergesAsList(schema: ArraySchema): boolean {
  return schema.patchStrategy === 'merge' || schema.patchStrategy === 'merge,retainKeys';
}
