// NodeRestriction as a kubelet meets it: a node (client certificate system:node:<name> in
// system:nodes) writes its own Node, Lease and pods' status, and is refused — 403 with
// upstream's messages, nothing changed — for anyone else's, for taints and for labels outside
// the kubelet's set; real kubectl with a node's kubeconfig sees the same refusal.
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { issueCert } from '../../src/pki/index.js';
import { writeKubeconfig } from '../../src/client/index.js';
import { startAPIServer, fixtures, type APIClient } from '../helpers/api.js';
import { kubectlFor } from '../helpers/kubectl.js';

const api = await startAPIServer(t);
const nodeCert = (name: string) => issueCert(api.pki.ca, { commonName: `system:node:${name}`, organizations: ['system:nodes'], usage: 'client' });
const asNode = (name: string): APIClient => { const c = nodeCert(name); return api.client.as({ cert: c.certPem, key: c.keyPem }); };
const n1 = asNode('n1');

const nodeObject = (name: string, labels: Record<string, string> = {}) => ({ apiVersion: 'v1', kind: 'Node', metadata: { name, labels } });

t.test('a node registers and updates itself, and nothing else', async (t) => {
  t.equal((await n1.post('/api/v1/nodes', nodeObject('n1', { 'kubernetes.io/hostname': 'n1', 'node.kubernetes.io/instance-type': 'small', 'kubelet.kubernetes.io/x': 'y' }))).status, 201, 'own Node with kubelet labels');
  t.equal((await api.client.post('/api/v1/nodes', nodeObject('n2'))).status, 201);

  const other = await n1.post('/api/v1/nodes', nodeObject('n3'));
  t.equal(other.status, 403);
  t.match(other.body, { kind: 'Status', reason: 'Forbidden', code: 403, message: 'nodes "n3" is forbidden: node "n1" is not allowed to modify node "n3"' });
  t.equal((await api.client.get('/api/v1/nodes/n3')).status, 404, 'nothing created');

  const patch = await n1.patch('/api/v1/nodes/n2', { metadata: { labels: { stolen: 'yes' } } });
  t.equal(patch.status, 403);
  t.equal(patch.body.message, 'nodes "n2" is forbidden: node "n1" is not allowed to modify node "n2"');
  t.notOk((await api.client.get('/api/v1/nodes/n2')).body.metadata.labels?.stolen, 'n2 unchanged');

  t.equal((await n1.patch('/api/v1/nodes/n1/status', { status: { capacity: { pods: '110' } } })).status, 200, 'own status');
  t.equal((await n1.patch('/api/v1/nodes/n2/status', { status: { capacity: { pods: '1' } } })).status, 403, 'not another node\'s status');
});

t.test('labels and taints a node may not change on itself', async (t) => {
  const create = await asNode('n9').post('/api/v1/nodes', nodeObject('n9', { 'node-role.kubernetes.io/control-plane': '', 'node-restriction.kubernetes.io/pool': 'a' }));
  t.equal(create.status, 403);
  t.equal(create.body.message, 'nodes "n9" is forbidden: node "n9" is not allowed to set the following labels: node-restriction.kubernetes.io/pool, node-role.kubernetes.io/control-plane');

  const role = await n1.patch('/api/v1/nodes/n1', { metadata: { labels: { 'node-role.kubernetes.io/control-plane': '' } } });
  t.equal(role.status, 403);
  t.equal(role.body.message, 'nodes "n1" is forbidden: is not allowed to modify labels: node-role.kubernetes.io/control-plane');
  t.equal((await n1.patch('/api/v1/nodes/n1', { metadata: { labels: { 'example.com/rack': '7', 'node.kubernetes.io/zone-x': 'b' } } })).status, 200, 'labels outside kubernetes.io, and the kubelet\'s own prefixes, are fine');

  const taint = await n1.patch('/api/v1/nodes/n1', { spec: { taints: [{ key: 'k', effect: 'NoSchedule' }] } });
  t.equal(taint.status, 403);
  t.equal(taint.body.message, 'nodes "n1" is forbidden: node "n1" is not allowed to modify taints');
});

t.test('leases: only its own, only in kube-node-lease', async (t) => {
  const lease = (name: string) => ({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name }, spec: { holderIdentity: name, leaseDurationSeconds: 40 } });
  t.equal((await n1.post('/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases', lease('n1'))).status, 201);
  const other = await n1.post('/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases', lease('n2'));
  t.equal(other.status, 403);
  t.equal(other.body.message, 'leases.coordination.k8s.io "n2" is forbidden: can only access node lease with the same name as the requesting node');
  const elsewhere = await n1.post('/apis/coordination.k8s.io/v1/namespaces/default/leases', lease('n1'));
  t.equal(elsewhere.status, 403);
  // The Node authorizer refuses it before admission sees it.
  t.equal(elsewhere.body.message, 'leases.coordination.k8s.io is forbidden: User "system:node:n1" cannot create resource "leases" in API group "coordination.k8s.io" in the namespace "default": can only access leases in the "kube-node-lease" system namespace');
});

