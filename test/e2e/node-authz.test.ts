// The Node authorizer with selectors (upstream's AuthorizeNodeWithSelectors, on since 1.32),
// end to end with real kubectl against `capstan up`: a kubelet's credentials
// (system:node:<name> in system:nodes) list and watch pods only with the field selector
// spec.nodeName=<its name>, and read only its own Node, also by list; selectors reach RBAC
// too (a list naming one object by metadata.name meets resourceNames), and a
// SubjectAccessReview may carry them (rawSelector or requirements).
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureClusterPKI } from '../../src/cli/pki-files.js';
import { issueCert } from '../../src/pki/index.js';
import { writeKubeconfig } from '../../src/client/kubeconfig.js';
import { startCapstanUp } from '../helpers/capstan-up.js';
import { eventually, kubectlFor } from '../helpers/kubectl.js';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { hostAddress } from '../../src/util/index.js';
import { capstanBin } from '../helpers/apiserver-process.js';

const dataDir = mkdtempSync(join(tmpdir(), 'capstan-nodeauthz-'));
t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
const pki = ensureClusterPKI(dataDir, ['127.0.0.1'], '10.96.0.0/12');
const up = await startCapstanUp(t, [], { dataDir });
const server = `https://127.0.0.1:${up.port}`;
const admin = kubectlFor(t, up.kubeconfig);
const user = (name: string, groups: string[]) => {
  const kp = issueCert(pki.ca, { commonName: name, organizations: groups, usage: 'client' });
  const path = join(dataDir, `${name.replace(/:/g, '-')}.kubeconfig`);
  writeKubeconfig(path, { server, caPem: pki.ca.certPem, certPem: kp.certPem, keyPem: kp.keyPem }, { user: name });
  return kubectlFor(t, path);
};
const n1 = user('system:node:n1', ['system:nodes']);
const frank = user('frank', []);

await admin.ok(['apply', '-f', '-'], `apiVersion: v1
kind: Namespace
metadata: {name: work}
---
apiVersion: v1
kind: Node
metadata: {name: n1}
---
apiVersion: v1
kind: Node
metadata: {name: n2}
---
apiVersion: v1
kind: Pod
metadata: {name: mine, namespace: work}
spec: {nodeName: n1, containers: [{name: c, image: localhost/capstan/busybox:1}]}
---
apiVersion: v1
kind: Pod
metadata: {name: theirs, namespace: work}
spec: {nodeName: n2, containers: [{name: c, image: localhost/capstan/busybox:1}]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: list-one, namespace: work}
rules: [{apiGroups: [""], resources: [pods], resourceNames: [mine], verbs: [list]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: frank-lists-one, namespace: work}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: list-one}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: frank}]
`);

const forbidden = async (k: typeof admin, args: string[], message: string) => {
  const r = await k(args);
  t.not(r.code, 0, `kubectl ${args.join(' ')} refused`);
  t.equal(r.stderr.trim(), `Error from server (Forbidden): ${message}`);
};

t.test('a node lists pods only with spec.nodeName=<its name>', async (t) => {
  t.equal(await n1.ok(['get', 'pods', '-A', '--field-selector', 'spec.nodeName=n1', '-o', 'name']), 'pod/mine\n', 'its own pods');
  t.equal(await n1.ok(['get', 'pods', '-n', 'work', '--field-selector', 'status.phase!=Failed,spec.nodeName=n1', '-o', 'name']), 'pod/mine\n', 'with more requirements beside it');
  await forbidden(n1, ['get', 'pods', '-A'],
    'pods is forbidden: User "system:node:n1" cannot list resource "pods" in API group "" at the cluster scope: can only list/watch pods with spec.nodeName field selector');
  await forbidden(n1, ['get', 'pods', '-n', 'work', '--field-selector', 'spec.nodeName=n2'],
    'pods is forbidden: User "system:node:n1" cannot list resource "pods" in API group "" in the namespace "work": can only list/watch pods with spec.nodeName field selector');
  t.equal(await n1.ok(['get', 'pods', '-n', 'work', '--field-selector', 'metadata.name=mine', '-o', 'name']), 'pod/mine\n', 'one pod bound to it, by name');
  await forbidden(n1, ['get', 'pods', '-n', 'work', '--field-selector', 'metadata.name=theirs'],
    'pods "theirs" is forbidden: User "system:node:n1" cannot list resource "pods" in API group "" in the namespace "work": no relationship found between node \'n1\' and this object');
  // A watch is authorized as a list is.
  await forbidden(n1, ['get', '--raw', '/api/v1/pods?watch=1&timeoutSeconds=5'],
    'pods is forbidden: User "system:node:n1" cannot watch resource "pods" in API group "" at the cluster scope: can only list/watch pods with spec.nodeName field selector');
  const own = n1.background(['get', 'pods', '-A', '--field-selector', 'spec.nodeName=n1', '--watch-only', '-o', 'name']);
  // The watch starts from now: touch the pod until an event shows.
  let touch = 0;
  await eventually(async () => {
    await admin.ok(['label', '--overwrite', 'pod', '-n', 'work', 'mine', `seen=${touch++}`]);
    return own.output().includes('pod/mine');
  }, 20_000, 'its own pods, watched');
  await own.stop();
});

