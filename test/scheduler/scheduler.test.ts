// The scheduler end to end on FakeClientset: informers, queue, algorithm, assume and bind,
// events and conditions, with the same cluster built in different event orders.
import t, { type Test } from 'tap';
import type { KubeObject } from '../../src/api/object.js';
import { EventRecorder, FakeClientset, FakeClock, SharedInformerFactory, resources } from '../../src/client/index.js';
import { Scheduler } from '../../src/scheduler/index.js';
import { eventually } from '../helpers/kubectl.js';
import { node, pod } from './fixtures.js';

async function start(t: Test, opts: { seedNodes?: KubeObject[]; seedPods?: KubeObject[] } = {}) {
  const clock = new FakeClock(Date.now());
  const fake = new FakeClientset(clock);
  for (const n of opts.seedNodes ?? []) fake.seed(resources.nodes, n);
  for (const p of opts.seedPods ?? []) fake.seed(resources.pods, p);
  const informers = new SharedInformerFactory(fake, { clock });
  const recorder = new EventRecorder(fake.resource(resources.events), { component: 'default-scheduler' }, clock);
  let r = 1;
  const scheduler = new Scheduler({ clients: fake, informers, clock, recorder, random: () => ((r = (r * 16807) % 2147483647) / 2147483647) });
  informers.start();
  await informers.waitForCacheSync();
  void scheduler.run();
  t.teardown(async () => { await scheduler.stop(); await informers.stop(); fake.close(); });
  const pods = () => fake.list(resources.pods, 'default');
  const placement = () => {
    const count: Record<string, number> = {};
    for (const p of pods()) if (p.spec.nodeName) count[p.spec.nodeName] = (count[p.spec.nodeName] ?? 0) + 1;
    return count;
  };
  const events = (reason: string) => fake.list(resources.events, 'default').filter((e) => e.reason === reason);
  return { clock, fake, scheduler, pods, placement, events, create: (o: KubeObject) => fake.resource<KubeObject>(o.kind === 'Node' ? resources.nodes : resources.pods).create(o.metadata.namespace, o) };
}

t.test('pods of one ReplicaSet spread over the nodes and get Scheduled events', async (t) => {
  const s = await start(t, { seedNodes: [node('n1'), node('n2'), node('n3')] });
  for (let i = 0; i < 10; i++) await s.create(pod(`web-${i}`, { owner: 'web', cpu: '100m', memory: '64Mi' }));
  await eventually(() => s.pods().every((p) => p.spec.nodeName), 10_000, 'all bound');
  const counts = Object.values(s.placement()).sort();
  t.same(counts, [3, 3, 4], `spread evenly: ${JSON.stringify(s.placement())}`);
  await eventually(() => s.events('Scheduled').length === 10, 5_000, 'Scheduled events');
  const ev = s.events('Scheduled').find((e) => e.involvedObject.name === 'web-0')!;
  const bound = s.pods().find((p) => p.metadata.name === 'web-0')!;
  t.equal(ev.message, `Successfully assigned default/web-0 to ${bound.spec.nodeName}`);
  t.same(bound.status.conditions.map((c: { type: string; status: string }) => [c.type, c.status]), [['PodScheduled', 'True']]);
  const binds = s.fake.actions.filter((a) => a.verb === 'create-subresource' && a.subresource === 'binding');
  t.equal(binds.length, 10, 'one bind per pod');
  t.match(binds[0].object, { apiVersion: 'v1', kind: 'Binding', target: { apiVersion: 'v1', kind: 'Node' } });
  t.equal(s.scheduler.cache.podCount(), 10, 'all pods in the cache, confirmed');
});

t.test('a pod that fits nowhere gets FailedScheduling and schedules once a node is added', async (t) => {
  const s = await start(t, { seedNodes: [node('small', { cpu: '1' }), node('tainted', { taints: [{ key: 'dedicated', value: 'db', effect: 'NoSchedule' }] })] });
  await s.create(pod('big', { cpu: '2' }));
  await eventually(() => s.events('FailedScheduling').length > 0, 5_000, 'FailedScheduling');
  // Preemption was tried too (as upstream does for every pod): no lower-priority pod to evict.
  const msg = '0/2 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint {dedicated: db}. preemption: 0/2 nodes are available: 1 No preemption victims found for incoming pod, 1 Preemption is not helpful for scheduling.';
  t.equal(s.events('FailedScheduling')[0].message, msg);
  t.equal(s.events('FailedScheduling')[0].type, 'Warning');
  await eventually(() => s.pods()[0].status.conditions?.length > 0, 5_000, 'condition');
  t.match(s.pods()[0].status.conditions, [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: msg }]);
  t.equal(s.scheduler.queue.stats().unschedulable, 1);
  s.clock.step(2_000); // past the first backoff
  await s.create(node('roomy', { cpu: '8' }));
  await eventually(() => s.pods()[0].spec.nodeName === 'roomy', 5_000, 'bound to the new node');
  t.equal(s.scheduler.pending(), 0);
});

