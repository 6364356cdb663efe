// RBAC rule matching and coverage as upstream evaluates them: wildcards, subresources
// (`pods/log`, `*/scale`), resourceNames, non-resource URLs with a `*` suffix; and the
// escalation check's coverage of one rule set by another.
import t from 'tap';
import { ruleAllows, uncovered, compactString, type PolicyRule } from '../../../src/apiserver/authz/rbac/rules.js';
import type { Attributes } from '../../../src/apiserver/authz/index.js';

const res = (verb: string, group: string, resource: string, opts: Partial<Attributes> = {}): Attributes =>
  ({ isResourceRequest: true, path: '', verb, group, resource, subresource: '', namespace: 'ns', name: '', ...opts });
const url = (verb: string, path: string): Attributes =>
  ({ isResourceRequest: false, path, verb, group: '', resource: '', subresource: '', namespace: '', name: '' });

const cases: { name: string; rule: PolicyRule; attrs: Attributes; allowed: boolean }[] = [
  { name: 'exact verb, group, resource', rule: { verbs: ['get'], apiGroups: [''], resources: ['pods'] }, attrs: res('get', '', 'pods'), allowed: true },
  { name: 'another verb', rule: { verbs: ['get'], apiGroups: [''], resources: ['pods'] }, attrs: res('list', '', 'pods'), allowed: false },
  { name: 'another group', rule: { verbs: ['get'], apiGroups: [''], resources: ['deployments'] }, attrs: res('get', 'apps', 'deployments'), allowed: false },
  { name: '* verbs', rule: { verbs: ['*'], apiGroups: [''], resources: ['pods'] }, attrs: res('deletecollection', '', 'pods'), allowed: true },
  { name: '* groups and resources', rule: { verbs: ['list'], apiGroups: ['*'], resources: ['*'] }, attrs: res('list', 'apps', 'deployments'), allowed: true },
  { name: 'resource does not cover its subresource', rule: { verbs: ['get'], apiGroups: [''], resources: ['pods'] }, attrs: res('get', '', 'pods', { subresource: 'log', name: 'p' }), allowed: false },
  { name: 'pods/log', rule: { verbs: ['get'], apiGroups: [''], resources: ['pods/log'] }, attrs: res('get', '', 'pods', { subresource: 'log', name: 'p' }), allowed: true },
  { name: '*/scale', rule: { verbs: ['update'], apiGroups: ['apps'], resources: ['*/scale'] }, attrs: res('update', 'apps', 'deployments', { subresource: 'scale', name: 'd' }), allowed: true },
  { name: '* covers subresources', rule: { verbs: ['get'], apiGroups: [''], resources: ['*'] }, attrs: res('get', '', 'pods', { subresource: 'log', name: 'p' }), allowed: true },
  { name: 'resourceNames: listed name', rule: { verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'] }, attrs: res('get', '', 'configmaps', { name: 'a' }), allowed: true },
  { name: 'resourceNames: other name', rule: { verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'] }, attrs: res('get', '', 'configmaps', { name: 'b' }), allowed: false },
  { name: 'resourceNames: a list has no name', rule: { verbs: ['list'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'] }, attrs: res('list', '', 'configmaps'), allowed: false },
  { name: 'impersonate verb', rule: { verbs: ['impersonate'], apiGroups: [''], resources: ['users'] }, attrs: res('impersonate', '', 'users', { name: 'bob', namespace: '' }), allowed: true },
  { name: 'URL exact', rule: { verbs: ['get'], nonResourceURLs: ['/healthz'] }, attrs: url('get', '/healthz'), allowed: true },
  { name: 'URL prefix *', rule: { verbs: ['get'], nonResourceURLs: ['/logs/*'] }, attrs: url('get', '/logs/a/b'), allowed: true },
  { name: 'URL prefix * needs the prefix', rule: { verbs: ['get'], nonResourceURLs: ['/logs/*'] }, attrs: url('get', '/log'), allowed: false },
  { name: 'URL *', rule: { verbs: ['*'], nonResourceURLs: ['*'] }, attrs: url('post', '/anything'), allowed: true },
  { name: 'URL rule never matches a resource', rule: { verbs: ['*'], nonResourceURLs: ['*'] }, attrs: res('get', '', 'pods'), allowed: false },
  { name: 'resource rule never matches a URL', rule: { verbs: ['*'], apiGroups: ['*'], resources: ['*'] }, attrs: url('get', '/healthz'), allowed: false },
];
for (const c of cases) t.equal(ruleAllows(c.rule, c.attrs), c.allowed, c.name);

t.test('a long resourceNames list (a hollow-nodes role names every node) matches exactly its names', async (t) => {
  const names = Array.from({ length: 5000 }, (_, i) => `system:node:hollow-${i}`);
  const rule: PolicyRule = { verbs: ['impersonate'], apiGroups: [''], resources: ['users'], resourceNames: names };
  for (const name of ['system:node:hollow-0', 'system:node:hollow-4999']) t.ok(ruleAllows(rule, res('impersonate', '', 'users', { name })), name);
  for (const name of ['system:node:hollow-5000', 'system:node:hollow-', '']) t.notOk(ruleAllows(rule, res('impersonate', '', 'users', { name })), JSON.stringify(name));
});

t.test('coverage: what an owner holds covers what it grants', async (t) => {
  const owner: PolicyRule[] = [
    { verbs: ['get', 'list'], apiGroups: [''], resources: ['pods', 'pods/log'] },
    { verbs: ['*'], apiGroups: ['apps'], resources: ['*/scale'] },
    { verbs: ['get'], apiGroups: [''], resources: ['secrets'], resourceNames: ['s1'] },
    { verbs: ['get'], nonResourceURLs: ['/logs/*'] },
  ];
  t.strictSame(uncovered(owner, [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }]), []);
  t.strictSame(uncovered(owner, [{ verbs: ['patch'], apiGroups: ['apps'], resources: ['deployments/scale'] }]), []);
  t.strictSame(uncovered(owner, [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'], resourceNames: ['s1'] }]), []);
  t.strictSame(uncovered(owner, [{ verbs: ['get'], nonResourceURLs: ['/logs/x'] }]), []);
  t.strictSame(uncovered(owner, [{ verbs: ['get', 'delete'], apiGroups: [''], resources: ['pods'] }]), [{ verbs: ['delete'], apiGroups: [''], resources: ['pods'] }]);
  t.equal(uncovered(owner, [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'] }]).length, 1, 'names-limited owner does not cover all names');
  t.equal(uncovered(owner, [{ verbs: ['get'], nonResourceURLs: ['/metrics'] }]).length, 1);
  t.strictSame(uncovered([{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }], [{ verbs: ['escalate'], apiGroups: ['x'], resources: ['y'], resourceNames: ['z'] }]), []);
  t.equal(compactString({ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] }), '{APIGroups:[""], Resources:["pods"], Verbs:["get" "list"]}');
  t.equal(compactString({ verbs: ['get'], nonResourceURLs: ['/x'] }), '{NonResourceURLs:["/x"], Verbs:["get"]}');
});
