// Node lifecycle against the in-memory API with a fake clock: silent nodes turn Unknown and
// get tainted, recovered ones lose the taints, pods go when their tolerations run out.
import t, { type Test } from 'tap';
import { FakeClientset, FakeClock, SharedInformerFactory, resources } from '../../src/client/index.js';
import { NodeLifecycleController } from '../../src/controllers/nodelifecycle/index.js';
import { rfc3339, rfc3339Micro } from '../../src/api/time.js';
import type { KubeObject } from '../../src/api/object.js';
import { controllerContext, queueDriver } from '../helpers/controller-context.js';

const GRACE = 40_000;
const EVICT = 60_000;
async function setup(t: Test, fake: FakeClientset, clock: FakeClock) {
  const informers = new SharedInformerFactory(fake, { clock });
  const ctx = controllerContext({ clients: fake, informers, clock, config: { nodeMonitorGracePeriodMs: GRACE, podEvictionTimeoutMs: EVICT } });
  const c = new NodeLifecycleController(ctx);
  informers.start();
  t.teardown(async () => { await c.stop(); await informers.stop(); });
  await informers.waitForCacheSync();
  const { drain, advance } = queueDriver(c, fake, clock);
  return { c, drain, advance, informers };
}

const stamp = (clock: FakeClock) => rfc3339(new Date(clock.now()));
function node(name: string, clock: FakeClock, ready = 'True'): KubeObject {
  const now = stamp(clock);
  return {
    metadata: { name },
    spec: {},
    status: { conditions: [
      { type: 'Ready', status: ready, reason: ready === 'True' ? 'KubeletReady' : 'KubeletNotReady', lastHeartbeatTime: now, lastTransitionTime: now },
      { type: 'MemoryPressure', status: 'False', reason: 'KubeletHasSufficientMemory', lastHeartbeatTime: now, lastTransitionTime: now },
    ] },
  };
}
const lease = (name: string, clock: FakeClock): KubeObject => ({
  metadata: { name, namespace: 'kube-node-lease' },
  spec: { holderIdentity: name, leaseDurationSeconds: 40, renewTime: rfc3339Micro(new Date(clock.now())) },
});
const pod = (name: string, nodeName: string, tolerations?: object[]): KubeObject => ({
  metadata: { name, namespace: 'default' },
  spec: { nodeName, containers: [{ name: 'c', image: 'x' }], tolerations },
  status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
});
async function renew(fake: FakeClientset, name: string, clock: FakeClock) {
  const l = fake.get(resources.leases, 'kube-node-lease', name)!;
  l.spec.renewTime = rfc3339Micro(new Date(clock.now()));
  await fake.resource(resources.leases).update(l);
}
const ready = (fake: FakeClientset, name: string) => fake.get(resources.nodes, undefined, name)!.status.conditions.find((c: { type: string }) => c.type === 'Ready');
const taints = (fake: FakeClientset, name: string) => ((fake.get(resources.nodes, undefined, name)!.spec?.taints ?? []) as { key: string; effect: string }[]).map((x) => `${x.key}:${x.effect}`).sort();
const events = (fake: FakeClientset) => fake.list(resources.events, 'default').map((e) => `${e.reason} ${e.involvedObject.name}`);
const podNames = (fake: FakeClientset) => fake.list(resources.pods, 'default').map((p) => p.metadata.name).sort();

t.test('a node whose lease stops being renewed turns Unknown after the grace period and is tainted', async (t) => {
  const clock = new FakeClock();
  const fake = new FakeClientset(clock);
  fake.seed(resources.nodes, node('n1', clock));
  fake.seed(resources.leases, lease('n1', clock));
  const { advance, drain } = await setup(t, fake, clock);
  await drain();
  await advance(30_000);
  await renew(fake, 'n1', clock);
  await advance(30_000);
  t.equal(ready(fake, 'n1').status, 'True', 'a renewed lease keeps the node Ready past the first grace period');
  t.same(taints(fake, 'n1'), []);
  await advance(11_000);
  const r = ready(fake, 'n1');
  t.equal(r.status, 'Unknown');
  t.equal(r.reason, 'NodeStatusUnknown');
  t.equal(r.message, 'Kubelet stopped posting node status.');
  t.equal(fake.get(resources.nodes, undefined, 'n1')!.status.conditions.find((c: { type: string }) => c.type === 'MemoryPressure').status, 'Unknown');
  t.same(taints(fake, 'n1'), ['node.kubernetes.io/unreachable:NoExecute', 'node.kubernetes.io/unreachable:NoSchedule']);
  t.ok(fake.get(resources.nodes, undefined, 'n1')!.spec.taints.find((x: { effect: string }) => x.effect === 'NoExecute').timeAdded, 'NoExecute taint has timeAdded');
  t.ok(events(fake).includes('NodeNotReady n1'));

  // The kubelet comes back: Ready again, taints gone.
  const back = fake.get(resources.nodes, undefined, 'n1')!;
  back.status = node('n1', clock).status;
  await fake.resource(resources.nodes).updateStatus(back);
  await renew(fake, 'n1', clock);
  await drain();
  t.equal(ready(fake, 'n1').status, 'True');
  t.same(taints(fake, 'n1'), []);
  t.ok(events(fake).includes('NodeReady n1'));
});

