// admissionregistration.k8s.io/v1 MutatingWebhookConfiguration and
// ValidatingWebhookConfiguration: which requests are sent to which admission webhooks.
import { str, int32, int64, obj, arr, bytes, defineType, ref, keyedList, pb } from '../../schema.js';
import { labelSelector, listMeta, objectMeta } from '../../meta/v1/names.js';

const ar = (name: string, description?: string) => ref(`io.k8s.api.admissionregistration.v1.${name}`, description);
const header = {
  apiVersion: str('The versioned schema of this object, e.g. apps/v1; the server converts to it.'),
  kind: str('The type of this object in CamelCase, e.g. Deployment.'),
};

// Numbered as upstream's generated.proto (typed clients send these as protobuf).
for (const kind of ['Mutating', 'Validating'] as const) {
  defineType(`io.k8s.api.admissionregistration.v1.${kind}WebhookConfiguration`, obj({
    ...header,
    metadata: pb(1, objectMeta()),
    webhooks: pb(2, keyedList(ar(`${kind}Webhook`), 'name', 'The webhooks and what they are sent.')),
  }, `Admission webhooks that ${kind === 'Mutating' ? 'may change' : 'accept or refuse'} objects.`, { gvk: [{ group: 'admissionregistration.k8s.io', version: 'v1', kind: `${kind}WebhookConfiguration` }] }));
  defineType(`io.k8s.api.admissionregistration.v1.${kind}WebhookConfigurationList`, obj({
    ...header,
    metadata: listMeta(),
    items: arr(ar(`${kind}WebhookConfiguration`), 'The objects in the list.'),
  }, `A list of ${kind}WebhookConfigurations.`, { required: ['items'], gvk: [{ group: 'admissionregistration.k8s.io', version: 'v1', kind: `${kind}WebhookConfigurationList` }] }));
  // The two differ after admissionReviewVersions: Mutating has reinvocationPolicy at 10.
  const mutating = kind === 'Mutating';
  defineType(`io.k8s.api.admissionregistration.v1.${kind}Webhook`, obj({
    name: pb(1, str('Fully qualified name of the webhook, e.g. imagepolicy.kubernetes.io.'), 'keepZero'),
    clientConfig: pb(2, ar('WebhookClientConfig', 'How to reach the webhook.')),
    rules: pb(3, arr(ar('RuleWithOperations'), 'Operations and resources the webhook cares about.', { listType: 'atomic' })),
    failurePolicy: pb(4, str('Fail or Ignore when the webhook cannot be called; default Fail.', { enum: ['Fail', 'Ignore'] }), 'keepZero'),
    matchPolicy: pb(9, str('Exact or Equivalent (the same resource in another version); default Equivalent.', { enum: ['Exact', 'Equivalent'] }), 'keepZero'),
    namespaceSelector: pb(5, labelSelector('Only objects in namespaces with these labels.')),
    objectSelector: pb(mutating ? 11 : 10, labelSelector('Only objects with these labels.')),
    sideEffects: pb(6, str('None or NoneOnDryRun: whether calling the webhook changes anything outside the request.', { enum: ['None', 'NoneOnDryRun', 'Some', 'Unknown'] }), 'keepZero'),
    timeoutSeconds: pb(7, int32('Seconds to wait for the webhook, 1 to 30; default 10.'), 'keepZero'),
    admissionReviewVersions: pb(8, arr(str(), 'AdmissionReview versions the webhook accepts, preferred first.', { listType: 'atomic' })),
    ...(mutating ? { reinvocationPolicy: pb(10, str('Never or IfNeeded: call again when a later plugin changed the object.', { enum: ['Never', 'IfNeeded'] }), 'keepZero') } : {}),
    matchConditions: pb(mutating ? 12 : 11, keyedList(ar('MatchCondition'), 'name', 'CEL conditions a request must meet to be sent.')),
  }, undefined, { required: ['name', 'clientConfig', 'sideEffects', 'admissionReviewVersions'] }));
}

defineType('io.k8s.api.admissionregistration.v1.WebhookClientConfig', obj({
  url: pb(3, str('https://host:port/path of the webhook.'), 'keepZero'),
  service: pb(1, ar('ServiceReference', 'A Service in the cluster the webhook runs behind.')),
  caBundle: pb(2, bytes('PEM CA certificates to verify the webhook\'s serving certificate.')),
}));

defineType('io.k8s.api.admissionregistration.v1.ServiceReference', obj({
  namespace: pb(1, str(), 'keepZero'), name: pb(2, str(), 'keepZero'), path: pb(3, str(), 'keepZero'), port: pb(4, int32('Default 443.'), 'keepZero'),
}, undefined, { required: ['namespace', 'name'] }));

