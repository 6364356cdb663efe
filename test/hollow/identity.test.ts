// Hollow nodes act as themselves: each request of node <n> is system:node:<n> in
// system:nodes (impersonated over the process's one connection pool), so the Node authorizer
// and NodeRestriction judge it. Against a real API server (Node,RBAC): a process identity
// without the impersonate permission cannot register any node; hollowNodesPolicy lets it act
// as exactly its nodes, which then register, renew their Leases and run their pods.
import t from 'tap';
import { join } from 'node:path';
import { clientsetFromKubeconfig, resources, writeKubeconfig } from '../../src/client/index.js';
import { ensureHollowNodesPolicy, startHollowNodes } from '../../src/hollow/index.js';
import { issueCert } from '../../src/pki/index.js';
import { logger } from '../../src/log/index.js';
import { startAPIServer } from '../helpers/api.js';
import { eventually } from '../helpers/kubectl.js';
import { writeAdminKubeconfig } from '../../src/cli/pki-files.js';

const api = await startAPIServer(t);
const server = `https://127.0.0.1:${api.port}`;
const admin = clientsetFromKubeconfig(writeAdminKubeconfig(api.dir, api.pki, server), 'identity-test');
t.teardown(() => admin.close());
const runnerKubeconfig = join(api.dir, 'runner.kubeconfig');
const kp = issueCert(api.pki.ca, { commonName: 'hollow-runner', organizations: [], usage: 'client' });
writeKubeconfig(runnerKubeconfig, { server, caPem: api.pki.ca.certPem, certPem: kp.certPem, keyPem: kp.keyPem });
const runner = clientsetFromKubeconfig(runnerKubeconfig, 'hollow-runner');
t.teardown(() => runner.close());
const quiet = logger('hollow', {}, () => undefined);

t.test('without the impersonate permission no node registers', async (t) => {
  await ensureHollowNodesPolicy(admin, 'hollow-runner', []);
  await t.rejects(startHollowNodes({ clients: runner, count: 1, namePrefix: 'lone-', log: quiet }),
    { message: /users "system:node:lone-0" is forbidden: User "hollow-runner" cannot impersonate resource "users" in API group "" at the cluster scope/ });
});

t.test('with hollowNodesPolicy each node acts as itself', async (t) => {
  const names = ['hollow-0', 'hollow-1'];
  await ensureHollowNodesPolicy(admin, 'hollow-runner', names);
  const hollow = await startHollowNodes({ clients: runner, count: 2, log: quiet });
  t.teardown(() => hollow.stop());
  const nodes = await admin.resource(resources.nodes).list(undefined);
  t.same(nodes.items.map((n) => n.metadata.name).filter((n) => n?.startsWith('hollow-')).sort(), names);
  const lease = await admin.resource(resources.leases).get('kube-node-lease', 'hollow-1');
  t.equal(lease.spec?.holderIdentity, 'hollow-1', 'its Lease, which NodeRestriction lets only that node hold');
  // A pod bound to hollow-0: its status is reported by hollow-0, as the node it is bound to.
  await admin.resource(resources.nodes).patch(undefined, 'hollow-0', 'merge', { spec: { podCIDR: '10.244.7.0/24', podCIDRs: ['10.244.7.0/24'] } });
  await admin.resource(resources.pods).create('default', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'on-0', namespace: 'default' }, spec: { nodeName: 'hollow-0', containers: [{ name: 'c', image: 'busybox' }] } });
  await eventually(async () => (await admin.resource(resources.pods).get('default', 'on-0')).status?.phase === 'Running', 20_000, 'the pod Running');
  t.pass('Running, reported by its node');
  // Widening the policy by one name is what lets a third node in.
  await t.rejects(startHollowNodes({ clients: runner, count: 3, namePrefix: 'hollow-', log: quiet, kubeletPort: 0 }),
    { message: /system:node:hollow-2/ }, 'a node the policy does not name cannot act');
});
