// The in-memory fake behaves like the API server where controllers rely on it.
import t from 'tap';
import { FakeClientset, SharedInformerFactory, resources } from '../../src/client/index.js';
import { eventually } from '../helpers/kubectl.js';

t.test('informers run against the fake; conflicts and finalizers behave', async (t) => {
  const fake = new FakeClientset();
  fake.seed(resources.pods, { metadata: { name: 'a', namespace: 'ns', labels: { app: 'x' } }, spec: { nodeName: 'n1' } });
  const factory = new SharedInformerFactory(fake);
  const inf = factory.informerFor(resources.pods);
  const seen: string[] = [];
  inf.addEventHandler({ onAdd: (o) => seen.push(`add ${o.metadata.name}`), onUpdate: (_, n) => seen.push(`update ${n.metadata.name}`), onDelete: (o) => seen.push(`delete ${o.metadata.name}`) });
  factory.start();
  t.teardown(() => { fake.close(); return factory.stop(); });
  await factory.waitForCacheSync();
  const pods = fake.resource(resources.pods);
  const b = await pods.create('ns', { metadata: { name: 'b', finalizers: ['keep'] }, spec: { containers: [] } });
  await t.rejects(pods.update({ ...b, metadata: { ...b.metadata, resourceVersion: '1' } }), { code: 409 });
  await pods.delete('ns', 'b');
  t.ok((await pods.get('ns', 'b')).metadata.deletionTimestamp, 'finalizer keeps it');
  const cur = await pods.get('ns', 'b');
  await pods.update({ ...cur, metadata: { ...cur.metadata, finalizers: [] } });
  await t.rejects(pods.get('ns', 'b'), { code: 404 });
  await eventually(() => seen.includes('delete b'));
  t.same(seen, ['add a', 'add b', 'update b', 'delete b']);
  t.same((await pods.list('ns', { fieldSelector: 'spec.nodeName=n1' })).items.map((p) => p.metadata.name), ['a']);
  t.same(fake.actions.map((a) => `${a.verb} ${a.name}`), ['create b', 'delete b', 'update b']);
});

t.test('delivered(): resolves only once the informers\' handlers have seen every write', async (t) => {
  const fake = new FakeClientset();
  const factory = new SharedInformerFactory(fake);
  const seen: string[] = [];
  factory.informerFor(resources.configmaps).addEventHandler({ onAdd: (o) => seen.push(o.metadata.name as string) });
  factory.start();
  t.teardown(() => { fake.close(); return factory.stop(); });
  await factory.waitForCacheSync();
  await fake.delivered();
  // Written synchronously: the watch consumer has not run for any of them yet.
  for (let i = 0; i < 50; i++) fake.seed(resources.configmaps, { metadata: { name: `cm-${i}`, namespace: 'ns' } });
  t.equal(seen.length, 0);
  await fake.delivered();
  t.equal(seen.length, 50, 'every create reached the handler before delivered() resolved');
  t.same(seen, Array.from({ length: 50 }, (_, i) => `cm-${i}`));
});