t.test('a renewal the lease informer has not delivered yet keeps the node Ready', async (t) => {
  const clock = new FakeClock();
  const fake = new FakeClientset(clock);
  fake.seed(resources.nodes, node('n1', clock), node('n2', clock));
  fake.seed(resources.leases, lease('n1', clock), lease('n2', clock));
  const { advance, drain, informers } = await setup(t, fake, clock);
  await drain();
  // The controller's lease watch stops delivering (a lagging view); the kubelets go on
  // renewing n1's lease in the API, n2's kubelet is really silent.
  await informers.informerFor(resources.leases).stop();
  for (let s = 0; s < GRACE + 10_000; s += 10_000) {
    await renew(fake, 'n1', clock);
    await advance(10_000);
  }
  t.equal(ready(fake, 'n1').status, 'True', 'n1 renewed in the API: not marked Unknown from a stale informer');
  t.same(taints(fake, 'n1'), []);
  t.equal(ready(fake, 'n2').status, 'Unknown', 'n2 is silent in the API too');
  t.same(taints(fake, 'n2'), ['node.kubernetes.io/unreachable:NoExecute', 'node.kubernetes.io/unreachable:NoSchedule']);
  // n1's kubelet stops as well. With the view still stale, the controller learns of the
  // last renewal only at its next check, so Unknown comes within two grace periods.
  await advance(GRACE);
  t.equal(ready(fake, 'n1').status, 'True', 'the last renewal was seen late: still Ready');
  await advance(GRACE);
  t.equal(ready(fake, 'n1').status, 'Unknown');
});

t.test('a node reporting Ready=False gets the not-ready taints; other taints stay', async (t) => {
  const clock = new FakeClock();
  const fake = new FakeClientset(clock);
  const n = node('n1', clock, 'False');
  n.spec.taints = [{ key: 'dedicated', value: 'db', effect: 'NoSchedule' }];
  fake.seed(resources.nodes, n);
  fake.seed(resources.leases, lease('n1', clock));
  const { drain } = await setup(t, fake, clock);
  await drain();
  t.same(taints(fake, 'n1'), ['dedicated:NoSchedule', 'node.kubernetes.io/not-ready:NoExecute', 'node.kubernetes.io/not-ready:NoSchedule']);
});

