// The ReplicaSet controller against an in-memory API: creates and deletes pods to match
// spec.replicas, waits for its cache through expectations, adopts and releases pods, and
// reports status and failures.
import t, { type Test } from 'tap';
import { resources, type FakeClientset } from '../../src/client/index.js';
import { ReplicaSetController } from '../../src/controllers/replicaset/index.js';
import { harness, permutations, podObject, rsObject } from './replicaset-harness.js';

function setup(t: Test) {
  let ctrl!: ReplicaSetController;
  const h = harness(t, (ctx) => [(ctrl = new ReplicaSetController(ctx))]);
  return { ...h, ctrl: () => ctrl };
}

const creates = (fake: FakeClientset) => fake.actions.filter((a) => a.verb === 'create' && a.resource === 'pods');
const deletes = (fake: FakeClientset) => fake.actions.filter((a) => a.verb === 'delete' && a.resource === 'pods').map((a) => a.name).sort();

t.test('scales up: pods from the template, owned by the ReplicaSet, with events', async (t) => {
  const h = setup(t);
  h.fake.seed(resources.replicasets, rsObject('web', 3));
  await h.start();
  await h.settle();
  const pods = h.pods();
  t.equal(pods.length, 3);
  for (const p of pods) {
    t.match(p.metadata.name, /^web-[a-z0-9]{5}$/);
    t.same(p.metadata.labels, { app: 'web' });
    t.same(p.metadata.ownerReferences, [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web', uid: 'uid-web', controller: true, blockOwnerDeletion: true }]);
    t.equal(p.spec.containers[0].image, 'nginx:1');
  }
  t.same(h.events('SuccessfulCreate').map((e) => e.message).sort(), pods.map((p) => `Created pod: ${p.metadata.name}`).sort());
  const rs = h.fake.get(resources.replicasets, 'default', 'web')!;
  t.same(rs.status, { replicas: 3, fullyLabeledReplicas: 3, readyReplicas: 0, availableReplicas: 0, observedGeneration: 1 });
  t.equal(creates(h.fake).length, 3, 'no extra creates once settled');
});

t.test('expectations: a stale cache does not cause a second round of creates until observed or timed out', async (t) => {
  const h = setup(t);
  h.fake.seed(resources.replicasets, rsObject('web', 3));
  await h.start();
  // Freeze the pod cache: the controller will not see its own creates.
  await h.informers.informerFor(resources.pods).stop();
  await h.ctrl().reconcile('default/web');
  t.equal(creates(h.fake).length, 3);
  t.same(h.ctrl().expectations.pending('default/web'), { adds: 3, deletes: 0 });
  await h.ctrl().reconcile('default/web');
  await h.ctrl().reconcile('default/web');
  t.equal(creates(h.fake).length, 3, 'no creates while expectations are pending');
  h.clock.step(5 * 60_000 + 1);
  await h.ctrl().reconcile('default/web');
  t.equal(creates(h.fake).length, 6, 'after the timeout it acts on what it sees');
});

t.test('expectations are lowered by observed creates and by failed creates', async (t) => {
  const h = setup(t);
  h.fake.seed(resources.replicasets, rsObject('web', 4));
  h.fake.failures.push({ verb: 'create', resource: 'pods', error: new Error('quota exceeded'), times: 1 });
  await h.start();
  await h.ctrl().reconcile('default/web').catch(() => undefined);
  // slow start: the first batch of one failed, the other three were never tried
  t.equal(creates(h.fake).length, 0);
  t.ok(h.ctrl().expectations.satisfied('default/web'), 'nothing left to wait for');
  t.match(h.events('FailedCreate'), [{ type: 'Warning', message: 'Error creating: quota exceeded' }]);
  const rs = h.fake.get(resources.replicasets, 'default', 'web')!;
  t.match(rs.status.conditions, [{ type: 'ReplicaFailure', status: 'True', reason: 'FailedCreate', message: 'quota exceeded' }]);
  await h.advance(1000);
  t.equal(h.pods().length, 4, 'the retry creates them');
  t.notOk(h.fake.get(resources.replicasets, 'default', 'web')!.status.conditions, 'ReplicaFailure is cleared');
});

t.test('scales down deleting unscheduled, pending, not-ready, then the most recently ready first', async (t) => {
  const h = setup(t);
  const rs = rsObject('web', 5);
  const L = { app: 'web' };
  h.fake.seed(resources.replicasets, rs);
  h.fake.seed(resources.pods,
    podObject('a-old-ready', L, { owner: rs, nodeName: 'n1', phase: 'Running', ready: '2023-11-14T22:01:00Z' }),
    podObject('b-new-ready', L, { owner: rs, nodeName: 'n1', phase: 'Running', ready: '2023-11-14T22:05:00Z' }),
    podObject('c-pending', L, { owner: rs, nodeName: 'n1', phase: 'Pending' }),
    podObject('d-unscheduled', L, { owner: rs, phase: 'Pending' }),
    podObject('e-not-ready', L, { owner: rs, nodeName: 'n1', phase: 'Running' }),
  );
  await h.start();
  await h.settle();
  t.equal(h.pods().length, 5, 'at the desired count: nothing to do');
  await h.fake.resource(resources.replicasets).patch('default', 'web', 'merge', { spec: { replicas: 2 } });
  await h.settle();
  t.same(deletes(h.fake), ['c-pending', 'd-unscheduled', 'e-not-ready']);
  t.same(h.events('SuccessfulDelete').map((e) => e.message).sort(), ['Deleted pod: c-pending', 'Deleted pod: d-unscheduled', 'Deleted pod: e-not-ready']);
  await h.fake.resource(resources.replicasets).patch('default', 'web', 'merge', { spec: { replicas: 1 } });
  await h.settle();
  t.same(h.pods().map((p) => p.metadata.name), ['a-old-ready'], 'the pod ready longest stays');
  const st = h.fake.get(resources.replicasets, 'default', 'web')!.status;
  t.match(st, { replicas: 1, readyReplicas: 1, availableReplicas: 1, observedGeneration: 3 });
});

t.test('adopts matching orphans and releases owned pods that no longer match, in any event order', async (t) => {
  const rs = rsObject('web', 3);
  const other = rsObject('other', 1, { app: 'other' });
  const fixtures = [
    podObject('orphan-1', { app: 'web' }),
    podObject('orphan-2', { app: 'web' }),
    podObject('owned-by-other', { app: 'web' }, { owner: other }),
    podObject('relabelled', { app: 'moved' }, { owner: rs }),
  ];
  const results = new Set<string>();
  for (const order of permutations(fixtures)) {
    await t.test(order.map((p) => p.metadata.name).join(','), async (t) => {
      const h = setup(t);
      h.fake.seed(resources.replicasets, rs);
      await h.start();
      for (const p of order) await h.fake.resource(resources.pods).create('default', p);
      await h.settle();
      const pods = h.pods();
      const ownedByWeb = pods.filter((p) => p.metadata.ownerReferences?.some((r) => r.uid === 'uid-web'));
      t.equal(ownedByWeb.length, 3);
      t.ok(ownedByWeb.some((p) => p.metadata.name === 'orphan-1') && ownedByWeb.some((p) => p.metadata.name === 'orphan-2'), 'orphans adopted');
      t.same(pods.find((p) => p.metadata.name === 'relabelled')!.metadata.ownerReferences, undefined, 'released');
      t.equal(pods.find((p) => p.metadata.name === 'owned-by-other')!.metadata.ownerReferences![0].uid, 'uid-other', 'another controller\'s pod is left alone');
      results.add(JSON.stringify({ n: pods.length, owned: ownedByWeb.length, created: creates(h.fake).length - fixtures.length }));
    });
  }
  t.equal(results.size, 1, 'the same outcome whatever the order');
  t.same(JSON.parse([...results][0]), { n: 5, owned: 3, created: 1 });
});

t.test('a ReplicaSet being deleted neither adopts nor creates', async (t) => {
  const h = setup(t);
  const rs = rsObject('web', 3);
  rs.metadata.deletionTimestamp = '2023-11-14T22:00:00Z';
  rs.metadata.finalizers = ['foregroundDeletion'];
  h.fake.seed(resources.replicasets, rs);
  h.fake.seed(resources.pods, podObject('orphan', { app: 'web' }));
  await h.start();
  await h.settle();
  t.equal(creates(h.fake).length, 0);
  t.notOk(h.pods()[0].metadata.ownerReferences);
});

t.test('availableReplicas follows minReadySeconds, with a requeue when the time is up', async (t) => {
  const h = setup(t);
  h.fake.seed(resources.replicasets, rsObject('web', 2, { app: 'web' }, { minReadySeconds: 30 }));
  await h.start();
  await h.settle();
  await h.markReady();
  await h.settle();
  let st = h.fake.get(resources.replicasets, 'default', 'web')!.status;
  t.match(st, { replicas: 2, readyReplicas: 2, availableReplicas: 0 });
  await h.advance(29_000);
  t.equal(h.fake.get(resources.replicasets, 'default', 'web')!.status.availableReplicas, 0, 'not before 30s');
  await h.advance(2_000);
  st = h.fake.get(resources.replicasets, 'default', 'web')!.status;
  t.match(st, { readyReplicas: 2, availableReplicas: 2 });
});

t.test('fullyLabeledReplicas counts pods carrying every template label', async (t) => {
  const h = setup(t);
  const rs = rsObject('web', 2);
  rs.spec.template.metadata.labels = { app: 'web', tier: 'front' };
  h.fake.seed(resources.replicasets, rs);
  h.fake.seed(resources.pods, podObject('partial', { app: 'web' }, { owner: rs }), podObject('full', { app: 'web', tier: 'front' }, { owner: rs }));
  await h.start();
  await h.settle();
  t.match(h.fake.get(resources.replicasets, 'default', 'web')!.status, { replicas: 2, fullyLabeledReplicas: 1 });
});

t.test('a deleted pod is replaced', async (t) => {
  const h = setup(t);
  h.fake.seed(resources.replicasets, rsObject('web', 2));
  await h.start();
  await h.settle();
  const [first] = h.pods();
  await h.fake.resource(resources.pods).delete('default', first.metadata.name as string);
  await h.settle();
  t.equal(h.pods().length, 2);
  t.notOk(h.pods().some((p) => p.metadata.name === first.metadata.name));
});

t.test('status right after a scale-down no longer counts the deleted pods, even before the cache shows it', async (t) => {
  const h = setup(t);
  const rs = rsObject('web', 1);
  h.fake.seed(resources.replicasets, rs);
  h.fake.seed(resources.pods, ...['a', 'b', 'c'].map((n) => podObject(n, { app: 'web' }, { owner: rs, phase: 'Running', ready: '2023-11-14T22:01:00Z' })));
  await h.start();
  await h.informers.informerFor(resources.pods).stop();
  await h.ctrl().reconcile('default/web');
  t.equal(deletes(h.fake).length, 2);
  t.match(h.fake.get(resources.replicasets, 'default', 'web')!.status, { replicas: 1, readyReplicas: 1, availableReplicas: 1 });
});
