// Turns registered schemas into OpenAPI v3 component schemas, the way Kubernetes writes
// them: a reference with a description beside it becomes `allOf: [{$ref}]` plus the
// description, since OpenAPI 3.0 ignores siblings of a bare $ref.
import { lookupType, type Schema } from '../schema.js';

export type JSONObject = { [key: string]: unknown };

export const componentRef = (name: string): string => `#/components/schemas/${name}`;

export function toOpenAPI(schema: Schema): JSONObject {
  const out: JSONObject = {};
  if (schema.description) out.description = schema.description;
  switch (schema.kind) {
    case 'ref':
      if (schema.description) out.allOf = [{ $ref: componentRef(schema.name) }];
      else out.$ref = componentRef(schema.name);
      return out;
    case 'string':
    case 'integer':
    case 'number':
    case 'boolean':
      out.type = schema.kind;
      if (schema.format) out.format = schema.format;
      if (schema.enum) out.enum = schema.enum;
      if (schema.default !== undefined) out.default = schema.default;
      return out;
    case 'int-or-string':
      out.format = 'int-or-string';
      out.oneOf = [{ type: 'integer' }, { type: 'string' }];
      out['x-kubernetes-int-or-string'] = true;
      return out;
    case 'quantity':
      out.oneOf = [{ type: 'string' }, { type: 'number' }];
      return out;
    case 'any':
      out['x-kubernetes-preserve-unknown-fields'] = true;
      return out;
    case 'map':
      out.type = 'object';
      out.additionalProperties = toOpenAPI(schema.values);
      return out;
    case 'array':
      out.type = 'array';
      out.items = toOpenAPI(schema.items);
      if (schema.listType) out['x-kubernetes-list-type'] = schema.listType;
      if (schema.listMapKeys) out['x-kubernetes-list-map-keys'] = schema.listMapKeys;
      if (schema.patchMergeKey) out['x-kubernetes-patch-merge-key'] = schema.patchMergeKey;
      if (schema.patchStrategy) out['x-kubernetes-patch-strategy'] = schema.patchStrategy;
      return out;
    case 'object': {
      out.type = 'object';
      const properties: JSONObject = {};
      for (const [name, prop] of Object.entries(schema.properties)) properties[name] = toOpenAPI(prop);
      if (Object.keys(properties).length) out.properties = properties;
      if (schema.required?.length) out.required = schema.required;
      if (schema.mapType) out['x-kubernetes-map-type'] = schema.mapType;
      if (schema.gvk) out['x-kubernetes-group-version-kind'] = schema.gvk.map((g) => ({ group: g.group, kind: g.kind, version: g.version }));
      return out;
    }
  }
}

/** Names of the given types and of every type they reference, transitively. */
export function referencedTypes(roots: Iterable<string>): Set<string> {
  const seen = new Set<string>();
  const visit = (s: Schema): void => {
    switch (s.kind) {
      case 'ref':
        if (!seen.has(s.name)) {
          seen.add(s.name);
          visit(lookupType(s.name));
        }
        return;
      case 'object':
        for (const p of Object.values(s.properties)) visit(p);
        return;
      case 'array':
        return visit(s.items);
      case 'map':
        return visit(s.values);
      default:
        return;
    }
  };
  for (const name of roots) visit({ kind: 'ref', name });
  return seen;
}

export function componentSchemas(roots: Iterable<string>): JSONObject {
  const out: JSONObject = {};
  for (const name of [...referencedTypes(roots)].sort()) out[name] = toOpenAPI(lookupType(name));
  return out;
}
