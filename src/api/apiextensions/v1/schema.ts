// apiextensions.k8s.io/v1 CustomResourceDefinition. JSONSchemaProps is recursive through
// `properties`, `allOf`/`anyOf`/`oneOf`/`not` and `definitions`; the "or" types
// (JSONSchemaPropsOrArray, OrBool, OrStringArray) and JSON values are any JSON, as upstream
// publishes them, and are checked by the CRD's validation (src/apiserver/crd).
import { str, int64, num, bool, obj, arr, map, any, ref, defineType, type RefSchema } from '../../schema.js';
import { listMeta, objectMeta, timeRef } from '../../meta/v1/names.js';

const P = 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1';
const ax = (name: string, description?: string): RefSchema => ref(`${P}.${name}`, description);
const apiVersion = str('The versioned schema of this object, e.g. apps/v1; the server converts to it.');
const kind = str('The type of this object in CamelCase, e.g. Deployment.');
const gvk = (k: string) => [{ group: 'apiextensions.k8s.io', version: 'v1', kind: k }];

defineType(`${P}.CustomResourceDefinition`, obj({
  apiVersion, kind, metadata: objectMeta(),
  spec: ax('CustomResourceDefinitionSpec', 'The resource the definition adds to the API.'),
  status: ax('CustomResourceDefinitionStatus', 'What the server made of the definition.'),
}, 'A definition of a custom resource served by the API server.', { required: ['spec'], gvk: gvk('CustomResourceDefinition') }));

defineType(`${P}.CustomResourceDefinitionList`, obj({
  apiVersion, kind, metadata: listMeta(),
  items: arr(ax('CustomResourceDefinition'), 'The definitions.'),
}, 'A list of CustomResourceDefinitions.', { required: ['items'], gvk: gvk('CustomResourceDefinitionList') }));

defineType(`${P}.CustomResourceDefinitionSpec`, obj({
  group: str('The API group of the resource: /apis/<group>/<version>/...; the definition is named <plural>.<group>.'),
  names: ax('CustomResourceDefinitionNames', 'Resource and kind names.'),
  scope: str('Cluster or Namespaced.'),
  versions: arr(ax('CustomResourceDefinitionVersion'), 'Served versions; exactly one is the storage version.', { listType: 'atomic' }),
  conversion: ax('CustomResourceConversion', 'How objects convert between versions.'),
  preserveUnknownFields: bool('Deprecated: must be false in v1.'),
}, undefined, { required: ['group', 'names', 'scope', 'versions'] }));

defineType(`${P}.CustomResourceDefinitionNames`, obj({
  plural: str('Plural lower-case name used in URLs.'),
  singular: str('Singular lower-case name; defaults to the lower-cased kind.'),
  shortNames: arr(str(), 'Short names kubectl accepts.', { listType: 'atomic' }),
  kind: str('The CamelCase kind of objects.'),
  listKind: str('The kind of lists; defaults to <kind>List.'),
  categories: arr(str(), 'Groups of resources this one belongs to (`all`).', { listType: 'atomic' }),
}, undefined, { required: ['plural', 'kind'] }));

defineType(`${P}.CustomResourceDefinitionVersion`, obj({
  name: str('The version name, e.g. v1 or v2beta1.'),
  served: bool('Whether the version is served.'),
  storage: bool('Whether objects are stored in this version; exactly one version is.'),
  deprecated: bool('Whether requests in this version get a deprecation warning.'),
  deprecationWarning: str('The warning sent instead of the default one.'),
  schema: ax('CustomResourceValidation', 'The schema of objects in this version.'),
  subresources: ax('CustomResourceSubresources', 'The status and scale subresources.'),
  additionalPrinterColumns: arr(ax('CustomResourceColumnDefinition'), 'Columns of Table output.', { listType: 'atomic' }),
  selectableFields: arr(ax('SelectableField'), 'Fields usable in field selectors.', { listType: 'atomic' }),
}, undefined, { required: ['name', 'served', 'storage'] }));

defineType(`${P}.CustomResourceValidation`, obj({
  openAPIV3Schema: ax('JSONSchemaProps', 'The structural OpenAPI v3 schema of objects.'),
}));

defineType(`${P}.CustomResourceSubresources`, obj({
  status: ax('CustomResourceSubresourceStatus', 'Serve /status; the main endpoint then ignores status changes.'),
  scale: ax('CustomResourceSubresourceScale', 'Serve /scale as autoscaling/v1 Scale.'),
}));
defineType(`${P}.CustomResourceSubresourceStatus`, obj({}, 'Presence enables the status subresource.'));
defineType(`${P}.CustomResourceSubresourceScale`, obj({
  specReplicasPath: str('JSON path of the desired replicas, under .spec.'),
  statusReplicasPath: str('JSON path of the observed replicas, under .status.'),
  labelSelectorPath: str('JSON path of the label selector (string form), under .status or .spec.'),
}, undefined, { required: ['specReplicasPath', 'statusReplicasPath'] }));

