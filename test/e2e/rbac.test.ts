// RBAC end to end with real kubectl against `capstan up` (API server with the default
// --authorization-mode, controller-manager with the ClusterRole aggregation controller).
// Users come from client certificates (CN user, O groups), the static token file, a
// ServiceAccount token (`kubectl create token`), a bootstrap token, impersonation (`--as`)
// and no credentials at all (anonymous). The matrix below is user × verb × resource → allowed
// or 403 as upstream answers; add rows (and users) to extend it.
import t from 'tap';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureClusterPKI } from '../../src/cli/pki-files.js';
import { issueCert, type KeyPair } from '../../src/pki/index.js';
import { APIClient } from '../helpers/api.js';
import { kubeconfigYAML, writeKubeconfig } from '../../src/client/kubeconfig.js';
import { startCapstanUp } from '../helpers/capstan-up.js';
import { eventually, kubectlFor, type Kubectl } from '../helpers/kubectl.js';

const dataDir = mkdtempSync(join(tmpdir(), 'capstan-rbac-'));
t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
const pki = ensureClusterPKI(dataDir, ['127.0.0.1'], '10.96.0.0/12');

/** Users by name: how they authenticate and the groups they carry. */
const tokenUsers: Record<string, { groups: string[] }> = { carol: { groups: ['qa'] }, dave: { groups: [] }, erin: { groups: [] } };
const certUsers: Record<string, { groups: string[] }> = { alice: { groups: ['devs'] } };
const tokens: Record<string, string> = {};
for (const [name, u] of Object.entries(tokenUsers)) {
  tokens[name] = randomBytes(16).toString('hex');
  appendFileSync(pki.tokenFile, `${tokens[name]},${name},${name}-uid${u.groups.length ? `,"${u.groups.join(',')}"` : ''}\n`);
}

const up = await startCapstanUp(t, [], { dataDir });
const server = `https://127.0.0.1:${up.port}`;
const admin = kubectlFor(t, up.kubeconfig);
const as: Record<string, Kubectl> = { admin };
const certs: Record<string, KeyPair> = {};
for (const [name, u] of Object.entries(certUsers)) {
  const kp = certs[name] = issueCert(pki.ca, { commonName: name, organizations: u.groups, usage: 'client' });
  const path = join(dataDir, `${name}.kubeconfig`);
  writeKubeconfig(path, { server, caPem: pki.ca.certPem, certPem: kp.certPem, keyPem: kp.keyPem }, { user: name });
  as[name] = kubectlFor(t, path);
}
for (const name of Object.keys(tokenUsers)) {
  const path = join(dataDir, `${name}.kubeconfig`);
  writeKubeconfig(path, { server, caPem: pki.ca.certPem, token: tokens[name] }, { user: name });
  as[name] = kubectlFor(t, path);
}

const policy = `apiVersion: v1
kind: Namespace
metadata: {name: team-a}
---
apiVersion: v1
kind: Namespace
metadata: {name: team-b}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: pod-reader, namespace: team-a}
rules:
- apiGroups: [""]
  resources: [pods, pods/log]
  verbs: [get, list, watch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: alice-reads-pods, namespace: team-a}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: pod-reader}
subjects:
- {apiGroup: rbac.authorization.k8s.io, kind: User, name: alice}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: devs-view, namespace: team-b}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: view}
subjects:
- {apiGroup: rbac.authorization.k8s.io, kind: Group, name: devs}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: qa-edit, namespace: team-b}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: edit}
subjects:
- {apiGroup: rbac.authorization.k8s.io, kind: Group, name: qa}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: node-reader}
rules:
- apiGroups: [""]
  resources: [nodes]
  verbs: [get, list]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: carol-reads-nodes}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: node-reader}
subjects:
- {apiGroup: rbac.authorization.k8s.io, kind: User, name: carol}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: settings-reader, namespace: team-a}
rules:
- apiGroups: [""]
  resources: [configmaps]
  resourceNames: [settings]
  verbs: [get]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: dave-settings, namespace: team-a}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: settings-reader}
subjects:
- {kind: User, name: dave}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: logs-reader}
rules:
- nonResourceURLs: ["/logs", "/logs/*"]
  verbs: [get]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: dave-logs}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: logs-reader}
subjects:
- {kind: User, name: dave}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: role-writer, namespace: team-a}
rules:
- apiGroups: [rbac.authorization.k8s.io]
  resources: [roles, rolebindings]
  verbs: [create, get, list]
- apiGroups: [""]
  resources: [pods]
  verbs: [get]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: erin-writes-roles, namespace: team-a}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: role-writer}
subjects:
- {kind: User, name: erin}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: ci-views, namespace: team-a}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: view}
subjects:
- {kind: ServiceAccount, name: ci, namespace: team-a}
`;

