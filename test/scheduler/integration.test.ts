// The scheduler against a real `capstan apiserver` process, seen through kubectl: pods bound
// and spread over Nodes created through the API, FailedScheduling in `kubectl describe`,
// and two schedulers behind the kube-system/kube-scheduler Lease.
import t from 'tap';
import { spawn } from 'node:child_process';
import { clientsetFromKubeconfig, resources } from '../../src/client/index.js';
import { startScheduler } from '../../src/cli/scheduler.js';
import { startAPIServerProcess, capstanBin } from '../helpers/apiserver-process.js';
import { eventually, kubectlFor } from '../helpers/kubectl.js';
import { node, pod } from './fixtures.js';

const manifest = (names: string[], cpu: string) => JSON.stringify({
  apiVersion: 'v1', kind: 'List',
  items: names.map((n) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: n }, spec: { containers: [{ name: 'main', image: 'busybox', resources: { requests: { cpu } } }] } })),
});

t.test('against a real API server', async (t) => {
  const api = await startAPIServerProcess(t);
  const k = kubectlFor(t, api.kubeconfig);
  const clients = clientsetFromKubeconfig(api.kubeconfig, 'scheduler-test');
  t.teardown(() => clients.close());
  for (const n of ['node-a', 'node-b', 'node-c']) await clients.resource(resources.nodes).create(undefined, node(n, { cpu: '2' }));
  t.match(await k.ok(['get', 'nodes']), /node-a\s+Ready/);

  await t.test('10 pods bound and spread; kubectl shows their nodes', async (t) => {
    const s = await startScheduler(['--kubeconfig', api.kubeconfig, '--secure-port', '0', '--leader-elect=false']);
    t.teardown(() => s.stop());
    const names = Array.from({ length: 10 }, (_, i) => `web-${i}`);
    await k.ok(['create', '-f', '-'], manifest(names, '100m'));
    const wide = async () => (await k.ok(['get', 'pods', '-o', 'wide', '--no-headers'])).trim().split('\n').map((l) => l.split(/\s+/));
    await eventually(async () => (await wide()).every((cols) => cols[6]?.startsWith('node-')), 20_000, 'every pod shows a node');
    const perNode: Record<string, number> = {};
    for (const cols of await wide()) perNode[cols[6]] = (perNode[cols[6]] ?? 0) + 1;
    t.same(Object.values(perNode).sort(), [3, 3, 4], `spread over the three nodes: ${JSON.stringify(perNode)}`);
    await eventually(async () => /Scheduled\s+.*Successfully assigned default\/web-0 to node-/.test(await k.ok(['describe', 'pod', 'web-0'])), 10_000, 'Scheduled event');
    const health = await fetch(`http://127.0.0.1:${s.healthPort}/metrics`).then((r) => r.text());
    t.match(health, /scheduler_schedule_attempts_total\{result="scheduled",profile="default-scheduler"\} 10/);

    await k.ok(['create', '-f', '-'], manifest(['huge'], '5'));
    await eventually(async () => /FailedScheduling/.test(await k.ok(['describe', 'pod', 'huge'])), 10_000, 'FailedScheduling event');
    const described = await k.ok(['describe', 'pod', 'huge']);
    t.match(described, /Warning\s+FailedScheduling\s+.*0\/3 nodes are available: 3 Insufficient cpu\./);
    t.match(described, /PodScheduled\s+False/);
    t.match(await k.ok(['get', 'pod', 'huge']), /huge\s+0\/1\s+Pending/);
    await k.ok(['delete', 'pods', '--all', '--wait=false']);
  });

  await t.test('two schedulers: only the leader binds; the other takes over when it dies', async (t) => {
    const flags = ['--kubeconfig', api.kubeconfig, '--secure-port', '0', '--leader-elect-lease-duration', '4s', '--leader-elect-renew-deadline', '3s', '--leader-elect-retry-period', '500ms'];
    const leader = spawn(process.execPath, [capstanBin, 'scheduler', ...flags], { stdio: ['ignore', 'ignore', 'ignore'] });
    t.teardown(() => { if (leader.exitCode === null) leader.kill('SIGKILL'); });
    const leases = clients.resource(resources.leases);
    let holderA = '';
    await eventually(async () => {
      holderA = await leases.get('kube-system', 'kube-scheduler').then((l) => l.spec?.holderIdentity ?? '', () => '');
      return holderA !== '';
    }, 20_000, 'the first scheduler holds the lease');
    const standby = await startScheduler(flags);
    t.teardown(() => standby.stop());
    await eventually(() => standby.scheduler.cache.nodeCount === 3, 10_000, 'standby caches synced');

    const podsAPI = clients.resource(resources.pods);
    for (let i = 0; i < 4; i++) await podsAPI.create('default', pod(`before-${i}`, { cpu: '100m', uid: undefined }));
    const bound = async (prefix: string) => (await podsAPI.list('default')).items.filter((p) => p.metadata.name!.startsWith(prefix) && p.spec?.nodeName).length;
    await eventually(async () => (await bound('before-')) === 4, 20_000, 'the leader binds');
    t.equal(standby.isLeader(), false);
    t.equal(standby.scheduler.stats.scheduled, 0, 'the standby bound nothing');

    const held = (await leases.get('kube-system', 'kube-scheduler')).spec!;
    leader.kill('SIGKILL');
    const killedAt = Date.now();
    for (let i = 0; i < 3; i++) await podsAPI.create('default', pod(`after-${i}`, { cpu: '100m', uid: undefined }));
    await eventually(async () => (await bound('after-')) === 3, 20_000, 'the standby takes over and binds');
    t.comment(`taken over ${Date.now() - killedAt} ms after the kill (lease 4 s)`);
    t.equal(standby.scheduler.stats.scheduled, 3);
    const taken = (await leases.get('kube-system', 'kube-scheduler')).spec!;
    t.equal(taken.holderIdentity, standby.identity);
    t.not(standby.identity, holderA);
    t.equal(taken.leaseTransitions, (held.leaseTransitions ?? 0) + 1, 'one transition');
    // The Lease's own times, not the test's clock: the standby acquired only once the dead
    // leader's last renewal was a lease duration old.
    t.ok(Date.parse(taken.acquireTime!) >= Date.parse(held.renewTime!) + 4_000, `acquired ${taken.acquireTime}, last renewed ${held.renewTime}`);
  });
});
