// A custom resource's structural schema as the DSL (src/api/schema.ts) describes types, so
// that the machinery built on the DSL serves custom resources too: OpenAPI documents
// (kubectl explain), and server-side apply's list and map semantics
// (x-kubernetes-list-type, -list-map-keys, -map-type).
import { type Schema } from '../schema.js';
import { objectMeta } from '../meta/v1/names.js';
import { itemsOf, preservesUnknown, valuesOf, type JSONSchemaProps } from './structural.js';

export function toDSL(s: JSONSchemaProps, root = false): Schema {
  const description = s.description;
  if (s['x-kubernetes-int-or-string']) return { kind: 'int-or-string', description };
  switch (s.type) {
    case 'string': case 'integer': case 'number': case 'boolean':
      return {
        kind: s.type, description,
        ...(s.format ? { format: s.format } : {}),
        ...(s.enum && s.type === 'string' ? { enum: s.enum.filter((e): e is string => typeof e === 'string') } : {}),
        ...(s.default !== undefined ? { default: s.default } : {}),
      };
    case 'array': {
      const items = itemsOf(s);
      const listType = s['x-kubernetes-list-type'] as 'atomic' | 'set' | 'map' | undefined;
      return {
        kind: 'array', description, items: items ? toDSL(items) : { kind: 'any' },
        ...(listType ? { listType } : {}),
        ...(s['x-kubernetes-list-map-keys'] ? { listMapKeys: s['x-kubernetes-list-map-keys'] } : {}),
      };
    }
    case 'object': {
      const values = valuesOf(s);
      if (values && !s.properties) return { kind: 'map', description, values: toDSL(values) };
      if (!s.properties && (preservesUnknown(s) || s.additionalProperties === true)) return { kind: 'any', description };
      const properties: Record<string, Schema> = {};
      for (const [k, p] of Object.entries(s.properties ?? {})) properties[k] = toDSL(p);
      if (root || s['x-kubernetes-embedded-resource']) {
        properties.apiVersion ??= { kind: 'string', description: 'The versioned schema of this object.' };
        properties.kind ??= { kind: 'string', description: 'The type of this object in CamelCase.' };
        properties.metadata = objectMeta();
      }
      const mapType = s['x-kubernetes-map-type'] as 'atomic' | 'granular' | undefined;
      return { kind: 'object', description, properties, ...(s.required?.length ? { required: s.required } : {}), ...(mapType ? { mapType } : {}) };
    }
    default:
      return { kind: 'any', description };
  }
}
