// Whether a CRD version's openAPIV3Schema is structural, with kube-apiserver's field paths
// (`spec.versions[0].schema.openAPIV3Schema.properties[spec].type`) and messages. A v1 CRD
// must be structural: every specified field has a type (or int-or-string, or preserves
// unknown fields), arrays have items, metadata at the root names only name and generateName,
// defaults validate and survive pruning.
import type { FieldError } from '../validation.js';
import { isObject, itemsOf, valuesOf, type JSONSchemaProps } from './structural.js';
import { validateValue } from './validate-value.js';
import { prune } from './pruning.js';

const TYPES = ['object', 'array', 'string', 'integer', 'number', 'boolean'];
const LIST_TYPES = ['atomic', 'set', 'map'];
const MAP_TYPES = ['atomic', 'granular'];

const required = (field: string, message: string): FieldError => ({ type: 'FieldValueRequired', field, message });
const forbidden = (field: string, message: string): FieldError => ({ type: 'FieldValueForbidden', field, message });
const invalid = (field: string, value: unknown, message: string): FieldError =>
  ({ type: 'FieldValueInvalid', field, message: `${JSON.stringify(value)}: ${message}` });

export function checkSchema(s: unknown, path: string): FieldError[] {
  if (!isObject(s)) return [required(path, 'schemas are required')];
  const errs: FieldError[] = [];
  const root = s as JSONSchemaProps;
  if (root.type !== 'object') {
    if (!root.type) errs.push(required(`${path}.type`, 'must not be empty at the root'));
    else errs.push(invalid(`${path}.type`, root.type, 'must be object at the root'));
  }
  if (root.nullable) errs.push(forbidden(`${path}.nullable`, 'must be false at the root'));
  node(root, path, errs, { root: true, field: false });
  const meta = root.properties?.metadata;
  if (meta) {
    const extra = Object.keys(meta).filter((k) => !['type', 'properties', 'description'].includes(k));
    const props = Object.keys(meta.properties ?? {}).filter((k) => k !== 'name' && k !== 'generateName');
    if (extra.length || props.length) errs.push(forbidden(`${path}.properties[metadata]`, 'must not specify anything other than name and generateName, but metadata is implicitly specified'));
    for (const k of ['name', 'generateName']) {
      const p = meta.properties?.[k];
      if (p && p.type !== 'string') errs.push(forbidden(`${path}.properties[metadata].properties[${k}].type`, 'must be string'));
    }
  }
  for (const k of ['apiVersion', 'kind']) {
    const p = root.properties?.[k];
    if (p && p.type !== 'string') errs.push(invalid(`${path}.properties[${k}].type`, p.type ?? '', 'must be string'));
  }
  return errs;
}

interface Where { root: boolean; field: boolean }

