// The OpenAPI v3 schema of a custom resource version (apiextensions.k8s.io/v1 JSONSchemaProps)
// as the server reads it, and the small helpers the validator, defaulter and pruner share.
export interface JSONSchemaProps {
  type?: string;
  format?: string;
  description?: string;
  properties?: Record<string, JSONSchemaProps>;
  items?: JSONSchemaProps | JSONSchemaProps[];
  additionalProperties?: JSONSchemaProps | boolean;
  required?: string[];
  enum?: unknown[];
  default?: unknown;
  nullable?: boolean;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean;
  exclusiveMaximum?: boolean;
  multipleOf?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  minProperties?: number;
  maxProperties?: number;
  allOf?: JSONSchemaProps[];
  anyOf?: JSONSchemaProps[];
  oneOf?: JSONSchemaProps[];
  not?: JSONSchemaProps;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-list-type'?: string;
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: string;
  'x-kubernetes-validations'?: { rule: string; message?: string; messageExpression?: string; reason?: string; fieldPath?: string; optionalOldSelf?: boolean }[];
  [other: string]: unknown;
}

export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The one schema of array items (a tuple form is refused by the CRD's validation). */
export function itemsOf(s: JSONSchemaProps): JSONSchemaProps | undefined {
  return Array.isArray(s.items) ? undefined : s.items;
}

/** The schema of the values of a map (`additionalProperties` as a schema). */
export function valuesOf(s: JSONSchemaProps): JSONSchemaProps | undefined {
  return isObject(s.additionalProperties) ? s.additionalProperties as JSONSchemaProps : undefined;
}

export const preservesUnknown = (s: JSONSchemaProps): boolean => s['x-kubernetes-preserve-unknown-fields'] === true;
export const isEmbedded = (s: JSONSchemaProps): boolean => s['x-kubernetes-embedded-resource'] === true;

/** kube-openapi's name for a JSON value's type, as error messages print it. */
export function jsonTypeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

/** `spec.items[0].name`: the field path of a child, as Kubernetes prints them. */
export const child = (path: string, key: string): string => (path ? `${path}.${key}` : key);
export const index = (path: string, i: number): string => `${path}[${i}]`;