await admin.ok(['apply', '-f', '-'], policy);

// A ServiceAccount's token, as `kubectl create token` hands it out.
await admin.ok(['create', 'serviceaccount', 'ci', '-n', 'team-a']);
const saToken = (await admin.ok(['create', 'token', 'ci', '-n', 'team-a', '--duration=1h'])).trim();
writeKubeconfig(join(dataDir, 'ci.kubeconfig'), { server, caPem: pki.ca.certPem, token: saToken }, { user: 'ci' });
as.ci = kubectlFor(t, join(dataDir, 'ci.kubeconfig'));

// A bootstrap token, as `capstan token create` (and kubeadm) store it.
const tokenID = randomBytes(3).toString('hex');
const tokenSecret = randomBytes(8).toString('hex');
await admin.ok(['apply', '-f', '-'], `apiVersion: v1
kind: Secret
metadata: {name: bootstrap-token-${tokenID}, namespace: kube-system}
type: bootstrap.kubernetes.io/token
stringData:
  token-id: "${tokenID}"
  token-secret: "${tokenSecret}"
  usage-bootstrap-authentication: "true"
  auth-extra-groups: system:bootstrappers:kubeadm:default-node-token
  expiration: "${new Date(Date.now() + 3600_000).toISOString().replace(/\.\d+Z$/, 'Z')}"
`);
writeKubeconfig(join(dataDir, 'boot.kubeconfig'), { server, caPem: pki.ca.certPem, token: `${tokenID}.${tokenSecret}` }, { user: 'boot' });
as.boot = kubectlFor(t, join(dataDir, 'boot.kubeconfig'));

// No credentials: kubectl asks for a password on a kubeconfig without any, so this one has
// Basic auth, which the server (as kube-apiserver) ignores: the request is anonymous.
const anonymousPath = join(dataDir, 'anonymous.kubeconfig');
writeFileSync(anonymousPath, kubeconfigYAML({ server, caPem: pki.ca.certPem }).replace('user: {}', 'user:\n      username: nobody\n      password: nothing'), { mode: 0o600 });
as.anonymous = kubectlFor(t, anonymousPath);

