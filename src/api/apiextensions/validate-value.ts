// Validates a custom resource's value against its structural schema, with the field paths
// and messages kube-apiserver gives (kube-openapi's validator as apiextensions-apiserver
// turns its results into field errors): `spec.replicas: Invalid value: 15: spec.replicas in
// body should be less than or equal to 10`. x-kubernetes-validations (CEL) are evaluated
// by the API server (src/apiserver/crd/validation-rules.ts), which owns the CEL runtime.
import type { FieldError } from '../validation.js';
import { child, index, isEmbedded, isObject, itemsOf, jsonTypeName, valuesOf, type JSONSchemaProps } from './structural.js';
import { formatError } from './formats.js';

const quote = (v: unknown): string => JSON.stringify(v);
const invalidAt = (path: string, value: unknown, detail: string): FieldError =>
  ({ type: 'FieldValueInvalid', field: path, message: `${shown(value)}: ${detail}` });
const body = (path: string): string => (path ? `${path} in body` : 'in body');

/** How field.Invalid prints a bad value: strings quoted, numbers and booleans bare. */
function shown(v: unknown): string {
  if (typeof v === 'string') return quote(v);
  if (typeof v === 'number' || typeof v === 'boolean' || v === null) return String(v);
  return quote(v);
}

function typeMatches(type: string, v: unknown): boolean {
  switch (type) {
    case 'object': return isObject(v);
    case 'array': return Array.isArray(v);
    case 'string': return typeof v === 'string';
    case 'integer': return typeof v === 'number' && Number.isInteger(v);
    case 'number': return typeof v === 'number';
    case 'boolean': return typeof v === 'boolean';
    default: return true;
  }
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a), kb = Object.keys(b);
    return ka.length === kb.length && ka.every((k) => deepEqual(a[k], b[k]));
  }
  return false;
}

/** Errors of `value` at `path` (the root of an object is ''). */
export function validateValue(value: unknown, s: JSONSchemaProps, path = ''): FieldError[] {
  const errs: FieldError[] = [];
  walk(value, s, path, errs);
  return errs;
}

function walk(v: unknown, s: JSONSchemaProps, path: string, errs: FieldError[]): void {
  if (v === null) {
    if (s.nullable || (!s.type && !s['x-kubernetes-int-or-string'])) return;
    errs.push({ type: 'FieldValueTypeInvalid', field: path, message: `"null": ${body(path)} must be of type ${s['x-kubernetes-int-or-string'] ? 'integer,string' : s.type}: "null"` });
    return;
  }
  if (s['x-kubernetes-int-or-string']) {
    if (!(typeof v === 'string' || (typeof v === 'number' && Number.isInteger(v)))) {
      errs.push({ type: 'FieldValueTypeInvalid', field: path, message: `${quote(jsonTypeName(v))}: ${body(path)} must be of type integer,string: ${quote(jsonTypeName(v))}` });
      return;
    }
  } else if (s.type && !typeMatches(s.type, v)) {
    errs.push({ type: 'FieldValueTypeInvalid', field: path, message: `${quote(jsonTypeName(v))}: ${body(path)} must be of type ${s.type}: ${quote(jsonTypeName(v))}` });
    return;
  }
  if (s.enum && !s.enum.some((e) => deepEqual(e, v))) {
    errs.push({ type: 'FieldValueNotSupported', field: path, message: `${shown(v)}: supported values: ${s.enum.map((e) => quote(e)).join(', ')}` });
  }
  if (typeof v === 'string') strings(v, s, path, errs);
  if (typeof v === 'number') numbers(v, s, path, errs);
  if (Array.isArray(v)) arrays(v, s, path, errs);
  if (isObject(v)) objects(v, s, path, errs);
  combinators(v, s, path, errs);
}

function strings(v: string, s: JSONSchemaProps, path: string, errs: FieldError[]): void {
  const length = [...v].length;
  if (s.maxLength !== undefined && length > s.maxLength) {
    errs.push({ type: 'FieldValueTooLong', field: path, message: `may not be more than ${s.maxLength} ${s.maxLength === 1 ? 'byte' : 'bytes'}` });
  }
  if (s.minLength !== undefined && length < s.minLength) errs.push(invalidAt(path, v, `${body(path)} should be at least ${s.minLength} chars long`));
  if (s.pattern !== undefined) {
    let re: RegExp | undefined;
    try { re = new RegExp(s.pattern, 'u'); } catch { re = undefined; }
    if (re && !re.test(v)) errs.push(invalidAt(path, v, `${body(path)} should match '${s.pattern}'`));
  }
  if (s.format && formatError(s.format, v)) errs.push(invalidAt(path, v, `${body(path)} must be of type ${s.format}: ${quote(v)}`));
}

