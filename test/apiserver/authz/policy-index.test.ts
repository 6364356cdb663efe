// The RBAC authorizer's subject index: bindings found by user, group and ServiceAccount; a
// binding's add, update (subjects change) and removal, and a role's change, are seen by the
// next decision, whatever was cached for that user before.
import t from 'tap';
import { PolicyIndex, type BindingObject } from '../../../src/apiserver/authz/rbac/policy-index.js';
import { RBACAuthorizer } from '../../../src/apiserver/authz/rbac/authorizer.js';
import type { Attributes } from '../../../src/apiserver/authz/index.js';
import type { UserInfo } from '../../../src/apiserver/authn/index.js';

const alice: UserInfo = { username: 'alice', groups: ['devs', 'system:authenticated'] };
const bob: UserInfo = { username: 'bob', groups: ['system:authenticated'] };
const sa: UserInfo = { username: 'system:serviceaccount:ns1:builder', groups: ['system:serviceaccounts', 'system:authenticated'] };
const get = (resource: string, namespace: string, group = ''): Attributes =>
  ({ isResourceRequest: true, path: '', verb: 'get', group, resource, subresource: '', namespace, name: 'x' });
const binding = (kind: string, roleKind: string, role: string, subjects: BindingObject['subjects']): BindingObject =>
  ({ metadata: { name: kind }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: roleKind, name: role }, subjects });

function setup() {
  const index = new PolicyIndex();
  const rbac = new RBACAuthorizer(index);
  index.setClusterRole('read-pods', [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }]);
  index.setRole('ns1', 'read-cm', [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }]);
  const allowed = (u: UserInfo, a: Attributes) => rbac.decide(u, a).decision === 'allow';
  return { index, rbac, allowed };
}

t.test('user, group and ServiceAccount subjects; namespaced vs cluster bindings', async (t) => {
  const { index, allowed } = setup();
  index.setBinding('', 'crb', binding('crb', 'ClusterRole', 'read-pods', [{ kind: 'Group', name: 'devs' }]));
  index.setBinding('ns1', 'rb', binding('rb', 'Role', 'read-cm', [{ kind: 'User', name: 'bob' }, { kind: 'ServiceAccount', name: 'builder' }]));
  index.setBinding('ns2', 'rb2', binding('rb2', 'ClusterRole', 'read-pods', [{ kind: 'User', name: 'bob' }]));
  t.ok(allowed(alice, get('pods', 'any')), 'group via ClusterRoleBinding: every namespace');
  t.ok(allowed(alice, get('pods', '')), 'and cluster scope');
  t.notOk(allowed(alice, get('configmaps', 'ns1')));
  t.ok(allowed(bob, get('configmaps', 'ns1')), 'user via RoleBinding');
  t.notOk(allowed(bob, get('configmaps', 'ns2')), 'a RoleBinding grants only in its namespace');
  t.ok(allowed(bob, get('pods', 'ns2')), 'a ClusterRole through a RoleBinding: that namespace');
  t.notOk(allowed(bob, get('pods', 'ns1')));
  t.notOk(allowed(bob, get('pods', '')), 'and never cluster-wide');
  t.ok(allowed(sa, get('configmaps', 'ns1')), 'ServiceAccount subject without namespace: the binding\'s');
  t.equal(index.bindingCount, 3);
});

t.test('binding add, update and removal reach cached users', async (t) => {
  const { index, allowed } = setup();
  t.notOk(allowed(bob, get('pods', 'a')), 'nothing bound: no opinion');
  index.setBinding('', 'crb', binding('crb', 'ClusterRole', 'read-pods', [{ kind: 'User', name: 'bob' }]));
  t.ok(allowed(bob, get('pods', 'a')), 'added');
  index.setBinding('', 'crb', binding('crb', 'ClusterRole', 'read-pods', [{ kind: 'User', name: 'carol' }]));
  t.notOk(allowed(bob, get('pods', 'a')), 'updated: bob no longer a subject');
  t.ok(allowed({ username: 'carol', groups: [] }, get('pods', 'a')), 'carol is');
  index.setBinding('', 'crb', undefined);
  t.notOk(allowed({ username: 'carol', groups: [] }, get('pods', 'a')), 'removed');
  t.equal(index.bindingCount, 0);
});

t.test('role changes and a role that does not exist yet', async (t) => {
  const { index, allowed } = setup();
  index.setBinding('', 'crb', binding('crb', 'ClusterRole', 'later', [{ kind: 'User', name: 'bob' }]));
  t.notOk(allowed(bob, get('secrets', 'a')), 'a missing role grants nothing');
  index.setClusterRole('later', [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'] }]);
  t.ok(allowed(bob, get('secrets', 'a')), 'the role appears');
  index.setClusterRole('later', [{ verbs: ['list'], apiGroups: [''], resources: ['secrets'] }]);
  t.notOk(allowed(bob, get('secrets', 'a')), 'the role changes');
  index.setClusterRole('later', undefined);
  t.strictSame(index.rulesFor(bob).cluster, []);
});

t.test('a user sees only the bindings of its own subjects', async (t) => {
  const { index, rbac } = setup();
  for (let i = 0; i < 1000; i++) index.setBinding(`ns${i}`, `rb${i}`, binding(`rb${i}`, 'ClusterRole', 'read-pods', [{ kind: 'User', name: `user${i}` }]));
  const set = index.rulesFor({ username: 'user7', groups: [] });
  t.strictSame([...set.namespaced.keys()], ['ns7']);
  t.equal(rbac.decide({ username: 'user7', groups: [] }, get('pods', 'ns7')).reason, 'RBAC: allowed by RoleBinding "rb7/ns7" of ClusterRole "read-pods" to User "user7"');
});
