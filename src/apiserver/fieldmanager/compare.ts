// What changed between two versions of an object, as field sets (structured-merge-diff
// typed.Compare). Leaves are added, removed or modified; list items and map keys that
// appear or disappear are recorded as wholes too.
//
// One deliberate difference: upstream also records struct fields (spec, template, ...) that
// appear, but Kubernetes then rarely shows them because Go zero values make most structs
// "present" already. We record a struct field itself only when it is a non-required list or
// map, which reproduces the managedFields kubectl users see (`"f:labels":{".":{},...}` but
// `"f:spec":{...}` and `"f:containers":{...}` without ".").
import type { Schema } from '../../api/schema.js';
import { FieldSet } from './field-set.js';
import { deepEqual, isEmptyValue, isObject } from '../../api/json.js';
import { fieldElement, type Path, type PathElement } from './path-element.js';
import { childSchema, itemElement, shapeOf, type Shape } from './typed.js';

export interface Comparison {
  added: FieldSet;
  modified: FieldSet;
  removed: FieldSet;
}

/** `before`/`after` undefined means absent (an object being created or deleted). */
export function compare(before: unknown, after: unknown, schema: Schema | undefined): Comparison {
  const c: Comparison = { added: new FieldSet(), modified: new FieldSet(), removed: new FieldSet() };
  walk(before, after, schema, [], false, c);
  return c;
}

function isAbsentOrEmpty(v: unknown): boolean {
  return v === undefined || isEmptyValue(v);
}

function walk(l: unknown, r: unknown, schema: Schema | undefined, path: Path, recordSelf: boolean, c: Comparison): void {
  const ls = l === undefined || l === null ? undefined : shapeOf(schema, l);
  const rs = r === undefined || r === null ? undefined : shapeOf(schema, r);
  const shape = rs ?? ls ?? shapeOf(schema, undefined);
  const granular = shape.kind !== 'leaf' && (!ls || !rs || ls.kind === rs.kind);
  if (!granular || (isAbsentOrEmpty(l) && isAbsentOrEmpty(r))) {
    if (path.length === 0) return;
    if (l === undefined) c.added.insert(path);
    else if (r === undefined) c.removed.insert(path);
    else if (!deepEqual(l, r)) c.modified.insert(path);
    return;
  }
  if (shape.kind === 'struct' || shape.kind === 'map') walkMap(l, r, shape, path, c);
  else if (shape.kind === 'set' || shape.kind === 'listMap') walkList(l, r, shape, path, c);
  if (recordSelf && path.length > 0) {
    if (l === undefined) c.added.insert(path);
    else if (r === undefined) c.removed.insert(path);
  }
}

function unchanged(l: unknown, r: unknown): boolean {
  return l === r || (l !== undefined && r !== undefined && deepEqual(l, r));
}

function walkMap(l: unknown, r: unknown, shape: Extract<Shape, { kind: 'struct' | 'map' }>, path: Path, c: Comparison): void {
  const lm = isObject(l) ? l : {};
  const rm = isObject(r) ? r : {};
  for (const key of new Set([...Object.keys(lm), ...Object.keys(rm)])) {
    const schema = childSchema(shape, key);
    const lv = Object.hasOwn(lm, key) ? lm[key] : undefined;
    const rv = Object.hasOwn(rm, key) ? rm[key] : undefined;
    // Equal values record nothing at any depth: most of an update's object is unchanged.
    if (unchanged(lv, rv)) continue;
    walk(lv, rv, schema, [...path, fieldElement(key)], recordsItself(shape, key, schema, rv !== undefined ? rv : lv), c);
  }
}

function recordsItself(shape: Extract<Shape, { kind: 'struct' | 'map' }>, key: string, schema: Schema | undefined, value: unknown): boolean {
  if (shape.kind === 'map' || !Object.hasOwn(shape.fields, key)) return true;
  if (shape.required.has(key)) return false;
  const kind = shapeOf(schema, value).kind;
  return kind === 'map' || kind === 'set' || kind === 'listMap';
}

function walkList(l: unknown, r: unknown, shape: Extract<Shape, { kind: 'set' | 'listMap' }>, path: Path, c: Comparison): void {
  const left = group(l, shape);
  const right = group(r, shape);
  for (const pe of new Set([...left.keys(), ...right.keys()])) {
    const li = left.get(pe) ?? [];
    const ri = right.get(pe) ?? [];
    const itemPath = [...path, pe];
    if (li.length <= 1 && ri.length <= 1) {
      if (unchanged(li[0], ri[0])) continue;
      walk(li[0], ri[0], shape.items, itemPath, true, c);
    } else if (li.length === 0) {
      c.added.insert(itemPath);
    } else if (ri.length === 0) {
      c.removed.insert(itemPath);
    } else if (!deepEqual(li, ri)) {
      // Duplicated entries are compared as one atomic value.
      c.modified.insert(itemPath);
    }
  }
}

function group(list: unknown, shape: Extract<Shape, { kind: 'set' | 'listMap' }>): Map<PathElement, unknown[]> {
  const out = new Map<PathElement, unknown[]>();
  if (!Array.isArray(list)) return out;
  for (const item of list) {
    const pe = itemElement(shape, item);
    out.set(pe, [...(out.get(pe) ?? []), item]);
  }
  return out;
}
