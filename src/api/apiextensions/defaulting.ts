// Structural defaulting, as kube-apiserver does it for custom resources: on every object
// decoded from a request and every object read from storage, absent fields whose schema has
// a `default` get a copy of it (top down, so defaults inside a default apply too), and a
// null that is not nullable is replaced by the default.
import { isObject, itemsOf, valuesOf, type JSONSchemaProps } from './structural.js';

/** Sets defaults in place; returns `v` (or the default when `v` itself was absent). */
export function applyDefaults(v: unknown, s: JSONSchemaProps): unknown {
  if (Array.isArray(v)) {
    const items = itemsOf(s);
    if (items) for (let i = 0; i < v.length; i++) v[i] = applyDefaults(v[i], items);
    return v;
  }
  if (!isObject(v)) return v;
  for (const [k, prop] of Object.entries(s.properties ?? {})) {
    const absent = !(k in v) || (v[k] === null && !prop.nullable);
    if (absent && prop.default !== undefined) v[k] = structuredClone(prop.default);
    if (k in v) v[k] = applyDefaults(v[k], prop);
  }
  const values = valuesOf(s);
  if (values) for (const k of Object.keys(v)) if (!s.properties?.[k]) v[k] = applyDefaults(v[k], values);
  return v;
}
