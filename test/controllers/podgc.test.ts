// Pod GC against the in-memory API with a fake clock: pods on a Node that is gone go after
// the quarantine and a live check, marked DisruptionTarget and Failed first; terminated pods
// over the threshold go evicted-first then oldest-first; unscheduled terminating pods go at once.
import t, { type Test } from 'tap';
import { FakeClientset, FakeClock, SharedInformerFactory, resources, type ClientsetAPI } from '../../src/client/index.js';
import { PodGCController } from '../../src/controllers/podgc/index.js';
import { terminatedOverThreshold } from '../../src/controllers/podgc/select.js';
import { rfc3339 } from '../../src/api/time.js';
import type { KubeObject } from '../../src/api/object.js';
import { controllerContext, queueDriver } from '../helpers/controller-context.js';

const QUARANTINE = 40_000;

/** `api` takes the controller's writes and live reads; the informers watch `cache` (default: the same). */
async function setup(t: Test, api: FakeClientset, clock: FakeClock, o: { cache?: ClientsetAPI; threshold?: number } = {}) {
  const informers = new SharedInformerFactory(o.cache ?? api, { clock });
  const ctx = controllerContext({ clients: api, informers, clock, config: { podGCQuarantineMs: QUARANTINE, terminatedPodGCThreshold: o.threshold ?? 12_500 } });
  const c = new PodGCController(ctx);
  informers.start();
  t.teardown(async () => { await c.stop(); await informers.stop(); });
  await informers.waitForCacheSync();
  return queueDriver(c, api, clock);
}

const node = (name: string): KubeObject => ({ metadata: { name }, spec: {}, status: {} });
function pod(name: string, o: { node?: string; phase?: string; reason?: string; created?: number; deleting?: boolean } = {}): KubeObject {
  return {
    metadata: {
      name, namespace: 'default', uid: `uid-${name}`,
      ...(o.created !== undefined ? { creationTimestamp: rfc3339(new Date(o.created)) } : {}),
      ...(o.deleting ? { deletionTimestamp: rfc3339(new Date(1_700_000_000_000)), deletionGracePeriodSeconds: 30 } : {}),
    },
    spec: { ...(o.node ? { nodeName: o.node } : {}), containers: [{ name: 'c', image: 'x' }] },
    status: { phase: o.phase ?? 'Running', ...(o.reason ? { reason: o.reason } : {}), conditions: [{ type: 'Ready', status: 'True' }] },
  };
}
const names = (fake: FakeClientset) => fake.list(resources.pods, 'default').map((p) => p.metadata.name as string).sort();

t.test('pods bound to a Node that is deleted go after the quarantine, marked first', async (t) => {
  const clock = new FakeClock();
  const fake = new FakeClientset(clock);
  fake.seed(resources.nodes, node('n1'), node('n2'));
  fake.seed(resources.pods, pod('a', { node: 'n1' }), pod('b', { node: 'n1' }), pod('c', { node: 'n2' }), pod('done', { node: 'n1', phase: 'Succeeded' }), pod('pending'));
  const { drain, advance } = await setup(t, fake, clock);
  await drain();
  t.same(names(fake), ['a', 'b', 'c', 'done', 'pending'], 'nothing goes while every node exists');

  await fake.resource(resources.nodes).delete(undefined, 'n1');
  await drain();
  await advance(QUARANTINE - 1000);
  t.same(names(fake), ['a', 'b', 'c', 'done', 'pending'], 'nothing goes during the quarantine');
  await advance(1000);
  t.same(names(fake), ['c', 'pending'], 'the pods bound to the deleted node are gone; others stay');

  const marks = fake.actions.filter((a) => a.verb === 'update' && a.subresource === 'status' && a.resource === 'pods');
  t.same(marks.map((a) => a.name).sort(), ['a', 'b'], 'running pods are marked before deletion; a terminated one is not');
  for (const m of marks) {
    t.equal(m.object!.status.phase, 'Failed');
    t.match(m.object!.status.conditions.find((c: { type: string }) => c.type === 'DisruptionTarget'),
      { status: 'True', reason: 'DeletionByPodGC', message: 'PodGC: node no longer exists', lastTransitionTime: rfc3339(new Date(clock.now())) });
  }
  const order = fake.actions.filter((a) => a.resource === 'pods' && a.name === 'a').map((a) => `${a.verb}${a.subresource ? `/${a.subresource}` : ''}`);
  t.same(order, ['update/status', 'delete'], 'marked, then deleted');
});