t.test('a node reads only its own Node, by get or by list', async (t) => {
  t.equal(await n1.ok(['get', 'node', 'n1', '-o', 'name']), 'node/n1\n');
  t.equal(await n1.ok(['get', 'nodes', '--field-selector', 'metadata.name=n1', '-o', 'name']), 'node/n1\n');
  await forbidden(n1, ['get', 'nodes'],
    'nodes is forbidden: User "system:node:n1" cannot list resource "nodes" in API group "" at the cluster scope: node \'n1\' cannot read all nodes, only its own Node object');
  await forbidden(n1, ['get', 'node', 'n2'],
    'nodes "n2" is forbidden: User "system:node:n1" cannot get resource "nodes" in API group "" at the cluster scope: node \'n2\' cannot read \'n2\', only its own Node object'.replace("node 'n2' cannot", "node 'n1' cannot"));
});

t.test('RBAC: a list naming one object by metadata.name meets resourceNames', async (t) => {
  t.equal(await frank.ok(['get', 'pods', '-n', 'work', '--field-selector', 'metadata.name=mine', '-o', 'name']), 'pod/mine\n');
  await forbidden(frank, ['get', 'pods', '-n', 'work'],
    'pods is forbidden: User "frank" cannot list resource "pods" in API group "" in the namespace "work"');
});

t.test('SubjectAccessReview with field selectors', async (t) => {
  const review = async (fieldSelector: string) => {
    const out = await admin.ok(['create', '-o', 'json', '-f', '-'], `apiVersion: authorization.k8s.io/v1
kind: SubjectAccessReview
spec:
  user: system:node:n1
  groups: [system:nodes, system:authenticated]
  resourceAttributes: {verb: list, resource: pods${fieldSelector ? `, fieldSelector: ${fieldSelector}` : ''}}
`);
    return JSON.parse(out).status as { allowed: boolean; reason?: string };
  };
  t.strictSame(await review('{rawSelector: "spec.nodeName=n1"}'), { allowed: true });
  t.strictSame(await review('{requirements: [{key: spec.nodeName, operator: In, values: [n1]}]}'), { allowed: true });
  t.strictSame(await review(''), { allowed: false, reason: 'can only list/watch pods with spec.nodeName field selector' });
  t.strictSame(await review('{rawSelector: "spec.nodeName=n2"}'), { allowed: false, reason: 'can only list/watch pods with spec.nodeName field selector' });
  const both = await admin(['create', '-f', '-'], `apiVersion: authorization.k8s.io/v1
kind: SubjectAccessReview
spec:
  user: system:node:n1
  resourceAttributes: {verb: list, resource: pods, fieldSelector: {rawSelector: "spec.nodeName=n1", requirements: [{key: spec.nodeName, operator: In, values: [n1]}]}}
`);
  t.not(both.code, 0);
  t.match(both.stderr, /is invalid: spec\.resourceAttributes\.fieldSelector\.rawSelector: Invalid value: "spec\.nodeName=n1": may not specified at the same time as requirements/);
});

t.test('capstan up advertises the host\'s address: the kubernetes endpoints and the join command name it', async (t) => {
  const advertised = hostAddress() ?? '127.0.0.1';
  const ep = JSON.parse(await admin.ok(['get', 'endpoints', 'kubernetes', '-o', 'json']));
  t.strictSame(ep.subsets[0].addresses.map((a: { ip: string }) => a.ip), [advertised]);
  const r = await promisify(execFile)(process.execPath, [capstanBin, 'token', 'create', '--kubeconfig', up.kubeconfig], { timeout: 60_000 });
  t.match(r.stdout, new RegExp(`^capstan join --server https://${advertised.replace(/\./g, '\\.')}:${up.port} --token `), 'what other machines can reach, not the admin kubeconfig\'s loopback');
});