// Go embeds Rule in RuleWithOperations; JSON inlines it.
defineType('io.k8s.api.admissionregistration.v1.RuleWithOperations', obj({
  operations: pb(1, arr(str(undefined, { enum: ['*', 'CREATE', 'UPDATE', 'DELETE', 'CONNECT'] }), undefined, { listType: 'atomic' })),
  apiGroups: pb(1, arr(str(), undefined, { listType: 'atomic' }), { in: 'Rule' }),
  apiVersions: pb(2, arr(str(), undefined, { listType: 'atomic' }), { in: 'Rule' }),
  resources: pb(3, arr(str(), undefined, { listType: 'atomic' }), { in: 'Rule' }),
  scope: pb(4, str('Cluster, Namespaced or *.', { enum: ['Cluster', 'Namespaced', '*'] }), { in: 'Rule', keepZero: true }),
}, undefined, { protoEmbeds: { Rule: 2 } }));

defineType('io.k8s.api.admissionregistration.v1.MatchCondition', obj({
  name: pb(1, str('Identifies the condition; unique in the list.'), 'keepZero'), expression: pb(2, str('A CEL expression that must be true.'), 'keepZero'),
}, undefined, { required: ['name', 'expression'] }));

// ValidatingAdmissionPolicy and its binding: CEL validations run in admission (the
// ValidatingAdmissionPolicy plugin), numbered as upstream's generated.proto.
const vapGVK = (kind: string) => ({ gvk: [{ group: 'admissionregistration.k8s.io', version: 'v1', kind }] });