t.test('pods: status and deletion of its own; mirror pods only', async (t) => {
  t.equal((await api.client.post('/api/v1/namespaces/default/pods', fixtures.pod('mine', { spec: { nodeName: 'n1' } }))).status, 201);
  t.equal((await api.client.post('/api/v1/namespaces/default/pods', fixtures.pod('theirs', { spec: { nodeName: 'n2' } }))).status, 201);

  t.equal((await n1.patch('/api/v1/namespaces/default/pods/mine/status', { status: { phase: 'Running' } })).status, 200, 'own pod status');
  const theirs = await n1.patch('/api/v1/namespaces/default/pods/theirs/status', { status: { phase: 'Failed' } });
  t.equal(theirs.status, 403);
  t.equal(theirs.body.message, 'pods "theirs" is forbidden: node "n1" can only update pod status for pods with spec.nodeName set to itself');
  t.not((await api.client.get('/api/v1/namespaces/default/pods/theirs')).body.status?.phase, 'Failed', 'unchanged');

  const plain = await n1.post('/api/v1/namespaces/default/pods', fixtures.pod('sneaky', { spec: { nodeName: 'n1' } }));
  t.equal(plain.status, 403);
  t.equal(plain.body.message, 'pods "sneaky" is forbidden: pod does not have "kubernetes.io/config.mirror" annotation, node "n1" can only create mirror pods');

  const self = (await api.client.get('/api/v1/nodes/n1')).body;
  const owner = { apiVersion: 'v1', kind: 'Node', name: 'n1', uid: self.metadata.uid, controller: true };
  const mirror = (name: string, extra: Record<string, unknown> = {}) => fixtures.pod(name, { metadata: { annotations: { 'kubernetes.io/config.mirror': 'hash' }, ownerReferences: [owner] }, spec: { nodeName: 'n1', ...extra } });
  t.equal((await n1.post('/api/v1/namespaces/default/pods', mirror('static-web'))).status, 201, 'a mirror pod of its own');
  const withSecret = await n1.post('/api/v1/namespaces/default/pods', mirror('static-secret', { volumes: [{ name: 's', secret: { secretName: 'x' } }] }));
  t.equal(withSecret.status, 403);
  t.equal(withSecret.body.message, 'pods "static-secret" is forbidden: node "n1" can not create pods that reference secrets');
  const elsewhere = await n1.post('/api/v1/namespaces/default/pods', { ...mirror('static-other'), spec: { ...mirror('static-other').spec, nodeName: 'n2' } });
  t.equal(elsewhere.body.message, 'pods "static-other" is forbidden: node "n1" can only create pods with spec.nodeName set to itself');

  const del = await n1.delete('/api/v1/namespaces/default/pods/theirs');
  t.equal(del.status, 403);
  t.equal(del.body.message, 'pods "theirs" is forbidden: node "n1" can only delete pods with spec.nodeName set to itself');
  t.equal((await n1.delete('/api/v1/namespaces/default/pods/static-web')).status, 200, 'its own pod');
});

t.test('other users are not restricted', async (t) => {
  t.equal((await api.client.patch('/api/v1/nodes/n2', { spec: { taints: [{ key: 'k', effect: 'NoSchedule' }] } })).status, 200);
  const impostor = issueCert(api.pki.ca, { commonName: 'system:node:n1', organizations: ['system:masters'], usage: 'client' });
  t.equal((await api.client.as({ cert: impostor.certPem, key: impostor.keyPem }).patch('/api/v1/nodes/n2', { metadata: { labels: { a: 'b' } } })).status, 200, 'the node name without system:nodes is no node');
});

t.test('kubectl as a node: its own Node yes, another node no', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'capstan-noderestriction-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const kubeconfig = join(dir, 'n1.kubeconfig');
  const cert = nodeCert('n1');
  writeKubeconfig(kubeconfig, { server: `https://127.0.0.1:${api.port}`, caPem: api.pki.ca.certPem, certPem: cert.certPem, keyPem: cert.keyPem });
  const kubectl = kubectlFor(t, kubeconfig);
  await kubectl.ok(['label', 'node', 'n1', 'example.com/owner=n1']);
  const r = await kubectl(['label', 'node', 'n2', 'example.com/owner=n1']);
  t.not(r.code, 0);
  // kubectl reads the node first: the Node authorizer refuses that before NodeRestriction would.
  t.match(r.stderr, 'nodes "n2" is forbidden: User "system:node:n1" cannot get resource "nodes" in API group "" at the cluster scope: node \'n1\' cannot read \'n2\', only its own Node object');
  t.notOk((await api.client.get('/api/v1/nodes/n2')).body.metadata.labels?.['example.com/owner'], 'n2 not relabelled');
});
