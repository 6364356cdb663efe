// The Namespace controller against the in-memory API with a fake clock: a terminating
// namespace is emptied, content that stays is reported in Kubernetes' conditions and waited
// for with growing pauses, and the namespace is finalized once nothing is left.
import t, { type Test } from 'tap';
import { FakeClientset, FakeClock, SharedInformerFactory, resources } from '../../src/client/index.js';
import { NamespaceController, StaticDiscovery, type ResourceDiscovery } from '../../src/controllers/namespace/index.js';
import type { KubeObject } from '../../src/api/object.js';
import { controllerContext, queueDriver } from '../helpers/controller-context.js';

// The fake removes any object with a deletionTimestamp and no metadata.finalizers on its
// next write; the server keeps a namespace until spec.finalizers is empty. A metadata
// finalizer stands in for that, so the tests read spec.finalizers after /finalize.
const terminating = (name: string): KubeObject => ({
  metadata: { name, deletionTimestamp: '2024-01-01T00:00:00Z', finalizers: ['test.capstan.io/keep'] },
  spec: { finalizers: ['kubernetes'] },
  status: { phase: 'Terminating' },
});

async function setup(t: Test, seed: (f: FakeClientset) => void, discovery: ResourceDiscovery = new StaticDiscovery()) {
  const clock = new FakeClock();
  const fake = new FakeClientset(clock);
  seed(fake);
  const informers = new SharedInformerFactory(fake, { clock });
  const ctx = controllerContext({ clients: fake, informers, clock });
  const c = new NamespaceController(ctx, discovery);
  informers.start();
  t.teardown(async () => { await c.stop(); await informers.stop(); });
  await informers.waitForCacheSync();
  const { drain, advance } = queueDriver(c, fake, clock, { stepMs: 500 });
  await drain();
  const finalized = (ns: string) => !(fake.get(resources.namespaces, undefined, ns)?.spec?.finalizers ?? []).includes('kubernetes');
  const conditions = (ns: string) => Object.fromEntries(((fake.get(resources.namespaces, undefined, ns)?.status?.conditions ?? []) as KubeObject[]).map((c) => [c.type, c]));
  return { fake, c, drain, advance, conditions, clock, finalized };
}

t.test('a terminating namespace is emptied and finalized', async (t) => {
  const { fake, finalized } = await setup(t, (f) => {
    f.seed(resources.namespaces, terminating('x'), { metadata: { name: 'keep' }, spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } });
    f.seed(resources.configmaps, { metadata: { name: 'a', namespace: 'x' } }, { metadata: { name: 'b', namespace: 'keep' } });
    f.seed(resources.secrets, { metadata: { name: 's', namespace: 'x' } });
    f.seed(resources.services, { metadata: { name: 'web', namespace: 'x' }, spec: {} });
    f.seed(resources.deployments, { metadata: { name: 'web', namespace: 'x' }, spec: {} });
    f.seed(resources.pods, { metadata: { name: 'p', namespace: 'x' }, spec: {} });
  });
  for (const r of [resources.configmaps, resources.secrets, resources.services, resources.deployments, resources.pods]) t.equal(fake.list(r, 'x').length, 0, `${r.resource} gone`);
  t.equal(fake.list(resources.configmaps, 'keep').length, 1, 'other namespaces untouched');
  t.ok(finalized('x'), 'finalized');
  t.ok(fake.get(resources.namespaces, undefined, 'keep'));
  const finalize = fake.actions.find((a) => a.subresource === 'finalize');
  t.equal(finalize?.verb, 'update');
  t.strictSame(finalize?.object?.spec.finalizers, []);
  const deletes = fake.actions.filter((a) => a.verb === 'delete');
  t.notOk(deletes.some((a) => a.namespace === 'keep'));
});