function numbers(v: number, s: JSONSchemaProps, path: string, errs: FieldError[]): void {
  if (s.maximum !== undefined) {
    if (s.exclusiveMaximum ? v >= s.maximum : v > s.maximum) {
      errs.push(invalidAt(path, v, `${body(path)} should be less than ${s.exclusiveMaximum ? '' : 'or equal to '}${s.maximum}`));
    }
  }
  if (s.minimum !== undefined) {
    if (s.exclusiveMinimum ? v <= s.minimum : v < s.minimum) {
      errs.push(invalidAt(path, v, `${body(path)} should be greater than ${s.exclusiveMinimum ? '' : 'or equal to '}${s.minimum}`));
    }
  }
  if (s.multipleOf !== undefined && s.multipleOf > 0) {
    const q = v / s.multipleOf;
    if (Math.abs(q - Math.round(q)) > 1e-9) errs.push(invalidAt(path, v, `${body(path)} should be a multiple of ${s.multipleOf}`));
  }
  if (s.format === 'int32' && (v < -(2 ** 31) || v > 2 ** 31 - 1)) errs.push(invalidAt(path, v, `${body(path)} must be of type int32: "${v}"`));
}

function arrays(v: unknown[], s: JSONSchemaProps, path: string, errs: FieldError[]): void {
  if (s.maxItems !== undefined && v.length > s.maxItems) {
    errs.push({ type: 'FieldValueTooMany', field: path, message: `${v.length}: must have at most ${s.maxItems} items` });
  }
  if (s.minItems !== undefined && v.length < s.minItems) errs.push(invalidAt(path, v, `${body(path)} should have at least ${s.minItems} items`));
  if (s.uniqueItems && v.some((x, i) => v.findIndex((y) => deepEqual(x, y)) !== i)) errs.push(invalidAt(path, v, `${body(path)} shouldn't contain duplicates`));
  const items = itemsOf(s);
  if (items) v.forEach((item, i) => walk(item, items, index(path, i), errs));
  listTypeErrors(v, s, path, errs);
}

/** x-kubernetes-list-type set and map: duplicates are refused, as upstream validates them. */
function listTypeErrors(v: unknown[], s: JSONSchemaProps, path: string, errs: FieldError[]): void {
  const type = s['x-kubernetes-list-type'];
  if (type === 'set') {
    v.forEach((x, i) => { if (v.findIndex((y) => deepEqual(x, y)) !== i) errs.push({ type: 'FieldValueDuplicate', field: index(path, i), message: shown(x) }); });
  }
  if (type === 'map') {
    const keys = s['x-kubernetes-list-map-keys'] ?? [];
    const seen: unknown[] = [];
    v.forEach((x, i) => {
      if (!isObject(x)) return;
      const k = keys.map((key) => x[key] ?? itemDefault(s, key));
      if (seen.some((o) => deepEqual(o, k))) {
        const shownKey = keys.length === 1 ? shown(k[0]) : `{${keys.map((key, j) => `${quote(key)}:${quote(k[j])}`).join(',')}}`;
        errs.push({ type: 'FieldValueDuplicate', field: index(path, i), message: shownKey });
      }
      seen.push(k);
    });
  }
}

function itemDefault(s: JSONSchemaProps, key: string): unknown {
  return itemsOf(s)?.properties?.[key]?.default;
}

function objects(v: Record<string, unknown>, s: JSONSchemaProps, path: string, errs: FieldError[]): void {
  const count = Object.keys(v).length;
  if (s.maxProperties !== undefined && count > s.maxProperties) {
    errs.push({ type: 'FieldValueTooMany', field: path, message: `${count}: must have at most ${s.maxProperties} items` });
  }
  if (s.minProperties !== undefined && count < s.minProperties) errs.push(invalidAt(path, v, `${body(path)} should have at least ${s.minProperties} properties`));
  for (const r of s.required ?? []) {
    if (!(r in v)) errs.push({ type: 'FieldValueRequired', field: child(path, r), message: '' });
  }
  if (isEmbedded(s)) {
    for (const k of ['apiVersion', 'kind']) {
      if (typeof v[k] !== 'string' || !v[k]) errs.push({ type: 'FieldValueRequired', field: child(path, k), message: 'must not be empty' });
    }
  }
  const values = valuesOf(s);
  for (const k of Object.keys(v).sort()) {
    const prop = s.properties?.[k] ?? values;
    if (prop) walk(v[k], prop, child(path, k), errs);
  }
}

function combinators(v: unknown, s: JSONSchemaProps, path: string, errs: FieldError[]): void {
  for (const sub of s.allOf ?? []) walk(v, sub, path, errs);
  if (s.anyOf?.length && !s.anyOf.some((sub) => validateValue(v, sub, path).length === 0)) {
    errs.push(invalidAt(path, v, `${body(path)} must validate at least one schema (anyOf)`));
    for (const sub of s.anyOf) if (validateValue(v, sub, path).length) { walk(v, sub, path, errs); break; }
  }
  if (s.oneOf?.length) {
    const ok = s.oneOf.filter((sub) => validateValue(v, sub, path).length === 0).length;
    if (ok !== 1) errs.push(invalidAt(path, v, `${body(path)} must validate one and only one schema (oneOf)${ok ? `. Found ${ok} valid alternatives` : ''}`));
  }
  if (s.not && validateValue(v, s.not, path).length === 0) errs.push(invalidAt(path, v, `${body(path)} must not validate the schema (not)`));
}