/** One row: `who` asks `can-i verb resource` (a `/path` for non-resource URLs) in `ns`. */
interface Row { who: string; as?: string[]; verb: string; resource: string; ns?: string; name?: string; subresource?: string; allowed: boolean }
const matrix: Row[] = [
  { who: 'alice', verb: 'list', resource: 'pods', ns: 'team-a', allowed: true },
  { who: 'alice', verb: 'get', resource: 'pods', subresource: 'log', ns: 'team-a', allowed: true },
  { who: 'alice', verb: 'delete', resource: 'pods', ns: 'team-a', allowed: false },
  { who: 'alice', verb: 'list', resource: 'configmaps', ns: 'team-a', allowed: false },
  { who: 'alice', verb: 'list', resource: 'pods', ns: 'team-b', allowed: true },
  { who: 'alice', verb: 'get', resource: 'deployments.apps', ns: 'team-b', allowed: true },
  { who: 'alice', verb: 'list', resource: 'secrets', ns: 'team-b', allowed: false },
  { who: 'alice', verb: 'create', resource: 'deployments.apps', ns: 'team-b', allowed: false },
  { who: 'alice', verb: 'list', resource: 'pods', ns: 'kube-system', allowed: false },
  { who: 'alice', verb: 'list', resource: 'nodes', allowed: false },
  { who: 'alice', verb: 'get', resource: '/healthz', allowed: true },
  { who: 'alice', verb: 'get', resource: '/api', allowed: true },
  { who: 'carol', verb: 'create', resource: 'deployments.apps', ns: 'team-b', allowed: true },
  { who: 'carol', verb: 'delete', resource: 'pods', ns: 'team-b', allowed: true },
  { who: 'carol', verb: 'get', resource: 'secrets', ns: 'team-b', allowed: true },
  { who: 'carol', verb: 'create', resource: 'rolebindings.rbac.authorization.k8s.io', ns: 'team-b', allowed: false },
  { who: 'carol', verb: 'list', resource: 'pods', ns: 'team-a', allowed: false },
  { who: 'carol', verb: 'list', resource: 'nodes', allowed: true },
  { who: 'carol', verb: 'delete', resource: 'nodes', allowed: false },
  { who: 'dave', verb: 'get', resource: 'configmaps', name: 'settings', ns: 'team-a', allowed: true },
  { who: 'dave', verb: 'get', resource: 'configmaps', name: 'other', ns: 'team-a', allowed: false },
  { who: 'dave', verb: 'list', resource: 'configmaps', ns: 'team-a', allowed: false },
  { who: 'dave', verb: 'get', resource: '/logs/kube.log', allowed: true },
  { who: 'dave', verb: 'get', resource: '/metrics', allowed: false },
  { who: 'dave', verb: 'get', resource: '/version', allowed: true },
  { who: 'ci', verb: 'list', resource: 'pods', ns: 'team-a', allowed: true },
  { who: 'ci', verb: 'get', resource: 'deployments.apps', ns: 'team-a', allowed: true },
  { who: 'ci', verb: 'get', resource: 'secrets', ns: 'team-a', allowed: false },
  { who: 'ci', verb: 'create', resource: 'pods', ns: 'team-a', allowed: false },
  { who: 'ci', verb: 'list', resource: 'pods', ns: 'team-b', allowed: false },
  { who: 'boot', verb: 'create', resource: 'certificatesigningrequests.certificates.k8s.io', allowed: true },
  { who: 'boot', verb: 'list', resource: 'pods', ns: 'default', allowed: false },
  { who: 'boot', verb: 'get', resource: 'secrets', ns: 'kube-system', allowed: false },
  { who: 'admin', as: ['--as', 'alice'], verb: 'list', resource: 'pods', ns: 'team-a', allowed: true },
  { who: 'admin', as: ['--as', 'alice'], verb: 'list', resource: 'nodes', allowed: false },
  { who: 'admin', as: ['--as', 'bob', '--as-group', 'qa'], verb: 'create', resource: 'deployments.apps', ns: 'team-b', allowed: true },
  { who: 'admin', as: ['--as', 'bob'], verb: 'create', resource: 'deployments.apps', ns: 'team-b', allowed: false },
  { who: 'admin', verb: 'delete', resource: 'nodes', allowed: true },
  { who: 'admin', verb: '*', resource: '*', ns: 'team-a', allowed: true },
];

function canI(r: Row): string[] {
  const args = ['auth', 'can-i', r.verb, r.name ? `${r.resource}/${r.name}` : r.resource, ...(r.as ?? [])];
  if (r.subresource) args.push(`--subresource=${r.subresource}`);
  if (r.ns) args.push('-n', r.ns);
  return args;
}