t.test('a node added right after a failure is still used, once backoff ends', async (t) => {
  const s = await start(t, { seedNodes: [node('small', { cpu: '1' })] });
  await s.create(pod('big', { cpu: '2' }));
  await eventually(() => s.scheduler.queue.stats().unschedulable === 1, 5_000, 'unschedulable');
  await s.create(node('roomy', { cpu: '8' }));
  await eventually(() => s.scheduler.queue.stats().backoff === 1, 5_000, 'in backoff');
  t.notOk(s.pods()[0].spec.nodeName, 'not retried before its backoff ends');
  s.clock.step(1_000);
  await eventually(() => s.pods()[0].spec.nodeName === 'roomy', 5_000, 'bound');
});

t.test('a failed bind forgets the assumed pod and retries', async (t) => {
  const s = await start(t, { seedNodes: [node('only', { cpu: '1' })] });
  s.fake.failures.push({ verb: 'create-subresource', resource: 'pods', error: new Error('connection reset'), times: 1 });
  await s.create(pod('p', { cpu: '1' }));
  await eventually(() => s.scheduler.queue.stats().backoff === 1, 5_000, 'in backoff after the failed bind');
  t.equal(s.scheduler.cache.node('only')!.requested.milliCPU, 0, 'the assumed pod was forgotten');
  t.match(s.events('FailedScheduling')[0].message, /Binding rejected: connection reset/);
  s.clock.step(1_000);
  await eventually(() => s.pods()[0].spec.nodeName === 'only', 5_000, 'bound on retry');
  t.equal(s.scheduler.cache.node('only')!.requested.milliCPU, 1000, 'counted once');
});

t.test('the same cluster built in different event orders schedules the same way', async (t) => {
  // 3 nodes × room for 2 pods each, 6 pods of 1 CPU: any correct order fills every node.
  const nodes = ['a', 'b', 'c'].map((n) => node(n, { cpu: '2' }));
  const pods = Array.from({ length: 6 }, (_, i) => pod(`p${i}`, { cpu: '1', owner: 'rs' }));
  const orders: Record<string, (KubeObject | 'step')[]> = {
    'nodes then pods': [...nodes, ...pods],
    'pods then nodes': [...pods, 'step', ...nodes],
    interleaved: [pods[0], nodes[0], pods[1], pods[2], 'step', nodes[1], pods[3], pods[4], 'step', nodes[2], pods[5]],
  };
  for (const [name, order] of Object.entries(orders)) {
    await t.test(name, async (t) => {
      const s = await start(t);
      for (const o of order) {
        if (o === 'step') { s.clock.step(1_000); await new Promise((r) => setTimeout(r, 20)); continue; }
        await s.create(o);
      }
      for (let i = 0; i < 100 && !s.pods().every((p) => p.spec.nodeName); i++) {
        s.clock.step(1_000);
        await new Promise((r) => setTimeout(r, 20));
      }
      t.same(s.placement(), { a: 2, b: 2, c: 2 });
      t.same([s.scheduler.cache.node('a')!.requested.milliCPU, s.scheduler.cache.node('b')!.requested.milliCPU], [2000, 2000]);
    });
  }
});

t.test('pods for other schedulers, assigned pods and deleted pods', async (t) => {
  const s = await start(t, { seedNodes: [node('n', { cpu: '2' })], seedPods: [pod('running', { cpu: '1', nodeName: 'n' })] });
  t.equal(s.scheduler.cache.node('n')!.requested.milliCPU, 1000, 'a pod already bound counts on its node');
  await s.create(pod('other', { schedulerName: 'my-scheduler' }));
  await s.create(pod('mine', { cpu: '2' }));
  await eventually(() => s.scheduler.queue.stats().unschedulable === 1, 5_000, 'mine does not fit beside running');
  await s.fake.resource(resources.pods).delete('default', 'running');
  s.clock.step(2_000);
  await eventually(() => s.pods().find((p) => p.metadata.name === 'mine')?.spec.nodeName === 'n', 5_000, 'fits once running is deleted');
  t.notOk(s.pods().find((p) => p.metadata.name === 'other')!.spec.nodeName, 'another scheduler’s pod is left alone');
});