function node(s: JSONSchemaProps, path: string, errs: FieldError[], where: Where): void {
  const intOrString = s['x-kubernetes-int-or-string'] === true;
  const preserve = s['x-kubernetes-preserve-unknown-fields'];
  if (s.type !== undefined && !TYPES.includes(s.type)) errs.push({ type: 'FieldValueNotSupported', field: `${path}.type`, message: `${JSON.stringify(s.type)}: supported values: ${TYPES.map((t) => `"${t}"`).join(', ')}` });
  if (where.field && !s.type && !intOrString && preserve !== true) {
    errs.push(required(`${path}.type`, where.field === true && path.endsWith('.items') ? 'must not be empty for specified array items' : 'must not be empty for specified object fields'));
  }
  if (preserve === false) errs.push(invalid(`${path}.x-kubernetes-preserve-unknown-fields`, false, 'must be true or undefined'));
  if (intOrString && s.type) errs.push(invalid(`${path}.type`, s.type, 'must be empty if x-kubernetes-int-or-string is true'));
  if (s['x-kubernetes-embedded-resource'] && s.type !== 'object') errs.push(invalid(`${path}.type`, s.type ?? '', 'must be object if x-kubernetes-embedded-resource is true'));
  if (s['x-kubernetes-embedded-resource'] && !s.properties && preserve !== true) errs.push(required(`${path}.properties`, 'must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields'));
  if (s.properties && s.additionalProperties !== undefined && s.additionalProperties !== false) errs.push(forbidden(`${path}.additionalProperties`, 'additionalProperties and properties are mutual exclusive'));
  if (s.additionalProperties === false) errs.push(forbidden(`${path}.additionalProperties`, 'must not be false'));
  if (s.type === 'array' && !s.items) errs.push(required(`${path}.items`, 'must be specified'));
  if (Array.isArray(s.items)) errs.push(forbidden(`${path}.items`, 'items must be a schema object and not an array'));
  if (s.$ref !== undefined) errs.push(forbidden(`${path}.$ref`, '$ref is not supported'));
  for (const k of ['definitions', 'dependencies', 'additionalItems', 'patternProperties', 'id', '$schema']) {
    if (s[k] !== undefined) errs.push(forbidden(`${path}.${k}`, `${k} is not supported`));
  }
  if (s.uniqueItems === true) errs.push(forbidden(`${path}.uniqueItems`, 'uniqueItems cannot be set to true since the runtime complexity becomes quadratic'));
  const listType = s['x-kubernetes-list-type'];
  if (listType !== undefined) {
    if (!LIST_TYPES.includes(listType)) errs.push({ type: 'FieldValueNotSupported', field: `${path}.x-kubernetes-list-type`, message: `${JSON.stringify(listType)}: supported values: "atomic", "set", "map"` });
    if (s.type !== 'array') errs.push(invalid(`${path}.x-kubernetes-list-type`, listType, 'must only be used on type=array'));
  }
  const keys = s['x-kubernetes-list-map-keys'];
  if (listType === 'map' && !keys?.length) errs.push(required(`${path}.x-kubernetes-list-map-keys`, 'must not be empty if x-kubernetes-list-type is map'));
  if (keys?.length && listType !== 'map') errs.push(forbidden(`${path}.x-kubernetes-list-map-keys`, 'must not be set if x-kubernetes-list-type is not map'));
  if (listType === 'map' && keys?.length) {
    const item = itemsOf(s);
    for (const k of keys) {
      const p = item?.properties?.[k];
      if (!p) errs.push(required(`${path}.items.properties`, `must have property ${JSON.stringify(k)}`));
      else if (!['string', 'integer', 'number', 'boolean'].includes(p.type ?? '') && !p['x-kubernetes-int-or-string']) errs.push(invalid(`${path}.items.properties[${k}].type`, p.type ?? '', 'must be a scalar type if parent array type is map'));
      else if (!item?.required?.includes(k) && p.default === undefined) errs.push(required(`${path}.items.required`, `must include ${JSON.stringify(k)} or default the key`));
    }
  }
  const mapType = s['x-kubernetes-map-type'];
  if (mapType !== undefined && !MAP_TYPES.includes(mapType)) errs.push({ type: 'FieldValueNotSupported', field: `${path}.x-kubernetes-map-type`, message: `${JSON.stringify(mapType)}: supported values: "atomic", "granular"` });
  if (s.default !== undefined) errs.push(...defaultErrors(s, path, where));
  for (const [k, p] of Object.entries(s.properties ?? {})) {
    if (!isObject(p)) { errs.push(invalid(`${path}.properties[${k}]`, p, 'must be a schema')); continue; }
    node(p, `${path}.properties[${k}]`, errs, { root: false, field: true });
  }
  const item = itemsOf(s);
  if (isObject(item)) node(item, `${path}.items`, errs, { root: false, field: true });
  const values = valuesOf(s);
  if (values) node(values, `${path}.additionalProperties`, errs, { root: false, field: true });
  for (const c of ['allOf', 'anyOf', 'oneOf'] as const) {
    (s[c] ?? []).forEach((sub, i) => junctor(sub, `${path}.${c}[${i}]`, errs));
  }
  if (s.not) junctor(s.not, `${path}.not`, errs);
}

/** Inside allOf/anyOf/oneOf/not only value validations are allowed (no defaults, nullable, list or map types). */
function junctor(s: JSONSchemaProps, path: string, errs: FieldError[]): void {
  // Types in junctors are tolerated: int-or-string fields carry anyOf [integer, string].
  for (const k of ['default', 'nullable', 'x-kubernetes-embedded-resource', 'x-kubernetes-list-type', 'x-kubernetes-map-type', 'additionalProperties']) {
    if (s[k] !== undefined) {
      errs.push(forbidden(`${path}.${k}`, `must be undefined to be structural`));
    }
  }
  for (const [k, p] of Object.entries(s.properties ?? {})) junctor(p, `${path}.properties[${k}]`, errs);
  const item = itemsOf(s);
  if (item) junctor(item, `${path}.items`, errs);
}

function defaultErrors(s: JSONSchemaProps, path: string, where: Where): FieldError[] {
  if (where.root) return [forbidden(`${path}.default`, 'must not be set at the root')];
  const copy = structuredClone(s.default);
  const errs: FieldError[] = [];
  if (isObject(copy)) {
    const { removed } = prune({ v: copy }, { type: 'object', properties: { v: s } });
    if (removed.length) errs.push(invalid(`${path}.default`, s.default, `must not have unknown fields: ${removed.map((r) => r.slice(2)).join(', ')}`));
  }
  const { default: _d, ...rest } = s;
  for (const e of validateValue(s.default, rest as JSONSchemaProps, '')) {
    errs.push({ ...e, field: `${path}.default${e.field ? `.${e.field}` : ''}` });
  }
  return errs;
}