defineType(`${P}.CustomResourceColumnDefinition`, obj({
  name: str('Column header.'),
  type: str('integer, number, string, boolean or date.'),
  format: str('OpenAPI format of the cells.'),
  description: str('What the column shows.'),
  priority: { ...int64('0 for the default view, more for -o wide.'), format: 'int32' },
  jsonPath: str('Simple JSON path evaluated against each object.'),
}, undefined, { required: ['name', 'type', 'jsonPath'] }));

defineType(`${P}.SelectableField`, obj({
  jsonPath: str('Simple JSON path of a string, integer or boolean field.'),
}, undefined, { required: ['jsonPath'] }));

defineType(`${P}.CustomResourceConversion`, obj({
  strategy: str('None (only apiVersion changes) or Webhook.'),
  webhook: ax('WebhookConversion', 'The conversion webhook, with strategy Webhook.'),
}, undefined, { required: ['strategy'] }));
defineType(`${P}.WebhookConversion`, obj({
  clientConfig: ax('WebhookClientConfig', 'How to reach the webhook.'),
  conversionReviewVersions: arr(str(), 'ConversionReview versions the webhook understands.', { listType: 'atomic' }),
}, undefined, { required: ['conversionReviewVersions'] }));
defineType(`${P}.WebhookClientConfig`, obj({
  url: str('https URL of the webhook.'),
  service: ax('ServiceReference', 'A Service in the cluster.'),
  caBundle: str('PEM CA bundle verifying the webhook.', { format: 'byte' }),
}));
defineType(`${P}.ServiceReference`, obj({
  namespace: str(), name: str(), path: str(), port: { kind: 'integer', format: 'int32' },
}, undefined, { required: ['namespace', 'name'] }));

defineType(`${P}.CustomResourceDefinitionStatus`, obj({
  conditions: arr(ax('CustomResourceDefinitionCondition'), 'NamesAccepted, Established, Terminating, ...', { listType: 'map', listMapKeys: ['type'] }),
  acceptedNames: ax('CustomResourceDefinitionNames', 'The names actually served.'),
  storedVersions: arr(str(), 'Every version objects have ever been stored in.', { listType: 'atomic' }),
}));
defineType(`${P}.CustomResourceDefinitionCondition`, obj({
  type: str(), status: str(), lastTransitionTime: timeRef(), reason: str(), message: str(),
  observedGeneration: int64(),
}, undefined, { required: ['type', 'status'] }));

const schemaList = (d: string) => arr(ax('JSONSchemaProps'), d);
defineType(`${P}.JSONSchemaProps`, obj({
  id: str(), $schema: str(), $ref: str(), description: str(), type: str(), format: str(), title: str(),
  default: any('Default value (JSON).'),
  maximum: num(), exclusiveMaximum: bool(), minimum: num(), exclusiveMinimum: bool(),
  maxLength: int64(), minLength: int64(), pattern: str(),
  maxItems: int64(), minItems: int64(), uniqueItems: bool(), multipleOf: num(),
  enum: arr(any()), maxProperties: int64(), minProperties: int64(),
  required: arr(str()),
  items: any('A schema, or an array of schemas.'),
  allOf: schemaList('allOf'), oneOf: schemaList('oneOf'), anyOf: schemaList('anyOf'), not: ax('JSONSchemaProps'),
  properties: map(ax('JSONSchemaProps')),
  additionalProperties: any('A schema or a boolean.'),
  patternProperties: map(ax('JSONSchemaProps')),
  dependencies: map(any()),
  additionalItems: any('A schema or a boolean.'),
  definitions: map(ax('JSONSchemaProps')),
  externalDocs: obj({ description: str(), url: str() }),
  example: any(),
  nullable: bool(),
  'x-kubernetes-preserve-unknown-fields': bool(),
  'x-kubernetes-embedded-resource': bool(),
  'x-kubernetes-int-or-string': bool(),
  'x-kubernetes-list-map-keys': arr(str()),
  'x-kubernetes-list-type': str(),
  'x-kubernetes-map-type': str(),
  'x-kubernetes-validations': arr(obj({
    rule: str(), message: str(), messageExpression: str(), reason: str(), fieldPath: str(), optionalOldSelf: bool(),
  }, undefined, { required: ['rule'] }), undefined, { listType: 'map', listMapKeys: ['rule'] }),
}, 'A JSON-Schema following Specification Draft 4 (http://json-schema.org/).'));
