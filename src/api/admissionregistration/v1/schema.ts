// admissionregistration.k8s.io/v1 MutatingWebhookConfiguration and
// ValidatingWebhookConfiguration: which requests are sent to which admission webhooks.
import { str, int32, obj, arr, bytes, defineType, ref, keyedList } from '../../schema.js';
import { labelSelector, listMeta, objectMeta } from '../../meta/v1/names.js';

const ar = (name: string, description?: string) => ref(`io.k8s.api.admissionregistration.v1.${name}`, description);
const header = {
  apiVersion: str('The versioned schema of this object, e.g. apps/v1; the server converts to it.'),
  kind: str('The type of this object in CamelCase, e.g. Deployment.'),
};

for (const kind of ['Mutating', 'Validating'] as const) {
  defineType(`io.k8s.api.admissionregistration.v1.${kind}WebhookConfiguration`, obj({
    ...header,
    metadata: objectMeta(),
    webhooks: keyedList(ar(`${kind}Webhook`), 'name', 'The webhooks and what they are sent.'),
  }, `Admission webhooks that ${kind === 'Mutating' ? 'may change' : 'accept or refuse'} objects.`, { gvk: [{ group: 'admissionregistration.k8s.io', version: 'v1', kind: `${kind}WebhookConfiguration` }] }));
  defineType(`io.k8s.api.admissionregistration.v1.${kind}WebhookConfigurationList`, obj({
    ...header,
    metadata: listMeta(),
    items: arr(ar(`${kind}WebhookConfiguration`), 'The objects in the list.'),
  }, `A list of ${kind}WebhookConfigurations.`, { required: ['items'], gvk: [{ group: 'admissionregistration.k8s.io', version: 'v1', kind: `${kind}WebhookConfigurationList` }] }));
  defineType(`io.k8s.api.admissionregistration.v1.${kind}Webhook`, obj({
    name: str('Fully qualified name of the webhook, e.g. imagepolicy.kubernetes.io.'),
    clientConfig: ar('WebhookClientConfig', 'How to reach the webhook.'),
    rules: arr(ar('RuleWithOperations'), 'Operations and resources the webhook cares about.', { listType: 'atomic' }),
    failurePolicy: str('Fail or Ignore when the webhook cannot be called; default Fail.', { enum: ['Fail', 'Ignore'] }),
    matchPolicy: str('Exact or Equivalent (the same resource in another version); default Equivalent.', { enum: ['Exact', 'Equivalent'] }),
    namespaceSelector: labelSelector('Only objects in namespaces with these labels.'),
    objectSelector: labelSelector('Only objects with these labels.'),
    sideEffects: str('None or NoneOnDryRun: whether calling the webhook changes anything outside the request.', { enum: ['None', 'NoneOnDryRun', 'Some', 'Unknown'] }),
    timeoutSeconds: int32('Seconds to wait for the webhook, 1 to 30; default 10.'),
    admissionReviewVersions: arr(str(), 'AdmissionReview versions the webhook accepts, preferred first.', { listType: 'atomic' }),
    ...(kind === 'Mutating' ? { reinvocationPolicy: str('Never or IfNeeded: call again when a later plugin changed the object.', { enum: ['Never', 'IfNeeded'] }) } : {}),
    matchConditions: keyedList(ar('MatchCondition'), 'name', 'CEL conditions a request must meet to be sent.'),
  }, undefined, { required: ['name', 'clientConfig', 'sideEffects', 'admissionReviewVersions'] }));
}

defineType('io.k8s.api.admissionregistration.v1.WebhookClientConfig', obj({
  url: str('https://host:port/path of the webhook.'),
  service: ar('ServiceReference', 'A Service in the cluster the webhook runs behind.'),
  caBundle: bytes('PEM CA certificates to verify the webhook\'s serving certificate.'),
}));

defineType('io.k8s.api.admissionregistration.v1.ServiceReference', obj({
  namespace: str(), name: str(), path: str(), port: int32('Default 443.'),
}, undefined, { required: ['namespace', 'name'] }));

defineType('io.k8s.api.admissionregistration.v1.RuleWithOperations', obj({
  operations: arr(str(undefined, { enum: ['*', 'CREATE', 'UPDATE', 'DELETE', 'CONNECT'] }), undefined, { listType: 'atomic' }),
  apiGroups: arr(str(), undefined, { listType: 'atomic' }),
  apiVersions: arr(str(), undefined, { listType: 'atomic' }),
  resources: arr(str(), undefined, { listType: 'atomic' }),
  scope: str('Cluster, Namespaced or *.', { enum: ['Cluster', 'Namespaced', '*'] }),
}));

defineType('io.k8s.api.admissionregistration.v1.MatchCondition', obj({
  name: str(), expression: str(),
}, undefined, { required: ['name', 'expression'] }));
