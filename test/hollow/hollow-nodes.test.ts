// Hollow nodes against the in-memory API with a fake clock: registration, spread lease
// renewals, pods turning Running once the node has a pod CIDR, termination, stopped heartbeats,
// containers that exit as their command says.
import t, { type Test } from 'tap';
import { FakeClientset, FakeClock, resources } from '../../src/client/index.js';
import { startHollowNodes, type HollowNodesOptions } from '../../src/hollow/index.js';
import { PodIPPool, nodeInternalIP } from '../../src/hollow/addresses.js';
import { logger } from '../../src/log/index.js';
import { rfc3339 } from '../../src/api/time.js';

const settle = async () => { for (let i = 0; i < 3; i++) await new Promise((r) => setTimeout(r, 2)); };

async function setup(t: Test, extra: Partial<HollowNodesOptions> = {}) {
  const clock = new FakeClock();
  const fake = new FakeClientset(clock);
  const hollow = await startHollowNodes({ clients: fake, count: 3, clock, log: logger('test', {}, () => undefined), heartbeatIntervalMs: 10_000, terminationDelayMs: 1000, ...extra });
  t.teardown(async () => { await hollow.stop(); fake.close(); });
  const advance = async (ms: number) => {
    for (let left = ms; left > 0; left -= 250) { clock.step(Math.min(250, left)); await settle(); }
  };
  return { clock, fake, hollow, advance };
}

const renewTimes = (fake: FakeClientset) => Object.fromEntries(fake.list(resources.leases, 'kube-node-lease').map((l) => [l.metadata.name, l.spec.renewTime]));
const pod = (name: string, nodeName: string) => ({ metadata: { name, namespace: 'default' }, spec: { nodeName, containers: [{ name: 'app', image: 'nginx:1.27' }, { name: 'side', image: 'busybox' }] } });
const getPod = (fake: FakeClientset, name: string) => fake.get(resources.pods, 'default', name);

t.test('PodIPPool hands out addresses inside the block, keeps existing ones, reuses released ones', async (t) => {
  const p = new PodIPPool('10.244.3.0/30');
  t.equal(p.assign('a'), '10.244.3.2');
  t.equal(p.assign('a'), '10.244.3.2', 'stable per pod');
  t.equal(p.assign('b'), undefined, 'a /30 has one usable pod address');
  p.release('a');
  t.equal(p.assign('b'), '10.244.3.2');
  const q = new PodIPPool('10.244.1.0/24');
  t.equal(q.assign('x', '10.244.1.77'), '10.244.1.77', 'an address the pod already has is kept');
  t.equal(q.assign('y', '10.244.9.9'), '10.244.1.2', 'one outside the block is not');
  t.equal(nodeInternalIP(0), '127.1.0.1');
  t.equal(nodeInternalIP(254), '127.1.1.1');
});

t.test('nodes register like kubelets and renew their leases at spread offsets', async (t) => {
  const { fake, hollow, advance, clock } = await setup(t);
  t.same(hollow.names, ['hollow-0', 'hollow-1', 'hollow-2']);
  const n = fake.get(resources.nodes, undefined, 'hollow-1')!;
  t.equal(n.metadata.labels!['kubernetes.io/hostname'], 'hollow-1');
  t.equal(n.metadata.labels!['node.kubernetes.io/instance-type'], 'hollow');
  t.same(n.status.capacity, { cpu: '4', memory: '16Gi', pods: '110', 'ephemeral-storage': '100Gi' });
  t.same(n.status.addresses[0], { type: 'InternalIP', address: '127.1.0.2' });
  t.equal(n.status.nodeInfo.kubeletVersion, 'v1.32.0-capstan-hollow');
  t.equal(n.status.nodeInfo.containerRuntimeVersion, 'hollow://1');
  t.same(n.status.conditions.map((c: { type: string; status: string; reason: string }) => `${c.type}=${c.status}/${c.reason}`),
    ['MemoryPressure=False/KubeletHasSufficientMemory', 'DiskPressure=False/KubeletHasNoDiskPressure', 'PIDPressure=False/KubeletHasSufficientPID', 'Ready=True/KubeletReady']);
  const leases = fake.list(resources.leases, 'kube-node-lease');
  t.equal(leases.length, 3);
  t.same(leases[0].metadata.ownerReferences?.[0].kind, 'Node');
  const first = renewTimes(fake);
  const start = clock.now();
  const renewedAt: Record<string, number> = {};
  for (let i = 0; i < 4 * 20; i++) {
    await advance(250);
    for (const [name, at] of Object.entries(renewTimes(fake))) if (at !== first[name] && !renewedAt[name]) renewedAt[name] = clock.now() - start;
  }
  t.same(Object.keys(renewedAt).sort(), hollow.names, 'every lease renewed within 20 s');
  const offsets = Object.values(renewedAt).sort((a, b) => a - b);
  t.ok(offsets[2] - offsets[0] >= 5000, `renewals are spread over the interval (${offsets.join(', ')} ms)`);
  await advance(10_000);
  t.ok(hollow.stats().leaseRenewals >= 9);
});

