// The bootstrap policy at API server start and its reconciliation: upstream's labels and
// annotation on every object; objects marked autoupdate "true" get missing rules and
// subjects back (extras kept); "false" is left alone; deleted ones are recreated.
import t from 'tap';
import { startAPIServer } from '../helpers/api.js';
import { reconcileBootstrapPolicy } from '../../src/apiserver/authz/bootstrap-policy/reconcile.js';

const api = await startAPIServer(t);
const RBAC = '/apis/rbac.authorization.k8s.io/v1';
const reconcile = () => reconcileBootstrapPolicy(api.server.registries, { user: { username: 'system:apiserver', groups: ['system:masters'] }, dryRun: false, now: new Date() });

t.test('the default policy is there, labelled and annotated as upstream', async (t) => {
  const admin = (await api.client.get(`${RBAC}/clusterroles/cluster-admin`)).body;
  t.strictSame(admin.rules, [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }, { verbs: ['*'], nonResourceURLs: ['*'] }]);
  t.match(admin.metadata, { labels: { 'kubernetes.io/bootstrapping': 'rbac-defaults' }, annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'true' } });
  const edit = (await api.client.get(`${RBAC}/clusterroles/edit`)).body;
  t.strictSame(edit.aggregationRule, { clusterRoleSelectors: [{ matchLabels: { 'rbac.authorization.k8s.io/aggregate-to-edit': 'true' } }] });
  t.equal(edit.metadata.labels['rbac.authorization.k8s.io/aggregate-to-admin'], 'true');
  const piv = (await api.client.get(`${RBAC}/clusterrolebindings/system:public-info-viewer`)).body;
  t.strictSame(piv.subjects.map((s: { name: string }) => s.name), ['system:authenticated', 'system:unauthenticated']);
  t.equal((await api.client.get(`${RBAC}/namespaces/kube-system/roles/extension-apiserver-authentication-reader`)).status, 200);
  t.equal((await api.client.get(`${RBAC}/namespaces/kube-public/rolebindings/system:controller:bootstrap-signer`)).status, 200);
});

t.test('reconcile adds what is missing to autoupdate objects and keeps extras', async (t) => {
  const role = (await api.client.get(`${RBAC}/clusterroles/system:discovery`)).body;
  const extra = { verbs: ['get'], nonResourceURLs: ['/custom'] };
  t.equal((await api.client.put(`${RBAC}/clusterroles/system:discovery`, { ...role, rules: [extra] })).status, 200);
  const binding = (await api.client.get(`${RBAC}/clusterrolebindings/system:public-info-viewer`)).body;
  const added = { apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'extra' };
  t.equal((await api.client.put(`${RBAC}/clusterrolebindings/system:public-info-viewer`, { ...binding, subjects: [added] })).status, 200);
  t.equal((await api.client.delete(`${RBAC}/clusterrolebindings/system:basic-user`)).status, 200);
  await reconcile();
  const after = (await api.client.get(`${RBAC}/clusterroles/system:discovery`)).body;
  t.strictSame(after.rules[0], extra, 'the extra rule stays');
  t.ok(after.rules.some((r: { nonResourceURLs?: string[] }) => r.nonResourceURLs?.includes('/apis/*')), 'the policy rules are back');
  const subjects = (await api.client.get(`${RBAC}/clusterrolebindings/system:public-info-viewer`)).body.subjects.map((s: { name: string }) => s.name);
  t.strictSame(subjects, ['extra', 'system:authenticated', 'system:unauthenticated']);
  t.equal((await api.client.get(`${RBAC}/clusterrolebindings/system:basic-user`)).status, 200, 'recreated');
});

t.test('autoupdate "false" is left alone', async (t) => {
  const role = (await api.client.get(`${RBAC}/clusterroles/system:basic-user`)).body;
  const mine = { ...role, metadata: { ...role.metadata, annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'false' } }, rules: [{ verbs: ['get'], nonResourceURLs: ['/mine'] }] };
  t.equal((await api.client.put(`${RBAC}/clusterroles/system:basic-user`, mine)).status, 200);
  await reconcile();
  t.strictSame((await api.client.get(`${RBAC}/clusterroles/system:basic-user`)).body.rules, [{ verbs: ['get'], nonResourceURLs: ['/mine'] }]);
});