// The authorizer follows the watch cache: wait until the last binding has arrived.
await eventually(async () => (await as.erin(['auth', 'can-i', 'create', 'roles', '-n', 'team-a'])).code === 0, 15_000, 'bindings in effect');
await eventually(async () => (await as.ci(['auth', 'can-i', 'list', 'pods', '-n', 'team-a'])).code === 0, 15_000, 'the ServiceAccount\'s binding in effect');
await eventually(async () => (await as.boot(['auth', 'whoami'])).code === 0, 15_000, 'the bootstrap token accepted');
// view's rules come from the aggregation controller.
await eventually(async () => (await as.alice(['auth', 'can-i', 'list', 'pods', '-n', 'team-b'])).code === 0, 30_000, 'view aggregated');

t.test('the matrix: kubectl auth can-i answers as upstream would', async (t) => {
  for (const r of matrix) {
    const res = await as[r.who](canI(r));
    t.equal(res.stdout.trim(), r.allowed ? 'yes' : 'no', `${r.who}: ${canI(r).slice(2).join(' ')} → ${r.allowed ? 'yes' : 'no'} ${res.stderr.trim()}`);
    t.equal(res.code, r.allowed ? 0 : 1);
  }
});

t.test('anonymous requests get what system:public-info-viewer grants; impersonation needs the impersonate verb', async (t) => {
  t.match(await as.anonymous.ok(['get', '--raw', '/version']), /"gitVersion"/, 'anonymous reads /version');
  t.equal(await as.anonymous.ok(['get', '--raw', '/healthz']), 'ok', 'and /healthz');
  const pods = await as.anonymous(['get', '--raw', '/api/v1/namespaces/default/pods']);
  t.equal(pods.code, 1);
  t.match(pods.stderr, 'pods is forbidden: User "system:anonymous" cannot list resource "pods" in API group "" in the namespace "default"');
  const impersonating = await as.carol(['get', 'pods', '-n', 'team-a', '--as', 'alice']);
  t.equal(impersonating.code, 1);
  t.match(impersonating.stderr, 'users "alice" is forbidden: User "carol" cannot impersonate resource "users" in API group "" at the cluster scope');
});

t.test('real requests: allowed ones succeed, the others are 403 with upstream\'s message', async (t) => {
  await admin.ok(['create', 'configmap', 'settings', '-n', 'team-a', '--from-literal=a=b']);
  await admin.ok(['create', 'secret', 'generic', 's1', '-n', 'team-b', '--from-literal=a=b']);
  t.match(await as.alice.ok(['get', 'pods', '-n', 'team-a']), /^$/);
  t.match(await as.dave.ok(['get', 'configmap', 'settings', '-n', 'team-a', '-o', 'name']), 'configmap/settings');
  t.match(await as.carol.ok(['get', 'nodes']), /^$/);
  const denied: [string, string[], string][] = [
    ['alice', ['get', 'pods', '-n', 'kube-system'], 'Error from server (Forbidden): pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "kube-system"'],
    ['alice', ['get', 'nodes'], 'Error from server (Forbidden): nodes is forbidden: User "alice" cannot list resource "nodes" in API group "" at the cluster scope'],
    ['alice', ['get', 'secret', 's1', '-n', 'team-b'], 'Error from server (Forbidden): secrets "s1" is forbidden: User "alice" cannot get resource "secrets" in API group "" in the namespace "team-b"'],
    ['carol', ['create', 'deployment', 'web', '--image=busybox', '-n', 'team-a'], 'error: failed to create deployment: deployments.apps is forbidden: User "carol" cannot create resource "deployments" in API group "apps" in the namespace "team-a"'],
    ['dave', ['get', '--raw', '/metrics'], 'Error from server (Forbidden): forbidden: User "dave" cannot get path "/metrics"'],
  ];
  for (const [who, args, message] of denied) {
    const res = await as[who](args);
    t.equal(res.code, 1, `${who} ${args.join(' ')} fails`);
    t.equal(res.stderr.trim().split('\n').at(-1), message);
  }
  const res = await new APIClient(up.port, { ca: pki.ca.certPem, cert: certs.alice.certPem, key: certs.alice.keyPem }).get('/apis/apps/v1/namespaces/kube-system/deployments/x');
  t.strictSame(res.body, {
    kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Forbidden', code: 403,
    message: 'deployments.apps "x" is forbidden: User "alice" cannot get resource "deployments" in API group "apps" in the namespace "kube-system"',
    details: { name: 'x', group: 'apps', kind: 'deployments' },
  }, 'the Status as upstream sends it');
});