t.test('pods are evicted when their tolerations run out; unbounded ones stay', async (t) => {
  const clock = new FakeClock();
  const fake = new FakeClientset(clock);
  fake.seed(resources.nodes, node('n1', clock));
  fake.seed(resources.leases, lease('n1', clock));
  fake.seed(resources.pods,
    pod('default-toleration', 'n1'),
    pod('tolerates-20s', 'n1', [{ key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 20 }]),
    pod('tolerates-forever', 'n1', [{ key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' }]),
    pod('tolerates-everything', 'n1', [{ operator: 'Exists' }]),
    pod('elsewhere', 'n2'));
  const { advance, drain } = await setup(t, fake, clock);
  await drain();
  await advance(GRACE);
  t.equal(ready(fake, 'n1').status, 'Unknown');
  const podReady = (name: string) => fake.get(resources.pods, 'default', name)?.status.conditions.find((c: { type: string }) => c.type === 'Ready')?.status;
  t.equal(podReady('default-toleration'), 'False', 'pods on the node are marked not ready');
  t.equal(podReady('elsewhere'), 'True');
  await advance(19_000);
  t.ok(podNames(fake).includes('tolerates-20s'), 'still there before its tolerationSeconds');
  await advance(2_000);
  t.notOk(podNames(fake).includes('tolerates-20s'), 'evicted after tolerationSeconds');
  t.ok(events(fake).includes('TaintManagerEviction tolerates-20s'));
  await advance(EVICT - 22_000);
  t.ok(podNames(fake).includes('default-toleration'), 'the default toleration (pod eviction timeout) still holds');
  await advance(2_000);
  t.same(podNames(fake), ['elsewhere', 'tolerates-everything', 'tolerates-forever']);
  await advance(600_000);
  t.same(podNames(fake), ['elsewhere', 'tolerates-everything', 'tolerates-forever'], 'unbounded tolerations never run out');
});

t.test('a pod that does not tolerate a NoExecute taint goes at once', async (t) => {
  const clock = new FakeClock();
  const fake = new FakeClientset(clock);
  const n = node('n1', clock);
  n.spec.taints = [{ key: 'dedicated', value: 'db', effect: 'NoExecute' }];
  fake.seed(resources.nodes, n);
  fake.seed(resources.leases, lease('n1', clock));
  fake.seed(resources.pods, pod('intruder', 'n1'), pod('db', 'n1', [{ key: 'dedicated', operator: 'Equal', value: 'db', effect: 'NoExecute' }]));
  const { drain } = await setup(t, fake, clock);
  await drain();
  t.same(podNames(fake), ['db']);
  t.ok(events(fake).includes('TaintManagerEviction intruder'));
});

t.test('recovery before tolerationSeconds cancels the eviction', async (t) => {
  const clock = new FakeClock();
  const fake = new FakeClientset(clock);
  fake.seed(resources.nodes, node('n1', clock));
  fake.seed(resources.leases, lease('n1', clock));
  fake.seed(resources.pods, pod('p', 'n1', [{ key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 30 }]));
  const { advance, drain } = await setup(t, fake, clock);
  await advance(GRACE + 10_000);
  const back = fake.get(resources.nodes, undefined, 'n1')!;
  back.status = node('n1', clock).status;
  await fake.resource(resources.nodes).updateStatus(back);
  await renew(fake, 'n1', clock);
  await drain();
  await advance(60_000);
  t.same(podNames(fake), ['p']);
  t.ok(events(fake).includes('TaintManagerEviction p'), 'cancel event');
  t.notOk(fake.actions.some((a) => a.verb === 'delete'));
});

t.test('a terminating pod on an unreachable node is force-deleted after its grace period', async (t) => {
  const clock = new FakeClock();
  const fake = new FakeClientset(clock);
  fake.seed(resources.nodes, node('n1', clock));
  fake.seed(resources.leases, lease('n1', clock));
  const p = pod('stuck', 'n1');
  p.metadata.deletionTimestamp = rfc3339(new Date(clock.now() + GRACE + 15_000));
  p.metadata.deletionGracePeriodSeconds = 30;
  // (The fake drops an object with deletionTimestamp and no finalizers on any write, so no status write here.)
  p.status.conditions[0].status = 'False';
  fake.seed(resources.pods, p);
  const { advance } = await setup(t, fake, clock);
  await advance(GRACE + 10_000);
  t.same(podNames(fake), ['stuck'], 'waits for the deletion grace period');
  await advance(6_000);
  t.same(podNames(fake), []);
});

t.test('the same events in different orders end in the same state', async (t) => {
  type Step = (fake: FakeClientset, clock: FakeClock) => Promise<unknown>;
  const steps: Record<string, Step> = {
    node: (f, c) => f.resource(resources.nodes).create(undefined, node('n1', c)),
    lease: (f, c) => f.resource(resources.leases).create('kube-node-lease', lease('n1', c)),
    pod: (f) => f.resource(resources.pods).create('default', pod('p', 'n1', [{ key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 10 }])),
    keep: (f) => f.resource(resources.pods).create('default', pod('keep', 'n1', [{ key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' }])),
  };
  const results: string[] = [];
  for (const order of [['node', 'lease', 'pod', 'keep'], ['pod', 'keep', 'lease', 'node'], ['lease', 'pod', 'node', 'keep'], ['keep', 'node', 'pod', 'lease']]) {
    const clock = new FakeClock();
    const fake = new FakeClientset(clock);
    const { advance, drain } = await setup(t, fake, clock);
    for (const s of order) { await steps[s](fake, clock); await drain(); }
    await advance(GRACE + 5_000);
    const mid = `${ready(fake, 'n1').status} ${taints(fake, 'n1').join(',')} pods=${podNames(fake).join(',')}`;
    await advance(10_000);
    results.push(`${mid} | later pods=${podNames(fake).join(',')}`);
  }
  t.equal(new Set(results).size, 1, results.join('\n'));
  t.equal(results[0], 'Unknown node.kubernetes.io/unreachable:NoExecute,node.kubernetes.io/unreachable:NoSchedule pods=keep,p | later pods=keep');
});