t.test('steady state: one Lease update per node per interval, node status only at the report interval and only its conditions', async (t) => {
  const { fake, advance } = await setup(t, { statusReportIntervalMs: 30_000 });
  await advance(10_000);
  const from = fake.actions.length;
  await advance(60_000);
  const writes = fake.actions.slice(from);
  const count = (pred: (a: (typeof writes)[number]) => boolean) => writes.filter(pred).length;
  for (const name of ['hollow-0', 'hollow-1', 'hollow-2']) {
    t.equal(count((a) => a.resource === 'leases' && a.verb === 'update' && a.name === name), 6, `${name}: a renewal every 10 s, each one request`);
    const statusPosts = writes.filter((a) => a.resource === 'nodes' && a.name === name);
    t.equal(statusPosts.length, 2, `${name}: status reported every 30 s, not with each renewal`);
    t.same(statusPosts.map((a) => `${a.verb}/${a.subresource}/${Object.keys(a.object!.status).join(',')}`), ['patch/status/conditions', 'patch/status/conditions'], 'a healthy node sends only its conditions');
  }
  t.equal(count((a) => a.resource === 'leases' && a.verb !== 'update'), 0, 'no gets or creates once the lease is known');
});

t.test('a bound pod runs once its node has a pod CIDR; a deleted one goes after the simulated termination', async (t) => {
  const { fake, advance } = await setup(t);
  await fake.resource(resources.pods).create('default', pod('web', 'hollow-0'));
  await advance(1000);
  t.equal(getPod(fake, 'web')!.status?.phase, undefined, 'waits for node IPAM');
  await fake.resource(resources.nodes).patch(undefined, 'hollow-0', 'merge', { spec: { podCIDR: '10.244.7.0/24', podCIDRs: ['10.244.7.0/24'] } });
  await advance(1000);
  const s = getPod(fake, 'web')!.status;
  t.equal(s.phase, 'Running');
  t.equal(s.podIP, '10.244.7.2');
  t.equal(s.hostIP, '127.1.0.1');
  t.ok(s.startTime);
  t.same(s.conditions.filter((c: { status: string }) => c.status === 'True').map((c: { type: string }) => c.type).sort(), ['ContainersReady', 'Initialized', 'PodReadyToStartContainers', 'PodScheduled', 'Ready']);
  t.same(s.containerStatuses.map((c: { name: string; ready: boolean; started: boolean; state: object; image: string; imageID: string; containerID: string }) =>
    [c.name, c.ready, c.started, Object.keys(c.state)[0], c.image, c.imageID, c.containerID.startsWith('hollow://')]),
  [['app', true, true, 'running', 'nginx:1.27', 'hollow://nginx:1.27', true], ['side', true, true, 'running', 'busybox', 'hollow://busybox', true]]);
  const writes = fake.actions.filter((a) => a.resource === 'pods').length;
  await advance(2000);
  t.equal(fake.actions.filter((a) => a.resource === 'pods').length, writes, 'a running pod is not written again');

  // A pod being deleted (the API server set deletionTimestamp and waits for the kubelet).
  fake.seed(resources.pods, { ...getPod(fake, 'web')!, metadata: { ...getPod(fake, 'web')!.metadata, deletionTimestamp: rfc3339(new Date()), deletionGracePeriodSeconds: 30 } });
  await advance(500);
  t.ok(getPod(fake, 'web'), 'still terminating');
  await advance(1000);
  t.equal(getPod(fake, 'web'), undefined, 'removed after the simulated termination');
  t.equal(fake.actions.filter((a) => a.verb === 'delete').length, 1);
});

