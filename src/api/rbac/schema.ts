// rbac.authorization.k8s.io v1 and v1beta1: Role, ClusterRole (with aggregationRule),
// RoleBinding, ClusterRoleBinding. v1beta1 has the same shape as v1 (it is served converted,
// with a deprecation warning), so both versions are defined from one description.
import { str, obj, arr, defineType, ref, type RefSchema, pb } from '../schema.js';
import { labelSelector, listMeta, objectMeta } from '../meta/v1/names.js';

export const RBAC_VERSIONS = ['v1', 'v1beta1'] as const;

/** A reference to a io.k8s.api.rbac.<version> type by its short name. */
export const rbacRef = (version: string, name: string, description?: string): RefSchema => ref(`io.k8s.api.rbac.${version}.${name}`, description);

const typeMeta = {
  apiVersion: str('The versioned schema of this object, e.g. rbac.authorization.k8s.io/v1; the server converts to it.'),
  kind: str('The type of this object in CamelCase, e.g. Role.'),
};

for (const v of RBAC_VERSIONS) {
  const gvk = (kind: string) => [{ group: 'rbac.authorization.k8s.io', version: v, kind }];
  const name = (n: string) => `io.k8s.api.rbac.${v}.${n}`;
  const list = (kind: string, what: string) => defineType(name(`${kind}List`), obj({
    ...typeMeta, metadata: listMeta(), items: arr(rbacRef(v, kind), 'The objects in the list.'),
  }, `A list of ${what}.`, { required: ['items'], gvk: gvk(`${kind}List`) }));

  defineType(name('PolicyRule'), obj({
    verbs: pb(1, arr(str(), 'Verbs the rule allows (get, list, create, ...; `*` is all).', { listType: 'atomic' })),
    apiGroups: pb(2, arr(str(), 'API groups of the resources; "" is the core group, `*` all.', { listType: 'atomic' })),
    resources: pb(3, arr(str(), 'Resources (`pods`, `pods/log`); `*` is all.', { listType: 'atomic' })),
    resourceNames: pb(4, arr(str(), 'Optional allow-list of object names.', { listType: 'atomic' })),
    nonResourceURLs: pb(5, arr(str(), 'Non-resource paths (`/healthz`, `/api/*`); only in ClusterRoles.', { listType: 'atomic' })),
  }, 'What a role allows: verbs on resources or non-resource URLs.', { required: ['verbs'] }));
  defineType(name('Subject'), obj({
    kind: pb(1, str('User, Group or ServiceAccount.'), 'keepZero'),
    apiGroup: pb(2, str('"" for ServiceAccount, rbac.authorization.k8s.io for User and Group.')),
    name: pb(3, str('Name of the subject.'), 'keepZero'),
    namespace: pb(4, str('Namespace of a ServiceAccount subject.')),
  }, 'A user, group or service account a binding grants to.', { required: ['kind', 'name'] }));
  defineType(name('RoleRef'), obj({
    apiGroup: pb(1, str('Group of the referenced role: rbac.authorization.k8s.io.'), 'keepZero'),
    kind: pb(2, str('Role or ClusterRole.'), 'keepZero'),
    name: pb(3, str('Name of the referenced role.'), 'keepZero'),
  }, 'The role a binding grants; immutable.', { required: ['apiGroup', 'kind', 'name'] }));
  defineType(name('AggregationRule'), obj({
    clusterRoleSelectors: pb(1, arr(labelSelector(), 'ClusterRoles whose rules are unioned into this one.', { listType: 'atomic' })),
  }, 'How a ClusterRole is aggregated from others.'));

  defineType(name('Role'), obj({
    ...typeMeta, metadata: pb(1, objectMeta()),
    rules: pb(2, arr(rbacRef(v, 'PolicyRule'), 'The rules of the role.', { listType: 'atomic' })),
  }, 'Namespaced rules, granted by a RoleBinding.', { gvk: gvk('Role') }));
  defineType(name('ClusterRole'), obj({
    ...typeMeta, metadata: pb(1, objectMeta()),
    rules: pb(2, arr(rbacRef(v, 'PolicyRule'), 'The rules of the role.', { listType: 'atomic' })),
    aggregationRule: pb(3, rbacRef(v, 'AggregationRule', 'When set, the controller manager fills rules from the selected ClusterRoles.')),
  }, 'Cluster-wide rules, granted by a ClusterRoleBinding or, in one namespace, a RoleBinding.', { gvk: gvk('ClusterRole') }));
  for (const kind of ['RoleBinding', 'ClusterRoleBinding']) {
    defineType(name(kind), obj({
      ...typeMeta, metadata: pb(1, objectMeta()),
      subjects: pb(2, arr(rbacRef(v, 'Subject'), 'Who the role is granted to.', { listType: 'atomic' })),
      roleRef: pb(3, rbacRef(v, 'RoleRef', 'The role granted; immutable.')),
    }, kind === 'RoleBinding' ? 'Grants a Role or ClusterRole within a namespace.' : 'Grants a ClusterRole across the cluster.', { required: ['roleRef'], gvk: gvk(kind) }));
  }
  list('Role', 'roles'); list('ClusterRole', 'cluster roles'); list('RoleBinding', 'role bindings'); list('ClusterRoleBinding', 'cluster role bindings');
}
