// The disruption controller against the in-memory API with a driven clock: expected pods from
// the controllers' scale, healthy pods, disruptions allowed, the DisruptionAllowed condition,
// and the two minutes an allowed eviction is counted as going.
import t, { type Test } from 'tap';
import { FakeClientset, FakeClock, SharedInformerFactory, resources } from '../../src/client/index.js';
import { DisruptionController } from '../../src/controllers/disruption/index.js';
import { controllerContext, queueDriver } from '../helpers/controller-context.js';

const ns = 'team';
const owner = (kind: string, name: string, uid: string, apiVersion = 'apps/v1') => [{ apiVersion, kind, name, uid, controller: true }];
type Owners = ReturnType<typeof owner>;

function pod(name: string, ready: boolean, ownerReferences?: Owners, labels: Record<string, string> = { app: 'web' }) {
  return {
    metadata: { name, namespace: ns, uid: `uid-${name}`, labels, ...(ownerReferences ? { ownerReferences } : {}) },
    spec: { containers: [{ name: 'c', image: 'busybox' }] },
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
  };
}

const deployment = (replicas: number) => ({ metadata: { name: 'web', namespace: ns, uid: 'd-uid' }, spec: { replicas, selector: { matchLabels: { app: 'web' } } } });
const replicaSet = (replicas: number) => ({ metadata: { name: 'web-1', namespace: ns, uid: 'rs-uid', ownerReferences: owner('Deployment', 'web', 'd-uid') }, spec: { replicas, selector: { matchLabels: { app: 'web' } } } });
const budget = (spec: object) => ({ metadata: { name: 'pdb', namespace: ns, generation: 1 }, spec: { selector: { matchLabels: { app: 'web' } }, ...spec } });
const fromRS = owner('ReplicaSet', 'web-1', 'rs-uid');

async function setup(t: Test, seed: (fake: FakeClientset) => void) {
  const clock = new FakeClock(Date.parse('2026-01-01T00:00:00Z'));
  const fake = new FakeClientset(clock);
  seed(fake);
  const informers = new SharedInformerFactory(fake, { clock });
  const c = new DisruptionController(controllerContext({ clients: fake, informers, clock }));
  informers.start();
  t.teardown(async () => { await c.stop(); await informers.stop(); });
  await informers.waitForCacheSync();
  const driver = queueDriver(c, fake, clock);
  await driver.drain();
  const status = () => fake.get(resources.poddisruptionbudgets, ns, 'pdb')?.status;
  const events = (reason: string) => fake.list(resources.events, ns).filter((e) => e.reason === reason);
  return { fake, clock, ...driver, status, events };
}

t.test('an integer minAvailable counts the selected pods; a pod going unready spends the allowance', async (t) => {
  const { fake, drain, status } = await setup(t, (f) => {
    f.seed(resources.deployments, deployment(3));
    f.seed(resources.replicasets, replicaSet(3));
    f.seed(resources.pods, pod('a', true, fromRS), pod('b', true, fromRS), pod('c', true, fromRS), pod('other', true, fromRS, { app: 'db' }));
    f.seed(resources.poddisruptionbudgets, budget({ minAvailable: 2 }));
  });
  const s = status()!;
  t.match(s, { expectedPods: 3, desiredHealthy: 2, currentHealthy: 3, disruptionsAllowed: 1, observedGeneration: 1 });
  t.match(s.conditions, [{ type: 'DisruptionAllowed', status: 'True', reason: 'SufficientPods', message: '', observedGeneration: 1 }]);
  t.notOk('disruptedPods' in s);

  await fake.resource(resources.pods).updateStatus({ ...pod('b', false, fromRS), metadata: fake.get(resources.pods, ns, 'b')!.metadata });
  await drain();
  t.match(status(), { currentHealthy: 2, disruptionsAllowed: 0, conditions: [{ type: 'DisruptionAllowed', status: 'False', reason: 'InsufficientPods' }] });
});

t.test('maxUnavailable and percentages count the controllers\' scale, rounding up', async (t) => {
  const { fake, drain, status } = await setup(t, (f) => {
    f.seed(resources.deployments, deployment(4));
    f.seed(resources.replicasets, replicaSet(4));
    f.seed(resources.pods, pod('a', true, fromRS), pod('b', true, fromRS), pod('c', true, fromRS));
    f.seed(resources.poddisruptionbudgets, budget({ maxUnavailable: '30%' }));
  });
  // 4 expected (the Deployment's replicas, not the 3 pods), 30% of 4 rounds up to 2 unavailable.
  t.match(status(), { expectedPods: 4, desiredHealthy: 2, currentHealthy: 3, disruptionsAllowed: 1 });

  const pdb = fake.get(resources.poddisruptionbudgets, ns, 'pdb')!;
  await fake.resource(resources.poddisruptionbudgets).update({ ...pdb, spec: { selector: pdb.spec.selector, minAvailable: '90%' } });
  await drain();
  t.match(status(), { expectedPods: 4, desiredHealthy: 4, currentHealthy: 3, disruptionsAllowed: 0, observedGeneration: 2 });

  const d = fake.get(resources.deployments, ns, 'web')!;
  await fake.resource(resources.deployments).update({ ...d, spec: { ...d.spec, replicas: 3 } });
  await drain();
  t.match(status(), { expectedPods: 3, desiredHealthy: 3, disruptionsAllowed: 0 }, 'a scale change recounts the budget');
});