t.test('a node with stopped heartbeats renews nothing and runs nothing until resumed; an Unknown status is re-posted', async (t) => {
  const { fake, hollow, advance } = await setup(t, { stopHeartbeat: ['hollow-2'] });
  for (const n of hollow.names) await fake.resource(resources.nodes).patch(undefined, n, 'merge', { spec: { podCIDR: `10.244.${n.slice(-1)}.0/24` } });
  await fake.resource(resources.pods).create('default', pod('p2', 'hollow-2'));
  const before = renewTimes(fake);
  await advance(21_000);
  const after = renewTimes(fake);
  t.equal(after['hollow-2'], before['hollow-2'], 'no renewal while stopped');
  t.not(after['hollow-0'], before['hollow-0']);
  t.equal(getPod(fake, 'p2')!.status?.phase, undefined, 'a dead kubelet starts no pods');
  // The node lifecycle controller would mark it Unknown meanwhile.
  await fake.resource(resources.nodes).patch(undefined, 'hollow-2', 'merge', { status: { conditions: [{ type: 'Ready', status: 'Unknown', reason: 'NodeStatusUnknown' }] } }, 'status');
  hollow.resumeHeartbeat('hollow-2');
  await advance(1000);
  t.not(renewTimes(fake)['hollow-2'], before['hollow-2'], 'renewed at once on resume');
  const ready = fake.get(resources.nodes, undefined, 'hollow-2')!.status.conditions.find((c: { type: string }) => c.type === 'Ready');
  t.equal(ready.status, 'True', 'Ready re-posted');
  t.equal(getPod(fake, 'p2')!.status.phase, 'Running');
  t.throws(() => hollow.stopHeartbeat('nope'));
});

t.test('a pod whose Secret is missing is retried with backoff, not every second, and starts once it exists', async (t) => {
  const { fake, advance } = await setup(t);
  await fake.resource(resources.nodes).patch(undefined, 'hollow-0', 'merge', { spec: { podCIDR: '10.244.7.0/24' } });
  await fake.resource(resources.pods).create('default', {
    metadata: { name: 'db', namespace: 'default' },
    spec: { nodeName: 'hollow-0', containers: [{ name: 'app', image: 'pg' }], volumes: [{ name: 'creds', secret: { secretName: 'pw' } }] },
  });
  await advance(30_000);
  t.equal(getPod(fake, 'db')!.status.phase, 'Pending');
  t.equal(getPod(fake, 'db')!.status.containerStatuses[0].state.waiting.reason, 'ContainerCreating');
  const events = fake.list(resources.events, 'default').filter((e) => e.reason === 'FailedMount');
  t.equal(events.length, 1, 'one Event, its count bumped at each attempt');
  // Attempts at 0, 1, 3, 7, 15, 23 s (doubling from 1 s up to 8 s), and one more when the
  // pod's own Pending status comes back through the informer.
  t.ok(events[0].count >= 6 && events[0].count <= 7, `6–7 attempts in 30 s, not 30 (${events[0].count})`);
  t.equal(events[0].message, 'MountVolume.SetUp failed for volume "creds" : secret "pw" not found');
  t.same(events[0].source, { component: 'kubelet', host: 'hollow-0' });
  await fake.resource(resources.secrets).create('default', { metadata: { name: 'pw', namespace: 'default' }, data: {} });
  await advance(8_000);
  t.equal(getPod(fake, 'db')!.status.phase, 'Running', 'started at the next attempt');
});

