// admissionregistration.k8s.io/v1 MutatingWebhookConfiguration and
// ValidatingWebhookConfiguration: which requests are sent to which admission webhooks.
import { str, int32, int64, obj, arr, bytes, defineType, ref, keyedList } from '../../schema.js';
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

// ValidatingAdmissionPolicy and its binding: CEL validations run in admission (ValidatingAdmissionPolicy plugin).
defineType('io.k8s.api.admissionregistration.v1.ValidatingAdmissionPolicy', obj({
  ...header,
  metadata: objectMeta(),
  spec: ar('ValidatingAdmissionPolicySpec', 'What the policy matches and validates.'),
  status: ar('ValidatingAdmissionPolicyStatus', 'The policy\'s type checking and conditions.'),
}, 'CEL validations that accept or refuse objects without changing them.', { gvk: [{ group: 'admissionregistration.k8s.io', version: 'v1', kind: 'ValidatingAdmissionPolicy' }] }));
defineType('io.k8s.api.admissionregistration.v1.ValidatingAdmissionPolicyList', obj({
  ...header, metadata: listMeta(), items: arr(ar('ValidatingAdmissionPolicy'), 'The objects in the list.'),
}, 'A list of ValidatingAdmissionPolicies.', { required: ['items'], gvk: [{ group: 'admissionregistration.k8s.io', version: 'v1', kind: 'ValidatingAdmissionPolicyList' }] }));
defineType('io.k8s.api.admissionregistration.v1.ValidatingAdmissionPolicySpec', obj({
  paramKind: ar('ParamKind', 'The kind of the parameter resource bindings refer to; none when the policy takes no parameters.'),
  matchConstraints: ar('MatchResources', 'The requests the policy applies to; required.'),
  validations: arr(ar('Validation'), 'CEL expressions that must all hold.', { listType: 'atomic' }),
  failurePolicy: str('Fail or Ignore when an expression cannot be evaluated or the parameters are missing; default Fail.', { enum: ['Fail', 'Ignore'] }),
  auditAnnotations: arr(ar('AuditAnnotation'), 'Audit annotations the policy adds.', { listType: 'atomic' }),
  matchConditions: keyedList(ar('MatchCondition'), 'name', 'CEL conditions a request must meet to be validated.'),
  variables: arr(ar('Variable'), 'Named CEL expressions the others read as variables.<name>.', { listType: 'atomic' }),
}));
defineType('io.k8s.api.admissionregistration.v1.ParamKind', obj({ apiVersion: str('group/version of the parameter resource.'), kind: str('Kind of the parameter resource.') }));
defineType('io.k8s.api.admissionregistration.v1.MatchResources', obj({
  namespaceSelector: labelSelector('Only objects in namespaces with these labels.'),
  objectSelector: labelSelector('Only objects with these labels.'),
  resourceRules: arr(ar('NamedRuleWithOperations'), 'Operations and resources matched.', { listType: 'atomic' }),
  excludeResourceRules: arr(ar('NamedRuleWithOperations'), 'Operations and resources never matched.', { listType: 'atomic' }),
  matchPolicy: str('Exact or Equivalent; default Equivalent.', { enum: ['Exact', 'Equivalent'] }),
}, undefined, { mapType: 'atomic' }));
defineType('io.k8s.api.admissionregistration.v1.NamedRuleWithOperations', obj({
  resourceNames: arr(str(), 'Only objects with these names; empty is all.', { listType: 'atomic' }),
  operations: arr(str(undefined, { enum: ['*', 'CREATE', 'UPDATE', 'DELETE', 'CONNECT'] }), undefined, { listType: 'atomic' }),
  apiGroups: arr(str(), undefined, { listType: 'atomic' }),
  apiVersions: arr(str(), undefined, { listType: 'atomic' }),
  resources: arr(str(), undefined, { listType: 'atomic' }),
  scope: str('Cluster, Namespaced or *.', { enum: ['Cluster', 'Namespaced', '*'] }),
}, undefined, { mapType: 'atomic' }));
defineType('io.k8s.api.admissionregistration.v1.Validation', obj({
  expression: str('A CEL expression that must be true.'),
  message: str('The refusal\'s message when the expression is false.'),
  reason: str('The refusal\'s reason: Unauthorized, Forbidden, Invalid or RequestEntityTooLarge; default Invalid.'),
  messageExpression: str('A CEL expression giving the refusal\'s message.'),
}, undefined, { required: ['expression'] }));
defineType('io.k8s.api.admissionregistration.v1.AuditAnnotation', obj({
  key: str('The annotation key, prefixed with the policy name.'), valueExpression: str('A CEL expression giving the value, or null for none.'),
}, undefined, { required: ['key', 'valueExpression'] }));
defineType('io.k8s.api.admissionregistration.v1.Variable', obj({
  name: str('The variable\'s name, read as variables.<name>.'), expression: str('A CEL expression giving its value.'),
}, undefined, { required: ['name', 'expression'] }));
defineType('io.k8s.api.admissionregistration.v1.ValidatingAdmissionPolicyStatus', obj({
  observedGeneration: int64('The generation the status describes.'),
  typeChecking: ar('TypeChecking', 'Warnings from type checking the expressions.'),
  conditions: keyedList(ref('io.k8s.apimachinery.pkg.apis.meta.v1.Condition'), 'type', 'The policy\'s conditions.'),
}));
defineType('io.k8s.api.admissionregistration.v1.TypeChecking', obj({
  expressionWarnings: arr(ar('ExpressionWarning'), 'One per expression with a type warning.', { listType: 'atomic' }),
}));
defineType('io.k8s.api.admissionregistration.v1.ExpressionWarning', obj({
  fieldRef: str('Path of the expression\'s field.'), warning: str('The warning.'),
}, undefined, { required: ['fieldRef', 'warning'] }));
defineType('io.k8s.api.admissionregistration.v1.ValidatingAdmissionPolicyBinding', obj({
  ...header,
  metadata: objectMeta(),
  spec: ar('ValidatingAdmissionPolicyBindingSpec', 'The policy, its parameters and what it applies to.'),
}, 'Binds a ValidatingAdmissionPolicy to parameters and resources.', { gvk: [{ group: 'admissionregistration.k8s.io', version: 'v1', kind: 'ValidatingAdmissionPolicyBinding' }] }));
defineType('io.k8s.api.admissionregistration.v1.ValidatingAdmissionPolicyBindingList', obj({
  ...header, metadata: listMeta(), items: arr(ar('ValidatingAdmissionPolicyBinding'), 'The objects in the list.'),
}, 'A list of ValidatingAdmissionPolicyBindings.', { required: ['items'], gvk: [{ group: 'admissionregistration.k8s.io', version: 'v1', kind: 'ValidatingAdmissionPolicyBindingList' }] }));
defineType('io.k8s.api.admissionregistration.v1.ValidatingAdmissionPolicyBindingSpec', obj({
  policyName: str('The ValidatingAdmissionPolicy bound.'),
  paramRef: ar('ParamRef', 'The parameter resource(s) the policy is evaluated with.'),
  matchResources: ar('MatchResources', 'Further limits which requests the policy applies to.'),
  validationActions: arr(str(undefined, { enum: ['Deny', 'Warn', 'Audit'] }), 'What a failed validation does: Deny, Warn, Audit.', { listType: 'set' }),
}));
defineType('io.k8s.api.admissionregistration.v1.ParamRef', obj({
  name: str('The parameter object\'s name.'),
  namespace: str('Its namespace; empty is the request\'s namespace for namespaced parameters.'),
  selector: labelSelector('Every parameter object with these labels.'),
  parameterNotFoundAction: str('Allow or Deny when no parameter object is found.', { enum: ['Allow', 'Deny'] }),
}, undefined, { mapType: 'atomic' }));
