// authorization.k8s.io/v1: the access reviews a client posts and reads the answer of; none is stored.
import { str, bool, obj, arr, map, defineType, ref, pb } from '../../schema.js';
import { metaRef, objectMeta } from '../../meta/v1/names.js';

const authz = (name: string, description?: string) => ref(`io.k8s.api.authorization.v1.${name}`, description);
const gvk = (kind: string) => [{ group: 'authorization.k8s.io', version: 'v1', kind }];
const typeMeta = {
  apiVersion: str('The versioned schema of this object, e.g. authorization.k8s.io/v1.'),
  kind: str('The type of this object in CamelCase, e.g. SubjectAccessReview.'),
};

for (const [kind, spec, what] of [
  ['SubjectAccessReview', 'SubjectAccessReviewSpec', 'Asks whether a user or group may perform an action.'],
  ['LocalSubjectAccessReview', 'SubjectAccessReviewSpec', 'Asks whether a user or group may perform an action in one namespace.'],
  ['SelfSubjectAccessReview', 'SelfSubjectAccessReviewSpec', 'Asks whether the caller may perform an action (kubectl auth can-i).'],
] as const) {
  defineType(`io.k8s.api.authorization.v1.${kind}`, obj({
    ...typeMeta,
    metadata: pb(1, objectMeta()),
    spec: pb(2, authz(spec, 'The action asked about.')),
    status: pb(3, authz('SubjectAccessReviewStatus', 'The answer, filled in by the server.')),
  }, what, { required: ['spec'], gvk: gvk(kind) }));
}

defineType('io.k8s.api.authorization.v1.SubjectAccessReviewSpec', obj({
  resourceAttributes: pb(1, authz('ResourceAttributes', 'The resource request asked about.')),
  nonResourceAttributes: pb(2, authz('NonResourceAttributes', 'The non-resource request asked about.')),
  user: pb(3, str('The user asked about.')),
  groups: pb(4, arr(str(), 'The groups asked about.', { listType: 'atomic' })),
  extra: pb(5, map(arr(str()), 'Further user attributes the authorizer may read.')),
  uid: pb(6, str('The UID of the user asked about.')),
}, 'The action and the subject; exactly one of resourceAttributes and nonResourceAttributes is set.'));

defineType('io.k8s.api.authorization.v1.SelfSubjectAccessReviewSpec', obj({
  resourceAttributes: pb(1, authz('ResourceAttributes', 'The resource request asked about.')),
  nonResourceAttributes: pb(2, authz('NonResourceAttributes', 'The non-resource request asked about.')),
}, 'The action; exactly one of the two is set.'));

defineType('io.k8s.api.authorization.v1.ResourceAttributes', obj({
  namespace: pb(1, str('The namespace of the action; empty for cluster-scoped resources or all namespaces.')),
  verb: pb(2, str('get, list, watch, create, update, patch, delete, deletecollection, or a custom verb; "*" is all.')),
  group: pb(3, str('The API group of the resource; "*" is all.')),
  version: pb(4, str('The API version of the resource; "*" is all.')),
  resource: pb(5, str('The resource; "*" is all.')),
  subresource: pb(6, str('The subresource; empty for none.')),
  name: pb(7, str('The name of the object; empty for all.')),
  fieldSelector: pb(8, authz('FieldSelectorAttributes', 'The field selector of a list or watch.')),
  labelSelector: pb(9, authz('LabelSelectorAttributes', 'The label selector of a list or watch.')),
}, 'A request to a resource, as the authorizer sees it.'));

defineType('io.k8s.api.authorization.v1.FieldSelectorAttributes', obj({
  rawSelector: pb(1, str('The selector as sent in the query string.')),
  requirements: pb(2, arr(metaRef('FieldSelectorRequirement'), 'The selector parsed.', { listType: 'atomic' })),
}, 'A field selector; rawSelector or requirements, not both.'));

defineType('io.k8s.api.authorization.v1.LabelSelectorAttributes', obj({
  rawSelector: pb(1, str('The selector as sent in the query string.')),
  requirements: pb(2, arr(metaRef('LabelSelectorRequirement'), 'The selector parsed.', { listType: 'atomic' })),
}, 'A label selector; rawSelector or requirements, not both.'));

defineType('io.k8s.api.authorization.v1.NonResourceAttributes', obj({
  path: pb(1, str('The URL path.')),
  verb: pb(2, str('The HTTP verb in lower case.')),
}, 'A request to a non-resource URL.'));

defineType('io.k8s.api.authorization.v1.SubjectAccessReviewStatus', obj({
  allowed: pb(1, bool('Whether the action is allowed.'), 'keepZero'),
  denied: pb(4, bool('Whether the action is denied outright; false with allowed false means no opinion.')),
  reason: pb(2, str('Why it is allowed or denied.')),
  evaluationError: pb(3, str('An error met while checking; the answer may still stand.')),
}, 'The answer to an access review.', { required: ['allowed'] }));

defineType('io.k8s.api.authorization.v1.SelfSubjectRulesReview', obj({
  ...typeMeta,
  metadata: pb(1, objectMeta()),
  spec: pb(2, authz('SelfSubjectRulesReviewSpec', 'The namespace asked about.')),
  // The server's answer; a client's is not read.
  status: authz('SubjectRulesReviewStatus', 'The rules, filled in by the server.'),
}, 'Asks what the caller may do in a namespace (kubectl auth can-i --list).', { required: ['spec'], gvk: gvk('SelfSubjectRulesReview') }));

defineType('io.k8s.api.authorization.v1.SelfSubjectRulesReviewSpec', obj({
  namespace: pb(1, str('The namespace to list the rules of.')),
}, 'The namespace of a rules review.'));

defineType('io.k8s.api.authorization.v1.SubjectRulesReviewStatus', obj({
  resourceRules: arr(authz('ResourceRule'), 'What may be done to resources.', { listType: 'atomic' }),
  nonResourceRules: arr(authz('NonResourceRule'), 'What may be done to non-resource URLs.', { listType: 'atomic' }),
  incomplete: bool('True when an authorizer cannot list its rules, so the list may be short.'),
  evaluationError: str('Why the list may be incomplete.'),
}, 'The rules of a subject in a namespace.', { required: ['resourceRules', 'nonResourceRules', 'incomplete'] }));

defineType('io.k8s.api.authorization.v1.ResourceRule', obj({
  verbs: arr(str(), 'The verbs allowed; "*" is all.', { listType: 'atomic' }),
  apiGroups: arr(str(), 'The API groups; "*" is all.', { listType: 'atomic' }),
  resources: arr(str(), 'The resources; "*" is all.', { listType: 'atomic' }),
  resourceNames: arr(str(), 'The object names; empty for all.', { listType: 'atomic' }),
}, 'Verbs allowed on resources.', { required: ['verbs'] }));

defineType('io.k8s.api.authorization.v1.NonResourceRule', obj({
  verbs: arr(str(), 'The verbs allowed; "*" is all.', { listType: 'atomic' }),
  nonResourceURLs: arr(str(), 'The URL paths; a trailing "*" matches a prefix.', { listType: 'atomic' }),
}, 'Verbs allowed on non-resource URLs.', { required: ['verbs'] }));
