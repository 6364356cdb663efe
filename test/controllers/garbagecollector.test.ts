// The garbage collector against an in-memory API: background cascade (confirmed with a live
// lookup), owners that are only partly gone, foreground deletion in dependency order, orphaning,
// and the same outcome whatever order the graph learns about objects in.
import t, { type Test } from 'tap';
import type { KubeObject } from '../../src/api/object.js';
import { resources, type FakeClientset, type ResourceType } from '../../src/client/index.js';
import { GarbageCollector } from '../../src/controllers/garbagecollector/index.js';
import { harness, permutations } from './replicaset-harness.js';

function setup(t: Test) {
  let gc!: GarbageCollector;
  const h = harness(t, (ctx) => [(gc = new GarbageCollector(ctx))]);
  return { ...h, gc: () => gc };
}

function ref(owner: KubeObject, kind: string, apiVersion: string, block = true) {
  return { apiVersion, kind, name: owner.metadata.name as string, uid: owner.metadata.uid as string, controller: kind !== 'ConfigMap', blockOwnerDeletion: block };
}

async function create(fake: FakeClientset, type: ResourceType, name: string, owners: ReturnType<typeof ref>[] = [], extra: Partial<KubeObject> = {}): Promise<KubeObject> {
  return fake.resource(type).create('default', { metadata: { name, ...(owners.length ? { ownerReferences: owners } : {}) }, spec: {}, ...extra });
}

const names = (fake: FakeClientset, type: ResourceType) => fake.list(type, 'default').map((o) => o.metadata.name).sort();

t.test('background: dependents of a deleted owner are deleted, down the chain', async (t) => {
  const h = setup(t);
  await h.start();
  const d = await create(h.fake, resources.deployments, 'web');
  const rs = await create(h.fake, resources.replicasets, 'web-1', [ref(d, 'Deployment', 'apps/v1')]);
  await create(h.fake, resources.pods, 'web-1-a', [ref(rs, 'ReplicaSet', 'apps/v1')]);
  await create(h.fake, resources.pods, 'web-1-b', [ref(rs, 'ReplicaSet', 'apps/v1')]);
  await create(h.fake, resources.pods, 'unrelated');
  await h.settle();
  t.same(names(h.fake, resources.pods), ['unrelated', 'web-1-a', 'web-1-b'], 'nothing collected while owners live');
  await h.fake.resource(resources.deployments).delete('default', 'web', { propagationPolicy: 'Background' });
  await h.settle();
  t.same(names(h.fake, resources.replicasets), []);
  t.same(names(h.fake, resources.pods), ['unrelated']);
  const deletes = h.fake.actions.filter((a) => a.verb === 'delete').map((a) => `${a.resource}/${a.name}`).sort();
  t.same(deletes, ['deployments/web', 'pods/web-1-a', 'pods/web-1-b', 'replicasets/web-1']);
});

t.test('an owner missing from the cache but alive in the API is confirmed live, not collected', async (t) => {
  const h = setup(t);
  await h.start();
  // The ReplicaSet cache stops: the collector will never see the owner through its informer.
  await h.informers.informerFor(resources.replicasets).stop();
  const rs = await create(h.fake, resources.replicasets, 'web-1');
  await create(h.fake, resources.pods, 'web-1-a', [ref(rs, 'ReplicaSet', 'apps/v1')]);
  await h.settle();
  t.same(names(h.fake, resources.pods), ['web-1-a'], 'the live GET found the owner');
  // Same name, different object: the reference is dangling.
  await h.fake.resource(resources.replicasets).delete('default', 'web-1');
  await create(h.fake, resources.replicasets, 'web-1');
  await create(h.fake, resources.pods, 'web-1-b', [ref(rs, 'ReplicaSet', 'apps/v1')]);
  await h.settle();
  t.same(names(h.fake, resources.pods), ['web-1-a'], 'a recreated owner with another uid does not keep it');
});

t.test('a dependent with a living owner only loses the reference to the gone one', async (t) => {
  const h = setup(t);
  await h.start();
  const a = await create(h.fake, resources.configmaps, 'owner-a');
  const gone = { metadata: { name: 'owner-b', uid: 'uid-never-existed' } };
  await create(h.fake, resources.configmaps, 'shared', [ref(a, 'ConfigMap', 'v1'), ref(gone, 'ConfigMap', 'v1')]);
  await h.settle();
  const shared = h.fake.get(resources.configmaps, 'default', 'shared')!;
  t.same(shared.metadata.ownerReferences!.map((r) => r.name), ['owner-a']);
  await h.fake.resource(resources.configmaps).delete('default', 'owner-a');
  await h.settle();
  t.same(names(h.fake, resources.configmaps), []);
});

t.test('owners of kinds the collector cannot look up are never assumed gone', async (t) => {
  const h = setup(t);
  await h.start();
  await create(h.fake, resources.pods, 'crd-owned', [{ apiVersion: 'example.com/v1', kind: 'Widget', name: 'w', uid: 'uid-w', controller: true, blockOwnerDeletion: true }]);
  await h.settle();
  t.same(names(h.fake, resources.pods), ['crd-owned']);
});