t.test('pods bound to a node the cache never saw: a node that shows up in time saves them', async (t) => {
  const clock = new FakeClock();
  const fake = new FakeClientset(clock);
  fake.seed(resources.pods, pod('early', { node: 'late-node' }), pod('lost', { node: 'never' }));
  const { drain, advance } = await setup(t, fake, clock);
  await drain();
  await advance(20_000);
  await fake.resource(resources.nodes).create(undefined, node('late-node'));
  await advance(QUARANTINE);
  t.same(names(fake), ['early'], 'the pod whose node registered during the quarantine stays; the other goes');
});

t.test('a node the cache has not seen yet but the API has: the live GET keeps its pods', async (t) => {
  const clock = new FakeClock();
  const api = new FakeClientset(clock);
  // A stale informer view: the pods as they are, the nodes from a store that never saw n1.
  const noNodes = new FakeClientset(clock);
  const cache: ClientsetAPI = { resource: (type) => (type === resources.nodes ? noNodes : api).resource(type), close: () => undefined };
  api.seed(resources.nodes, node('n1'));
  api.seed(resources.pods, pod('a', { node: 'n1' }));
  const { drain, advance } = await setup(t, api, clock, { cache });
  await drain();
  await advance(QUARANTINE * 2);
  t.same(names(api), ['a'], 'the node exists in the API: its pod stays');
  t.notOk(api.actions.some((a) => a.resource === 'pods'), 'no write to the pod');

  await api.resource(resources.nodes).delete(undefined, 'n1');
  await advance(QUARANTINE);
  t.same(names(api), [], 'once the API says NotFound, the pod goes');
});

t.test('terminated pods over the threshold go, evicted first, then oldest', async (t) => {
  const clock = new FakeClock();
  const fake = new FakeClientset(clock);
  fake.seed(resources.nodes, node('n1'));
  const base = clock.now() - 3_600_000;
  fake.seed(resources.pods,
    pod('ok-1', { node: 'n1', phase: 'Succeeded', created: base + 1000 }),
    pod('ok-2', { node: 'n1', phase: 'Succeeded', created: base + 2000 }),
    pod('fail-3', { node: 'n1', phase: 'Failed', created: base + 3000 }),
    pod('ok-4', { node: 'n1', phase: 'Succeeded', created: base + 4000 }),
    pod('evicted-9', { node: 'n1', phase: 'Failed', reason: 'Evicted', created: base + 9000 }),
    pod('run-0', { node: 'n1', created: base }),
    pod('pending-0', { created: base }));
  const { drain } = await setup(t, fake, clock, { threshold: 3 });
  await drain();
  t.same(names(fake), ['fail-3', 'ok-2', 'ok-4', 'pending-0', 'run-0'], 'the evicted pod and the oldest terminated one went; three terminated stay');

  const more = pod('ok-5', { node: 'n1', created: base + 5000 });
  await fake.resource(resources.pods).create('default', more);
  await drain();
  t.same(names(fake), ['fail-3', 'ok-2', 'ok-4', 'ok-5', 'pending-0', 'run-0'], 'a running pod does not count');
  const done = fake.get(resources.pods, 'default', 'ok-5')!;
  done.status.phase = 'Succeeded';
  await fake.resource(resources.pods).updateStatus(done);
  await drain();
  t.same(names(fake), ['fail-3', 'ok-4', 'ok-5', 'pending-0', 'run-0'], 'once it terminates, the oldest terminated pod goes');
});

t.test('a threshold of 0 keeps every terminated pod', async (t) => {
  const clock = new FakeClock();
  const fake = new FakeClientset(clock);
  fake.seed(resources.pods, pod('a', { node: 'n1', phase: 'Succeeded' }), pod('b', { node: 'n1', phase: 'Failed' }));
  fake.seed(resources.nodes, node('n1'));
  const { drain } = await setup(t, fake, clock, { threshold: 0 });
  await drain();
  t.same(names(fake), ['a', 'b']);
});

t.test('an unscheduled pod that is terminating goes at once; a scheduled one is left to its kubelet', async (t) => {
  const clock = new FakeClock();
  const fake = new FakeClientset(clock);
  fake.seed(resources.nodes, node('n1'));
  fake.seed(resources.pods, pod('unscheduled', { deleting: true }), pod('scheduled', { node: 'n1', deleting: true }));
  const { drain } = await setup(t, fake, clock);
  await drain();
  t.same(names(fake), ['scheduled']);
});

t.test('the order of terminated pods to delete', async (t) => {
  const p = (name: string, created: number, reason?: string) => pod(name, { phase: 'Failed', created, reason });
  const pods = [p('b', 1000), p('a', 1000), p('new-evicted', 5000, 'Evicted'), p('c', 500)];
  t.same(terminatedOverThreshold(pods, 1).map((x) => x.metadata.name), ['new-evicted', 'c', 'a'], 'evicted, then oldest, then by name');
  t.same(terminatedOverThreshold(pods, 4), []);
  t.same(terminatedOverThreshold(pods, 0), [], 'off');
});
