// A throwing event handler is isolated: the other handlers get that event and every later
// one, the watch carries on, and the error is logged and counted.
import t from 'tap';
import { Registry } from 'prom-client';
import { FakeClientset, SharedInformerFactory, resources } from '../../src/client/index.js';
import { logger } from '../../src/log/index.js';
import { eventually } from '../helpers/kubectl.js';

t.test('a handler that throws does not cost the other handlers the event or stop the watch', async (t) => {
  const fake = new FakeClientset();
  const registry = new Registry();
  const lines: Record<string, unknown>[] = [];
  const log = logger('test', {}, (l) => { lines.push(JSON.parse(l)); });
  const factory = new SharedInformerFactory(fake, { log, registry });
  const inf = factory.informerFor(resources.configmaps);
  const a: string[] = [];
  const b: string[] = [];
  inf.addEventHandler({
    onAdd: (o) => { a.push(`add ${o.metadata.name}`); if (o.metadata.name === 'boom') throw new Error('handler bug'); },
    onUpdate: (_o, n) => { a.push(`update ${n.metadata.name}`); },
  }, 'thrower');
  inf.addEventHandler({
    onAdd: (o) => b.push(`add ${o.metadata.name}`),
    onUpdate: (_o, n) => b.push(`update ${n.metadata.name} ${n.data?.v}`),
    onDelete: (o) => b.push(`delete ${o.metadata.name}`),
  }, 'bystander');
  factory.start();
  t.teardown(() => { fake.close(); return factory.stop(); });
  await factory.waitForCacheSync();

  const cms = fake.resource(resources.configmaps);
  await cms.create('default', { metadata: { name: 'boom' }, data: { v: '1' } });
  await cms.create('default', { metadata: { name: 'after' } });
  await cms.patch('default', 'boom', 'merge', { data: { v: '2' } });
  await cms.delete('default', 'after');
  await eventually(() => b.includes('delete after'), 10_000, 'later events reach the bystander');
  t.same(b, ['add boom', 'add after', 'update boom 2', 'delete after'], 'the bystander saw every event once, in order');
  t.same(a, ['add boom', 'add after', 'update boom'], 'the thrower kept getting later events');
  t.ok(inf.lister.get('default', 'boom'), 'the cache holds the object');
  t.equal(inf.lister.get('default', 'boom')!.data?.v, '2');

  t.equal(inf.handlerErrorCount('thrower'), 1);
  const metric = await registry.getSingleMetric('capstan_informer_handler_errors_total')!.get();
  t.same(metric.values.map((v) => [v.labels, v.value]), [[{ informer: '/configmaps', handler: 'thrower' }, 1]], 'counted by informer and handler');
  const logged = lines.filter((l) => l.msg?.toString().includes('handler failed'));
  t.equal(logged.length, 1);
  t.match(logged[0], { level: 'error', informer: '/configmaps', handler: 'thrower', event: 'add', key: 'default/boom', error: 'handler bug' });
});
