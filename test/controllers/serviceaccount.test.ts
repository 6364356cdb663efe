// The ServiceAccount controller against the in-memory API: `default` in every active
// namespace, recreated when deleted, never added to a terminating namespace.
import t, { type Test } from 'tap';
import { FakeClientset, FakeClock, SharedInformerFactory, resources } from '../../src/client/index.js';
import { ServiceAccountController } from '../../src/controllers/serviceaccount/index.js';
import { controllerContext, queueDriver } from '../helpers/controller-context.js';

async function setup(t: Test, seed: (f: FakeClientset) => void) {
  const clock = new FakeClock();
  const fake = new FakeClientset(clock);
  seed(fake);
  const informers = new SharedInformerFactory(fake, { clock });
  const ctx = controllerContext({ clients: fake, informers, clock });
  const c = new ServiceAccountController(ctx);
  informers.start();
  t.teardown(async () => { await c.stop(); await informers.stop(); });
  await informers.waitForCacheSync();
  const { drain } = queueDriver(c, fake, clock);
  await drain();
  const sa = (ns: string) => fake.get(resources.serviceaccounts, ns, 'default');
  return { fake, drain, sa };
}

t.test('every active namespace gets a default ServiceAccount, and keeps it', async (t) => {
  const { fake, drain, sa } = await setup(t, (f) => {
    f.seed(resources.namespaces,
      { metadata: { name: 'a' }, status: { phase: 'Active' } },
      { metadata: { name: 'b' }, status: { phase: 'Active' } },
      { metadata: { name: 'gone', deletionTimestamp: '2024-01-01T00:00:00Z', finalizers: ['x'] }, status: { phase: 'Terminating' } });
    f.seed(resources.serviceaccounts, { metadata: { name: 'default', namespace: 'b', labels: { mine: 'yes' } } });
  });
  t.ok(sa('a'));
  t.strictSame(sa('b')?.metadata.labels, { mine: 'yes' }, 'an existing one is left as it is');
  t.notOk(sa('gone'), 'none in a terminating namespace');
  t.equal(fake.actions.filter((a) => a.resource === 'serviceaccounts').length, 1);

  await fake.resource(resources.namespaces).create(undefined, { metadata: { name: 'c' }, status: { phase: 'Active' } });
  await drain();
  t.ok(sa('c'), 'a new namespace gets one');

  await fake.resource(resources.serviceaccounts).delete('a', 'default');
  await drain();
  t.ok(sa('a'), 'recreated after deletion');

  await fake.resource(resources.serviceaccounts).create('a', { metadata: { name: 'builder' } });
  await fake.resource(resources.serviceaccounts).delete('a', 'builder');
  const n = fake.actions.length;
  await drain();
  t.equal(fake.actions.length, n, 'other ServiceAccounts are not its business');
});