t.test('escalation: a user grants and binds only what it holds, unless it may escalate or bind', async (t) => {
  const erin = as.erin;
  const dryRun = await erin(['create', 'role', 'grab-secrets', '--verb=get', '--resource=secrets', '-n', 'team-a', '--dry-run=server']);
  t.equal(dryRun.code, 1, 'a server dry run is refused too');
  await erin.ok(['create', 'role', 'pod-getter', '--verb=get', '--resource=pods', '-n', 'team-a']);
  const refused = await erin(['create', 'role', 'grab-secrets', '--verb=get', '--resource=secrets', '-n', 'team-a']);
  t.equal(refused.code, 1);
  t.match(refused.stderr, 'roles.rbac.authorization.k8s.io "grab-secrets" is forbidden: user "erin" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["secrets"], Verbs:["get"]}');
  t.equal((await admin(['get', 'role', 'grab-secrets', '-n', 'team-a'])).code, 1, 'nothing was written');

  await erin.ok(['create', 'rolebinding', 'erin-self', '--role=pod-getter', '--user=someone', '-n', 'team-a']);
  const bindAdmin = await erin(['create', 'rolebinding', 'erin-admin', '--clusterrole=admin', '--user=erin', '-n', 'team-a']);
  t.equal(bindAdmin.code, 1);
  t.match(bindAdmin.stderr, 'rolebindings.rbac.authorization.k8s.io "erin-admin" is forbidden: user "erin" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["bindings"], Verbs:["get" "list" "watch"]}\n');
  t.match(bindAdmin.stderr, '\n{APIGroups:[""], Resources:["configmaps"], Verbs:["create" "update" "patch" "delete" "deletecollection" "get" "list" "watch"]}\n', 'admin\'s rules, one line per resource');

  await admin.ok(['create', 'role', 'escalator', '--verb=escalate', '--resource=roles.rbac.authorization.k8s.io', '-n', 'team-a']);
  await admin.ok(['create', 'rolebinding', 'erin-escalates', '--role=escalator', '--user=erin', '-n', 'team-a']);
  await eventually(async () => (await erin(['create', 'role', 'grab-secrets', '--verb=get', '--resource=secrets', '-n', 'team-a'])).code === 0, 15_000, 'escalate lets erin write the role');

  await admin.ok(['create', 'clusterrole', 'view-binder', '--verb=bind', '--resource=clusterroles.rbac.authorization.k8s.io', '--resource-name=view']);
  await admin.ok(['create', 'rolebinding', 'erin-binds-view', '--clusterrole=view-binder', '--user=erin', '-n', 'team-a']);
  await eventually(async () => (await erin(['create', 'rolebinding', 'erin-view', '--clusterrole=view', '--user=someone', '-n', 'team-a'])).code === 0, 15_000, 'bind lets erin bind view');
  t.equal((await erin(['create', 'rolebinding', 'erin-edit', '--clusterrole=edit', '--user=someone', '-n', 'team-a'])).code, 1, 'but not edit');
});

