// Pruning of fields a structural schema does not specify, as kube-apiserver prunes custom
// resources: kept are the fields in `properties`, the values of `additionalProperties`,
// everything under `x-kubernetes-preserve-unknown-fields`, and apiVersion/kind/metadata at
// the root and in embedded resources (whose metadata is pruned by the caller as ObjectMeta).
import { child, index, isEmbedded, isObject, itemsOf, preservesUnknown, valuesOf, type JSONSchemaProps } from './structural.js';

export interface Pruned {
  /** Paths of the removed fields (`spec.foo`), for strict field validation. */
  removed: string[];
  /** Paths of embedded resources' metadata, for ObjectMeta pruning. */
  embeddedMetadata: string[];
}

const TYPE_META = ['apiVersion', 'kind', 'metadata'];

/** Prunes `v` in place (the root is an object: its apiVersion, kind and metadata are kept). */
export function prune(v: unknown, s: JSONSchemaProps): Pruned {
  const out: Pruned = { removed: [], embeddedMetadata: [] };
  walk(v, s, '', true, out);
  return out;
}

function walk(v: unknown, s: JSONSchemaProps, path: string, typeMeta: boolean, out: Pruned): void {
  if (Array.isArray(v)) {
    const items = itemsOf(s);
    if (items) v.forEach((x, i) => walk(x, items, index(path, i), false, out));
    return;
  }
  if (!isObject(v)) return;
  const keepMeta = typeMeta || isEmbedded(s);
  if (isEmbedded(s) && isObject(v.metadata)) out.embeddedMetadata.push(child(path, 'metadata'));
  const values = valuesOf(s);
  for (const k of Object.keys(v)) {
    // Type meta is the server's, whatever the schema says of it (metadata is ObjectMeta).
    if (keepMeta && TYPE_META.includes(k)) continue;
    const prop = s.properties?.[k];
    if (prop) walk(v[k], prop, child(path, k), false, out);
    else if (values) walk(v[k], values, child(path, k), false, out);
    else if (!preservesUnknown(s) && s.additionalProperties !== true) {
      delete v[k];
      out.removed.push(child(path, k));
    }
  }
}