defineType('io.k8s.api.admissionregistration.v1.ValidatingAdmissionPolicy', obj({
  ...header,
  metadata: pb(1, objectMeta()),
  spec: pb(2, ar('ValidatingAdmissionPolicySpec', 'What the policy matches and validates.')),
  status: pb(3, ar('ValidatingAdmissionPolicyStatus', 'The policy\'s type checking and conditions.')),
}, 'CEL validations that accept or refuse objects without changing them.', vapGVK('ValidatingAdmissionPolicy')));
defineType('io.k8s.api.admissionregistration.v1.ValidatingAdmissionPolicyList', obj({
  ...header, metadata: listMeta(), items: arr(ar('ValidatingAdmissionPolicy'), 'The objects in the list.'),
}, 'A list of ValidatingAdmissionPolicies.', { required: ['items'], ...vapGVK('ValidatingAdmissionPolicyList') }));
defineType('io.k8s.api.admissionregistration.v1.ValidatingAdmissionPolicySpec', obj({
  paramKind: pb(1, ar('ParamKind', 'The kind of the parameter resource bindings refer to; none when the policy takes no parameters.')),
  matchConstraints: pb(2, ar('MatchResources', 'The requests the policy applies to; required.')),
  validations: pb(3, arr(ar('Validation'), 'CEL expressions that must all hold.', { listType: 'atomic' })),
  failurePolicy: pb(4, str('Fail or Ignore when an expression cannot be evaluated or the parameters are missing; default Fail.', { enum: ['Fail', 'Ignore'] }), 'keepZero'),
  auditAnnotations: pb(5, arr(ar('AuditAnnotation'), 'Audit annotations the policy adds.', { listType: 'atomic' })),
  matchConditions: pb(6, keyedList(ar('MatchCondition'), 'name', 'CEL conditions a request must meet to be validated.')),
  variables: pb(7, keyedList(ar('Variable'), 'name', 'Named CEL expressions the others read as variables.<name>.')),
}));
defineType('io.k8s.api.admissionregistration.v1.ParamKind', obj({
  apiVersion: pb(1, str('group/version of the parameter resource.')), kind: pb(2, str('Kind of the parameter resource.')),
}, undefined, { mapType: 'atomic' }));
defineType('io.k8s.api.admissionregistration.v1.MatchResources', obj({
  namespaceSelector: pb(1, labelSelector('Only objects in namespaces with these labels.')),
  objectSelector: pb(2, labelSelector('Only objects with these labels.')),
  resourceRules: pb(3, arr(ar('NamedRuleWithOperations'), 'Operations and resources matched.', { listType: 'atomic' })),
  excludeResourceRules: pb(4, arr(ar('NamedRuleWithOperations'), 'Operations and resources never matched.', { listType: 'atomic' })),
  matchPolicy: pb(7, str('Exact or Equivalent; default Equivalent.', { enum: ['Exact', 'Equivalent'] }), 'keepZero'),
}, undefined, { mapType: 'atomic' }));
// Go embeds RuleWithOperations (which embeds Rule); JSON inlines both.
defineType('io.k8s.api.admissionregistration.v1.NamedRuleWithOperations', obj({
  resourceNames: pb(1, arr(str(), 'Only objects with these names; empty is all.', { listType: 'atomic' })),
  operations: pb(1, arr(str(undefined, { enum: ['*', 'CREATE', 'UPDATE', 'DELETE', 'CONNECT'] }), undefined, { listType: 'atomic' }), { in: 'RuleWithOperations' }),
  apiGroups: pb(1, arr(str(), undefined, { listType: 'atomic' }), { in: 'Rule' }),
  apiVersions: pb(2, arr(str(), undefined, { listType: 'atomic' }), { in: 'Rule' }),
  resources: pb(3, arr(str(), undefined, { listType: 'atomic' }), { in: 'Rule' }),
  scope: pb(4, str('Cluster, Namespaced or *.', { enum: ['Cluster', 'Namespaced', '*'] }), { in: 'Rule', keepZero: true }),
}, undefined, { mapType: 'atomic', protoEmbeds: { RuleWithOperations: 2, Rule: 2 }, protoEmbedIn: { Rule: 'RuleWithOperations' } }));
defineType('io.k8s.api.admissionregistration.v1.Validation', obj({
  expression: pb(1, str('A CEL expression that must be true.'), 'keepZero'),
  message: pb(2, str('The refusal\'s message when the expression is false.')),
  reason: pb(3, str('The refusal\'s reason: Unauthorized, Forbidden, Invalid or RequestEntityTooLarge; default Invalid.'), 'keepZero'),
  messageExpression: pb(4, str('A CEL expression giving the refusal\'s message.')),
}, undefined, { required: ['expression'] }));
defineType('io.k8s.api.admissionregistration.v1.AuditAnnotation', obj({
  key: pb(1, str('The annotation key, prefixed with the policy name.'), 'keepZero'), valueExpression: pb(2, str('A CEL expression giving the value, or null for none.'), 'keepZero'),
}, undefined, { required: ['key', 'valueExpression'] }));
defineType('io.k8s.api.admissionregistration.v1.Variable', obj({
  name: pb(1, str('The variable\'s name, read as variables.<name>.'), 'keepZero'), expression: pb(2, str('A CEL expression giving its value.'), 'keepZero'),
}, undefined, { required: ['name', 'expression'], mapType: 'atomic' }));
defineType('io.k8s.api.admissionregistration.v1.ValidatingAdmissionPolicyStatus', obj({
  observedGeneration: pb(1, int64('The generation the status describes.')),
  typeChecking: pb(2, ar('TypeChecking', 'Warnings from type checking the expressions.')),
  conditions: pb(3, keyedList(ref('io.k8s.apimachinery.pkg.apis.meta.v1.Condition'), 'type', 'The policy\'s conditions.')),
}));
defineType('io.k8s.api.admissionregistration.v1.TypeChecking', obj({
  expressionWarnings: pb(1, arr(ar('ExpressionWarning'), 'One per expression with a type warning.', { listType: 'atomic' })),
}));
defineType('io.k8s.api.admissionregistration.v1.ExpressionWarning', obj({
  fieldRef: pb(2, str('Path of the expression\'s field.'), 'keepZero'), warning: pb(3, str('The warning.'), 'keepZero'),
}, undefined, { required: ['fieldRef', 'warning'] }));
defineType('io.k8s.api.admissionregistration.v1.ValidatingAdmissionPolicyBinding', obj({
  ...header,
  metadata: pb(1, objectMeta()),
  spec: pb(2, ar('ValidatingAdmissionPolicyBindingSpec', 'The policy, its parameters and what it applies to.')),
}, 'Binds a ValidatingAdmissionPolicy to parameters and resources.', vapGVK('ValidatingAdmissionPolicyBinding')));
defineType('io.k8s.api.admissionregistration.v1.ValidatingAdmissionPolicyBindingList', obj({
  ...header, metadata: listMeta(), items: arr(ar('ValidatingAdmissionPolicyBinding'), 'The objects in the list.'),
}, 'A list of ValidatingAdmissionPolicyBindings.', { required: ['items'], ...vapGVK('ValidatingAdmissionPolicyBindingList') }));
defineType('io.k8s.api.admissionregistration.v1.ValidatingAdmissionPolicyBindingSpec', obj({
  policyName: pb(1, str('The ValidatingAdmissionPolicy bound.')),
  paramRef: pb(2, ar('ParamRef', 'The parameter resource(s) the policy is evaluated with.')),
  matchResources: pb(3, ar('MatchResources', 'Further limits which requests the policy applies to.')),
  validationActions: pb(4, arr(str(undefined, { enum: ['Deny', 'Warn', 'Audit'] }), 'What a failed validation does: Deny, Warn, Audit.', { listType: 'set' })),
}));
defineType('io.k8s.api.admissionregistration.v1.ParamRef', obj({
  name: pb(1, str('The parameter object\'s name.')),
  namespace: pb(2, str('Its namespace; empty is the request\'s namespace for namespaced parameters.')),
  selector: pb(3, labelSelector('Every parameter object with these labels.')),
  parameterNotFoundAction: pb(4, str('Allow or Deny when no parameter object is found.', { enum: ['Allow', 'Deny'] }), 'keepZero'),
}, undefined, { mapType: 'atomic' }));