t.test('a ClusterRole labelled aggregate-to-view shows up in view (and edit, admin)', async (t) => {
  await admin.ok(['apply', '-f', '-'], `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: crontab-viewer
  labels: {rbac.authorization.k8s.io/aggregate-to-view: "true"}
rules:
- apiGroups: [stable.example.com]
  resources: [crontabs]
  verbs: [get, list, watch]
`);
  const hasCrontabs = (role: string) => async () => (await admin.ok(['get', 'clusterrole', role, '-o', 'jsonpath={.rules[*].resources}'])).includes('crontabs');
  for (const role of ['view', 'edit', 'admin']) await eventually(hasCrontabs(role), 30_000, `crontabs in ${role}`);
  await eventually(async () => /^crontabs\.stable\.example\.com\s+\[\]\s+\[\]\s+\[get list watch\]$/m.test(await as.alice.ok(['auth', 'can-i', '--list', '-n', 'team-b'])), 15_000, 'alice (view) may list crontabs');
  await admin.ok(['delete', 'clusterrole', 'crontab-viewer']);
  await eventually(async () => !(await hasCrontabs('view')()), 30_000, 'crontabs gone from view');
  t.pass('view followed the labelled role in and out');
});

t.test('SubjectAccessReview and LocalSubjectAccessReview answer for another user', async (t) => {
  const review = (kind: string, ns: string, attrs: string) => `apiVersion: authorization.k8s.io/v1
kind: ${kind}
metadata: {${ns ? `namespace: ${ns}` : ''}}
spec:
  user: alice
  groups: [devs, system:authenticated]
  ${attrs}
`;
  const status = async (manifest: string) => JSON.parse(await admin.ok(['create', '-f', '-', '-o', 'json'], manifest)).status;
  t.match(await status(review('SubjectAccessReview', '', 'resourceAttributes: {verb: list, resource: pods, namespace: team-a}')),
    { allowed: true, reason: 'RBAC: allowed by RoleBinding "alice-reads-pods/team-a" of Role "pod-reader" to User "alice"' });
  t.strictSame(await status(review('SubjectAccessReview', '', 'resourceAttributes: {verb: list, resource: secrets, namespace: team-b}')), { allowed: false });
  t.match(await status(review('LocalSubjectAccessReview', 'team-b', 'resourceAttributes: {verb: get, group: apps, resource: deployments, namespace: team-b}')),
    { allowed: true, reason: 'RBAC: allowed by RoleBinding "devs-view/team-b" of ClusterRole "view" to Group "devs"' });
  t.match(await status(review('SubjectAccessReview', '', 'nonResourceAttributes: {verb: get, path: /livez}')), { allowed: true });
  const asAlice = await as.alice(['create', '-f', '-', '-o', 'json'], review('SubjectAccessReview', '', 'resourceAttributes: {verb: get, resource: pods}'));
  t.match(asAlice.stderr, 'subjectaccessreviews.authorization.k8s.io is forbidden: User "alice" cannot create resource "subjectaccessreviews" in API group "authorization.k8s.io" at the cluster scope');
});

t.test('kubectl auth can-i --list shows the user\'s rules', async (t) => {
  const out = await as.dave.ok(['auth', 'can-i', '--list', '-n', 'team-a']);
  const rows = out.split('\n').map((l) => l.trim().split(/\s+/));
  t.match(out.split('\n')[0], /^Resources\s+Non-Resource URLs\s+Resource Names\s+Verbs/);
  t.ok(rows.some((r) => r.join(' ') === 'configmaps [] [settings] [get]'), 'the named configmap rule');
  t.ok(rows.some((r) => r.join(' ') === '[/logs/*] [] [get]'), 'the non-resource rule');
  t.ok(rows.some((r) => r.join(' ') === 'selfsubjectaccessreviews.authorization.k8s.io [] [] [create]'), 'system:basic-user');
  t.notOk(/secrets/.test(out), 'nothing dave does not hold');
});