t.test('a StatefulSet\'s replicas are its pods\' expected count', async (t) => {
  const { status } = await setup(t, (f) => {
    f.seed(resources.statefulsets, { metadata: { name: 'db', namespace: ns, uid: 'ss-uid' }, spec: { replicas: 5, selector: { matchLabels: { app: 'web' } } } });
    f.seed(resources.pods, ...['db-0', 'db-1', 'db-2', 'db-3', 'db-4'].map((n) => pod(n, true, owner('StatefulSet', 'db', 'ss-uid'))));
    f.seed(resources.poddisruptionbudgets, budget({ maxUnavailable: 1 }));
  });
  t.match(status(), { expectedPods: 5, desiredHealthy: 4, currentHealthy: 5, disruptionsAllowed: 1 });
});

t.test('an allowed eviction counts as going for two minutes, then the pod counts again', async (t) => {
  const { fake, clock, drain, advance, status, events } = await setup(t, (f) => {
    f.seed(resources.deployments, deployment(3));
    f.seed(resources.replicasets, replicaSet(3));
    f.seed(resources.pods, pod('a', true, fromRS), pod('b', true, fromRS), pod('c', true, fromRS));
    f.seed(resources.poddisruptionbudgets, budget({ minAvailable: 2 }));
  });
  // What the eviction subresource writes: one disruption spent, the pod recorded.
  const pdb = fake.get(resources.poddisruptionbudgets, ns, 'pdb')!;
  const evictedAt = new Date(clock.now()).toISOString().replace(/\.\d+Z$/, 'Z');
  await fake.resource(resources.poddisruptionbudgets).updateStatus({ ...pdb, status: { ...pdb.status, disruptionsAllowed: 0, disruptedPods: { a: evictedAt } } });
  await drain();
  t.match(status(), { currentHealthy: 2, disruptionsAllowed: 0, disruptedPods: { a: evictedAt } }, 'the pod about to go is not healthy');

  await advance(60_000);
  t.match(status(), { currentHealthy: 2, disruptedPods: { a: evictedAt } }, 'still going after a minute');
  t.equal(events('NotDeleted').length, 0);

  await advance(61_000);
  t.match(status(), { currentHealthy: 3, disruptionsAllowed: 1 }, 'counted again once the two minutes are over');
  t.notOk('disruptedPods' in status()!);
  t.match(events('NotDeleted'), [{ type: 'Warning', involvedObject: { name: 'a' }, message: 'Pod was expected by PDB team/pdb to be deleted but it wasn\'t' }]);

  // A pod that is being deleted leaves the map and is not healthy.
  await fake.resource(resources.poddisruptionbudgets).updateStatus({ ...fake.get(resources.poddisruptionbudgets, ns, 'pdb')!, status: { ...status(), disruptedPods: { b: new Date(clock.now()).toISOString().replace(/\.\d+Z$/, 'Z') } } });
  await fake.resource(resources.pods).delete(ns, 'b');
  await drain();
  t.match(status(), { currentHealthy: 2, disruptionsAllowed: 0 });
  t.notOk('disruptedPods' in status()!);
});

t.test('pods without a known controller: a warning, or a sync failure that allows nothing', async (t) => {
  const { fake, drain, status, events } = await setup(t, (f) => {
    f.seed(resources.pods, pod('bare', true));
    f.seed(resources.poddisruptionbudgets, budget({ minAvailable: '50%' }));
  });
  t.match(status(), { expectedPods: 0, disruptionsAllowed: 0 });
  t.equal(events('UnmanagedPods').length, 1, 'an unmanaged pod under a percentage is reported');

  await fake.resource(resources.pods).create(ns, pod('odd', true, owner('Widget', 'w', 'w-uid', 'example.com/v1')));
  await drain();
  t.match(status(), { disruptionsAllowed: 0, conditions: [{ type: 'DisruptionAllowed', status: 'False', reason: 'SyncFailed', message: 'found no controllers for pod "odd"' }] });

  await fake.resource(resources.pods).delete(ns, 'odd');
  await fake.resource(resources.pods).delete(ns, 'bare');
  await drain();
  t.match(status(), { expectedPods: 0, disruptionsAllowed: 0, conditions: [{ reason: 'InsufficientPods' }] });
  t.ok(events('NoPods').length >= 1, 'no matching pods is reported');
});
