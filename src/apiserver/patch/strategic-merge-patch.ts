// Strategic merge patch (application/strategic-merge-patch+json), after
// k8s.io/apimachinery/pkg/util/strategicpatch: maps merge, `null` deletes, lists merge or
// replace by their schema's patch strategy, and the `$` directives steer the rest. Where the
// schema runs out (`any`, unknown fields) values merge as RFC 7386 JSON merge patch.
import type { Schema } from '../../api/schema.js';
import { PatchError } from './errors.js';
import { deepEqual, describe, getOwn, isObject, setOwn, type JsonObject } from '../../api/json.js';
import { mergePatch } from './merge-patch.js';
import { mergeListField, mergeWithElementOrder } from './strategic-lists.js';
import { fieldSchema, listSchema, mergesAsList, shapeOf } from './strategic-schema.js';

export const PATCH_DIRECTIVE = '$patch';
const RETAIN_KEYS = '$retainKeys';
const SET_ELEMENT_ORDER = '$setElementOrder/';
const DELETE_FROM_PRIMITIVE_LIST = '$deleteFromPrimitiveList/';

export function strategicMergePatch(original: unknown, patch: unknown, schema: Schema | undefined): JsonObject {
  if (!isObject(patch)) throw PatchError.badRequest('a strategic merge patch must be a JSON object');
  return mergeMap(isObject(original) ? original : {}, patch, schema);
}

/** Merges `patch` into a copy of `original`; neither is mutated. */
export function mergeMap(original: JsonObject, patch: JsonObject, schema: Schema | undefined): JsonObject {
  const directive = patch[PATCH_DIRECTIVE];
  let body = patch;
  if (directive !== undefined) {
    body = withoutKey(patch, PATCH_DIRECTIVE);
    if (directive === 'replace') return mergeMap({}, body, schema);
    if (directive === 'delete') return {};
    if (directive !== 'merge') throw PatchError.badRequest(`unknown $patch directive ${describe(directive)}`);
  }

  const result: JsonObject = { ...original };
  if (Object.hasOwn(body, RETAIN_KEYS)) retainKeys(result, body);

  const ordered = new Set<string>();
  for (const [key, order] of Object.entries(body)) {
    if (!key.startsWith(SET_ELEMENT_ORDER)) continue;
    const field = directiveField(key, SET_ELEMENT_ORDER);
    const list = mergeWithElementOrder(getOwn(result, field), getOwn(body, field), order, listSchema(fieldSchema(schema, field)));
    if (list !== undefined) setOwn(result, field, list);
    ordered.add(field);
  }

  const deletions: [string, unknown[]][] = [];
  for (const [key, value] of Object.entries(body)) {
    if (key === RETAIN_KEYS || key.startsWith(SET_ELEMENT_ORDER) || ordered.has(key)) continue;
    if (key.startsWith(DELETE_FROM_PRIMITIVE_LIST)) {
      if (!Array.isArray(value)) throw PatchError.badRequest(`${key} must be a list`);
      deletions.push([directiveField(key, DELETE_FROM_PRIMITIVE_LIST), value]);
      continue;
    }
    if (key.startsWith('$')) throw PatchError.badRequest(`unknown strategic merge patch directive ${JSON.stringify(key)}`);
    mergeField(result, key, value, fieldSchema(schema, key));
  }

  // Deletions run last so that a list both merged and trimmed in one patch ends up trimmed.
  for (const [field, values] of deletions) {
    const list = getOwn(result, field);
    if (Array.isArray(list)) setOwn(result, field, list.filter((v) => !values.some((d) => deepEqual(d, v))));
  }
  return result;
}

function mergeField(result: JsonObject, key: string, value: unknown, schema: Schema | undefined): void {
  if (value === null) {
    delete result[key];
    return;
  }
  const current = getOwn(result, key);
  if (current === undefined) {
    setOwn(result, key, materialize(value, schema));
    return;
  }
  const shape = shapeOf(schema);
  let merged: unknown;
  if (shape.kind === 'untyped') merged = mergePatch(current, value);
  else if (shape.kind === 'map' && isObject(current) && isObject(value)) merged = mergeMap(current, value, schema);
  else if (shape.kind === 'list' && Array.isArray(current) && Array.isArray(value)) merged = mergeListField(current, value, shape.schema);
  else merged = materialize(value, schema);
  setOwn(result, key, merged);
}

/**
 * A patch value landing where there is nothing to merge with: directives are carried out
 * against emptiness, `$patch` elements dropped, nulls discarded.
 */
export function materialize(value: unknown, schema: Schema | undefined): unknown {
  const shape = shapeOf(schema);
  if (isObject(value)) return shape.kind === 'map' ? mergeMap({}, value, schema) : mergePatch(undefined, value);
  if (Array.isArray(value)) {
    const items = shape.kind === 'list' ? shape.schema.items : undefined;
    const elements = shape.kind === 'list' && mergesAsList(shape.schema)
      ? value.filter((e) => !(isObject(e) && Object.hasOwn(e, PATCH_DIRECTIVE)))
      : value;
    return elements.map((e) => materialize(e, items));
  }
  return value;
}

/** `$retainKeys`: keys of the live map not listed are cleared; the patch may only set listed keys. */
function retainKeys(result: JsonObject, body: JsonObject): void {
  const keep = body[RETAIN_KEYS];
  if (!Array.isArray(keep) || !keep.every((k) => typeof k === 'string')) throw PatchError.badRequest('$retainKeys must be a list of strings');
  for (const [key, value] of Object.entries(body)) {
    if (value === null || key.startsWith('$')) continue;
    if (!keep.includes(key)) throw PatchError.badRequest(`field ${JSON.stringify(key)} is set by the patch but not listed in $retainKeys`);
  }
  for (const key of Object.keys(result)) if (!keep.includes(key)) delete result[key];
}

function directiveField(key: string, prefix: string): string {
  const field = key.slice(prefix.length);
  if (!field) throw PatchError.badRequest(`${JSON.stringify(key)} names no field`);
  return field;
}

function withoutKey(o: JsonObject, key: string): JsonObject {
  const { [key]: _dropped, ...rest } = o;
  return rest;
}