t.test('content that stays is reported and waited for; the namespace goes once it is gone', async (t) => {
  const { fake, conditions, advance, c, finalized } = await setup(t, (f) => {
    f.seed(resources.namespaces, terminating('x'));
    // A pod its kubelet has not finished, and a config map someone else's finalizer holds.
    f.seed(resources.pods, { metadata: { name: 'p', namespace: 'x', finalizers: ['example.com/kubelet'] }, spec: { nodeName: 'n1', terminationGracePeriodSeconds: 4 } });
    f.seed(resources.configmaps, { metadata: { name: 'c', namespace: 'x', finalizers: ['example.com/hold'] } }, { metadata: { name: 'free', namespace: 'x' } });
  });
  t.notOk(finalized('x'), 'not finalized while content remains');
  t.notOk(fake.get(resources.configmaps, 'x', 'free'), 'deletable content went');
  const cond = conditions('x');
  t.match(cond.NamespaceContentRemaining, { status: 'True', reason: 'SomeResourcesRemain', message: 'Some resources are remaining: configmaps. has 1 resource instances, pods. has 1 resource instances' });
  t.match(cond.NamespaceFinalizersRemaining, { status: 'True', reason: 'SomeFinalizersRemain', message: 'Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances, example.com/kubelet in 1 resource instances' });
  t.match(cond.NamespaceDeletionContentFailure, { status: 'False', reason: 'ContentDeleted' });
  t.match(cond.NamespaceDeletionDiscoveryFailure, { status: 'False', reason: 'ResourcesDiscovered' });
  t.match(cond.NamespaceDeletionGroupVersionParsingFailure, { status: 'False', reason: 'ParsedGroupVersions' });
  t.ok(cond.NamespaceContentRemaining.lastTransitionTime);

  // Passes happen after pauses, not in a tight loop, and waiting is not an error.
  let passes = 0;
  const reconcile = c.reconcile.bind(c);
  c.reconcile = (key: string) => { passes++; return reconcile(key); };
  const before = fake.actions.length;
  await advance(10_000);
  t.ok(passes >= 2 && passes <= 5, `a few passes in 10 s (${passes})`);
  t.equal(c.queue.rateLimiter.retries('x'), 0);
  const statusWrites = fake.actions.slice(before).filter((a) => a.subresource === 'status');
  t.equal(statusWrites.length, 0, 'unchanged conditions are not rewritten');

  // The kubelet finishes the pod; the other finalizer is released.
  await fake.resource(resources.pods).patch('x', 'p', 'merge', { metadata: { finalizers: null } });
  await fake.resource(resources.configmaps).patch('x', 'c', 'merge', { metadata: { finalizers: null } });
  await advance(70_000);
  t.ok(finalized('x'), 'finalized once empty');
});

t.test('a discovery failure is reported and retried, and blocks finalizing', async (t) => {
  let fail = true;
  const discovery: ResourceDiscovery = {
    async namespacedDeletable() {
      const base = await new StaticDiscovery().namespacedDeletable();
      return fail ? { types: base.types, failures: ['example.com/v1: HTTP 503'] } : base;
    },
  };
  const { conditions, advance, finalized } = await setup(t, (f) => { f.seed(resources.namespaces, terminating('x')); }, discovery);
  t.notOk(finalized('x'));
  t.match(conditions('x').NamespaceDeletionDiscoveryFailure, { status: 'True', reason: 'DiscoveryFailed', message: /1 failing: example.com\/v1: HTTP 503/ });
  fail = false;
  await advance(5_000);
  t.ok(finalized('x'));
  t.match(conditions('x').NamespaceDeletionDiscoveryFailure, { status: 'False', reason: 'ResourcesDiscovered' });
});

t.test('active namespaces and already-finalized ones are not touched', async (t) => {
  const { fake } = await setup(t, (f) => {
    f.seed(resources.namespaces, { metadata: { name: 'a' }, spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } },
      { metadata: { name: 'b', deletionTimestamp: '2024-01-01T00:00:00Z', finalizers: ['other'] }, spec: { finalizers: [] }, status: { phase: 'Terminating' } });
    f.seed(resources.configmaps, { metadata: { name: 'c', namespace: 'a' } }, { metadata: { name: 'c', namespace: 'b' } });
  });
  t.equal(fake.actions.length, 0);
});