t.test('v1beta1: served converted, with kubectl showing the deprecation warning', async (t) => {
  const res = await admin(['apply', '-f', '-'], `apiVersion: rbac.authorization.k8s.io/v1beta1
kind: Role
metadata: {name: legacy, namespace: team-a}
rules:
- apiGroups: [""]
  resources: [services]
  verbs: [get]
`);
  t.equal(res.code, 0, res.stderr);
  t.match(res.stderr, 'Warning: rbac.authorization.k8s.io/v1beta1 Role is deprecated in v1.17+, unavailable in v1.22+; use rbac.authorization.k8s.io/v1 Role');
  t.equal(await admin.ok(['get', 'role', 'legacy', '-n', 'team-a', '-o', 'jsonpath={.apiVersion} {.rules[0].resources[0]}']), 'rbac.authorization.k8s.io/v1 services');
  const list = await admin(['get', 'rolebindings.v1beta1.rbac.authorization.k8s.io', '-n', 'team-a', '-o', 'name']);
  t.match(list.stderr, 'Warning: rbac.authorization.k8s.io/v1beta1 RoleBinding is deprecated in v1.17+, unavailable in v1.22+; use rbac.authorization.k8s.io/v1 RoleBinding');
  t.match(list.stdout, 'rolebinding.rbac.authorization.k8s.io/alice-reads-pods');
});

t.test('kubectl auth reconcile adds rules and subjects', async (t) => {
  const manifest = (verbs: string, users: string[]) => `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: reconciled}
rules:
- apiGroups: [""]
  resources: [services]
  verbs: [${verbs}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: reconciled}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: reconciled}
subjects:
${users.map((u) => `- {apiGroup: rbac.authorization.k8s.io, kind: User, name: ${u}}`).join('\n')}
`;
  t.match(await admin.ok(['auth', 'reconcile', '-f', '-'], manifest('get', ['u1'])), 'clusterrole.rbac.authorization.k8s.io/reconciled reconciled');
  await admin.ok(['auth', 'reconcile', '-f', '-'], manifest('list', ['u2']));
  t.equal(await admin.ok(['get', 'clusterrole', 'reconciled', '-o', 'jsonpath={.rules[*].verbs}']), '["get"] ["list"]');
  t.equal(await admin.ok(['get', 'clusterrolebinding', 'reconciled', '-o', 'jsonpath={.subjects[*].name}']), 'u1 u2');
});

t.test('kubectl create clusterrolebinding (a protobuf body) and its wide listing', async (t) => {
  t.equal(await admin.ok(['create', 'clusterrolebinding', 'auditors-view', '--clusterrole=view', '--group=auditors', '--serviceaccount=team-a:bot', '--user=frank']), 'clusterrolebinding.rbac.authorization.k8s.io/auditors-view created\n');
  const row = (await admin.ok(['get', 'clusterrolebinding', 'auditors-view', '-o', 'wide', '--no-headers'])).trim().split(/\s+/);
  t.strictSame([row[0], row[1], ...row.slice(3)], ['auditors-view', 'ClusterRole/view', 'frank', 'auditors', 'team-a/bot']);
});

t.test('validation: roleRef is immutable, subjects and rules checked', async (t) => {
  const patched = await admin(['patch', 'rolebinding', 'alice-reads-pods', '-n', 'team-a', '--type=merge', '-p', '{"roleRef":{"name":"settings-reader"}}']);
  t.equal(patched.code, 1);
  t.match(patched.stderr, /roleRef: Invalid value: .*: cannot change roleRef/);
  const bad = await admin(['create', '-f', '-'], `apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: bad, namespace: team-a}
rules:
- nonResourceURLs: ["/x"]
  verbs: [get]
- resources: [pods]
`);
  t.equal(bad.code, 1);
  t.match(bad.stderr, 'rules[0].nonResourceURLs: Invalid value: ["/x"]: namespaced rules cannot apply to non-resource URLs');
  t.match(bad.stderr, 'rules[1].verbs: Required value: verbs must contain at least one value');
  t.match(bad.stderr, 'rules[1].apiGroups: Required value: resource rules must supply at least one api group');
});