t.test('foreground: pods go first, then the ReplicaSet, then the Deployment', async (t) => {
  const h = setup(t);
  await h.start();
  const d = await create(h.fake, resources.deployments, 'web');
  const rs = await create(h.fake, resources.replicasets, 'web-1', [ref(d, 'Deployment', 'apps/v1')]);
  await create(h.fake, resources.pods, 'web-1-a', [ref(rs, 'ReplicaSet', 'apps/v1')]);
  await create(h.fake, resources.pods, 'web-1-b', [ref(rs, 'ReplicaSet', 'apps/v1')]);
  const nonBlocking = await create(h.fake, resources.configmaps, 'note', [ref(d, 'ConfigMap', 'apps/v1', false)]);
  nonBlocking.metadata.ownerReferences![0].kind = 'Deployment';
  await h.fake.resource(resources.configmaps).update(nonBlocking);
  await h.settle();
  const order: string[] = [];
  const watch = (type: ResourceType) => {
    void (async () => { for await (const ev of h.fake.watch(type, 'default', { resourceVersion: String(h.fake.resourceVersion) })) if (ev.type === 'DELETED') order.push(`${type.resource}/${ev.object.metadata.name}`); })();
  };
  watch(resources.pods); watch(resources.replicasets); watch(resources.deployments); watch(resources.configmaps);
  await h.fake.resource(resources.deployments).delete('default', 'web', { propagationPolicy: 'Foreground' });
  const dep = h.fake.get(resources.deployments, 'default', 'web')!;
  t.ok(dep.metadata.deletionTimestamp, 'the owner waits');
  await h.settle();
  t.same(order.slice(0, 2).sort(), ['pods/web-1-a', 'pods/web-1-b']);
  t.same(order.slice(2), ['replicasets/web-1', 'deployments/web', 'configmaps/note'], 'the non-blocking dependent goes after its owner');
});

t.test('orphan: dependents lose the reference and stay; the owner goes', async (t) => {
  const h = setup(t);
  await h.start();
  const rs = await create(h.fake, resources.replicasets, 'web-1');
  const other = await create(h.fake, resources.configmaps, 'keeper');
  await create(h.fake, resources.pods, 'web-1-a', [ref(rs, 'ReplicaSet', 'apps/v1')]);
  await create(h.fake, resources.pods, 'web-1-b', [ref(rs, 'ReplicaSet', 'apps/v1'), ref(other, 'ConfigMap', 'v1')]);
  await h.settle();
  await h.fake.resource(resources.replicasets).delete('default', 'web-1', { propagationPolicy: 'Orphan' });
  await h.settle();
  t.same(names(h.fake, resources.replicasets), []);
  t.same(names(h.fake, resources.pods), ['web-1-a', 'web-1-b']);
  t.notOk(h.fake.get(resources.pods, 'default', 'web-1-a')!.metadata.ownerReferences);
  t.same(h.fake.get(resources.pods, 'default', 'web-1-b')!.metadata.ownerReferences!.map((r) => r.name), ['keeper']);
});

t.test('the same outcome whatever order owners and dependents are observed in', async (t) => {
  const rsRef = { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-1', uid: 'rs-uid', controller: true, blockOwnerDeletion: true };
  const fixtures: [ResourceType, KubeObject][] = [
    [resources.replicasets, { metadata: { name: 'web-1', namespace: 'default', uid: 'rs-uid' }, spec: {} }],
    [resources.pods, { metadata: { name: 'a', namespace: 'default', uid: 'a-uid', ownerReferences: [rsRef] }, spec: {} }],
    [resources.pods, { metadata: { name: 'b', namespace: 'default', uid: 'b-uid', ownerReferences: [rsRef, { apiVersion: 'v1', kind: 'ConfigMap', name: 'gone', uid: 'gone-uid', controller: false, blockOwnerDeletion: false }] }, spec: {} }],
    [resources.pods, { metadata: { name: 'c', namespace: 'default', uid: 'c-uid', ownerReferences: [{ ...rsRef, uid: 'old-rs-uid' }] }, spec: {} }],
  ];
  const outcomes = new Set<string>();
  for (const order of permutations(fixtures)) {
    await t.test(order.map(([, o]) => o.metadata.name).join(','), async (t) => {
      const h = setup(t);
      for (const [type, obj] of order) h.fake.seed(type, obj);
      await h.start();
      await h.settle();
      const b = h.fake.get(resources.pods, 'default', 'b')!;
      const first = { pods: names(h.fake, resources.pods), bOwners: b.metadata.ownerReferences!.map((r) => r.name) };
      await h.fake.resource(resources.replicasets).delete('default', 'web-1');
      await h.settle();
      outcomes.add(JSON.stringify({ ...first, after: names(h.fake, resources.pods) }));
    });
  }
  t.same([...outcomes].map((o) => JSON.parse(o)), [{ pods: ['a', 'b'], bOwners: ['web-1'], after: [] }],
    'c (owned by an older web-1) collected, b keeps only its live owner; then all go with the owner');
});