t.test('metrics', async (t) => {
  const s = await start(t, { seedNodes: [node('n')] });
  await s.create(pod('p'));
  await eventually(() => s.scheduler.stats.scheduled === 1, 5_000, 'scheduled');
  const text = await s.scheduler.registry.metrics();
  t.match(text, /scheduler_schedule_attempts_total\{result="scheduled",profile="default-scheduler"\} 1/);
  t.match(text, /scheduler_e2e_scheduling_duration_seconds_count\{result="scheduled",profile="default-scheduler"\} 1/);
  t.match(text, /scheduler_pending_pods\{queue="active"\} 0/);
});

t.test('a high-priority pod preempts a lower-priority one: DisruptionTarget, deletion, Preempted event, nomination, then bound', async (t) => {
  const s = await start(t, { seedNodes: [node('only', { cpu: '2' })] });
  await s.create(pod('low', { cpu: '2', priority: 1 }));
  await eventually(() => s.pods()[0]?.spec.nodeName === 'only', 5_000, 'low bound');
  const actions = () => s.fake.actions.filter((a) => a.resource === 'pods');
  await s.create(pod('high', { cpu: '2', priority: 1000 }));
  await eventually(() => !s.pods().some((p) => p.metadata.name === 'low'), 5_000, 'the victim deleted');
  t.equal(s.pods()[0].status.nominatedNodeName, 'only', 'nominated');
  s.clock.step(2_000); // past the preemptor's backoff
  await eventually(() => s.pods().some((p) => p.metadata.name === 'high' && p.spec.nodeName === 'only'), 10_000, 'high bound where low was');
  // (The fake records concurrent patches as updates of the whole object.)
  const statusWrites = (name: string) => actions().filter((a) => a.name === name && a.subresource === 'status').map((a) => a.object as unknown as { status: { conditions?: { type: string }[] } });
  const disruption = statusWrites('low').flatMap((o) => o.status.conditions ?? []).find((c) => c.type === 'DisruptionTarget');
  t.match(disruption, { type: 'DisruptionTarget', status: 'True', reason: 'PreemptionByScheduler', message: 'default-scheduler: preempting to accommodate a higher priority pod' });
  const order = actions().filter((a) => a.name === 'low').map((a) => a.verb);
  t.same(order.slice(-2), [order.at(-2) === 'patch' ? 'patch' : 'update', 'delete'], 'the condition is written before the delete');
  const ev = s.events('Preempted');
  t.equal(ev.length, 1);
  t.equal(ev[0].involvedObject.name, 'low');
  t.equal(ev[0].type, 'Normal');
  const high = s.pods().find((p) => p.metadata.name === 'high')!;
  t.equal(ev[0].message, `Preempted by pod ${high.metadata.uid} on node only`);
});

t.test('preemptionPolicy Never waits instead of preempting', async (t) => {
  const s = await start(t, { seedNodes: [node('only', { cpu: '2' })] });
  await s.create(pod('low', { cpu: '2', priority: 1 }));
  await eventually(() => s.pods()[0]?.spec.nodeName === 'only', 5_000, 'low bound');
  await s.create(pod('polite', { cpu: '2', priority: 1000, preemptionPolicy: 'Never' }));
  await eventually(() => s.events('FailedScheduling').length > 0, 5_000, 'FailedScheduling');
  t.equal(s.events('FailedScheduling')[0].message, '0/1 nodes are available: 1 Insufficient cpu. preemption: not eligible due to preemptionPolicy=Never.');
  t.ok(s.pods().some((p) => p.metadata.name === 'low' && !p.metadata.deletionTimestamp), 'nothing evicted');
});

t.test('a pod waiting for pod affinity is retried when a matching pod lands', async (t) => {
  const s = await start(t, { seedNodes: [node('n1', { labels: { 'topology.kubernetes.io/zone': 'a' } })] });
  const affinity = { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'db' } }, topologyKey: 'topology.kubernetes.io/zone' }] } };
  await s.create(pod('follower', { affinity }));
  await eventually(() => s.scheduler.queue.stats().unschedulable === 1, 5_000, 'unschedulable');
  t.equal(s.events('FailedScheduling')[0].message, "0/1 nodes are available: 1 node(s) didn't match pod affinity rules. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.");
  await s.create(pod('db', { labels: { app: 'db' } }));
  s.clock.step(2_000); // past the follower's backoff
  await eventually(() => s.pods().every((p) => p.spec.nodeName === 'n1'), 5_000, 'both bound');
});