t.test('a projected volume waits for its ConfigMap (kube-root-ca.crt) as the kubelet does', async (t) => {
  const { fake, advance } = await setup(t);
  await fake.resource(resources.nodes).patch(undefined, 'hollow-0', 'merge', { spec: { podCIDR: '10.244.8.0/24' } });
  await fake.resource(resources.pods).create('default', {
    metadata: { name: 'api-user', namespace: 'default' },
    spec: {
      nodeName: 'hollow-0', containers: [{ name: 'app', image: 'x' }],
      volumes: [{ name: 'kube-api-access-abcde', projected: { sources: [{ serviceAccountToken: { path: 'token' } }, { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } }] } }],
    },
  });
  await advance(3_000);
  t.equal(getPod(fake, 'api-user')!.status.phase, 'Pending');
  const events = fake.list(resources.events, 'default').filter((e) => e.reason === 'FailedMount' && e.involvedObject?.name === 'api-user');
  t.equal(events[0]?.message, 'MountVolume.SetUp failed for volume "kube-api-access-abcde" : configmap "kube-root-ca.crt" not found');
  await fake.resource(resources.configmaps).create('default', { metadata: { name: 'kube-root-ca.crt', namespace: 'default' }, data: { 'ca.crt': 'CA' } });
  await advance(8_000);
  t.equal(getPod(fake, 'api-user')!.status.phase, 'Running');
});

t.test('containers exit as their command says: Never ends the pod, OnFailure restarts a failed container', async (t) => {
  const { fake, advance } = await setup(t);
  await fake.resource(resources.nodes).patch(undefined, 'hollow-0', 'merge', { spec: { podCIDR: '10.244.7.0/24', podCIDRs: ['10.244.7.0/24'] } });
  const job = (name: string, restartPolicy: string, script: string) => ({ metadata: { name, namespace: 'default' }, spec: { nodeName: 'hollow-0', restartPolicy, containers: [{ name: 'work', image: 'busybox', command: ['sh', '-c', script] }] } });
  await fake.resource(resources.pods).create('default', job('fails', 'Never', 'sleep 5; exit 7'));
  await fake.resource(resources.pods).create('default', job('succeeds', 'Never', 'sleep 2'));
  await fake.resource(resources.pods).create('default', job('retries', 'OnFailure', 'sleep 2; exit 1'));
  await fake.resource(resources.pods).create('default', job('serves', 'Never', 'while true; do sleep 1; done'));
  await advance(1000);
  t.same(['fails', 'succeeds', 'retries', 'serves'].map((n) => getPod(fake, n)!.status.phase), ['Running', 'Running', 'Running', 'Running']);
  await advance(2500);
  const ok = getPod(fake, 'succeeds')!.status;
  t.equal(ok.phase, 'Succeeded');
  t.match(ok.containerStatuses, [{ name: 'work', ready: false, state: { terminated: { exitCode: 0, reason: 'Completed' } } }]);
  t.match(ok.conditions.find((c: { type: string }) => c.type === 'Ready'), { status: 'False', reason: 'PodCompleted' });
  t.equal(getPod(fake, 'fails')!.status.phase, 'Running', 'still in its sleep');
  const retried = getPod(fake, 'retries')!.status;
  t.equal(retried.phase, 'Running');
  t.match(retried.containerStatuses, [{ restartCount: 1, lastState: { terminated: { exitCode: 1, reason: 'Error' } }, state: { running: {} } }]);
  await advance(2000);
  const failed = getPod(fake, 'fails')!.status;
  t.equal(failed.phase, 'Failed');
  t.match(failed.containerStatuses, [{ state: { terminated: { exitCode: 7, reason: 'Error' } } }]);
  await advance(60_000);
  t.equal(getPod(fake, 'serves')!.status.phase, 'Running', 'a loop runs until deleted');
});
