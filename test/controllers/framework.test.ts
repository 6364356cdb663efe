// The queue-driven controller framework: each reconcile logs through a logger carrying its
// controller, key and reconcileID; metrics land on every context's registry, also when a new
// leadership term builds the controllers again on the same registry.
import t from 'tap';
import { Registry } from 'prom-client';
import { FakeClientset, FakeClock, SharedInformerFactory } from '../../src/client/index.js';
import { QueueController, type ControllerContext } from '../../src/controllers/framework.js';
import { logger } from '../../src/log/index.js';
import { controllerContext, queueDriver } from '../helpers/controller-context.js';

class Echo extends QueueController {
  failOnce = new Set<string>();
  constructor(ctx: ControllerContext) { super('echo', ctx); }
  async reconcile(key: string): Promise<void> {
    this.log.info('reconciling');
    await new Promise((r) => setImmediate(r));
    this.log.info('after an await');
    if (this.failOnce.delete(key)) throw new Error('try again');
  }
  idle(): void { this.log.info('outside'); }
}

function setup(registry?: Registry) {
  const clock = new FakeClock();
  const fake = new FakeClientset(clock);
  const lines: Record<string, unknown>[] = [];
  const log = logger('controller-manager', {}, (l) => { lines.push(JSON.parse(l)); });
  const ctx: ControllerContext = { ...controllerContext({ clients: fake, informers: new SharedInformerFactory(fake, { clock }), clock, log }), metrics: registry };
  const c = new Echo(ctx);
  return { c, clock, lines, drive: queueDriver(c, fake, clock) };
}

t.test('every line a reconcile logs carries the controller, the key and one reconcileID per reconcile', async (t) => {
  const { c, lines, drive } = setup();
  t.teardown(() => c.stop());
  c.failOnce.add('ns/b');
  c.enqueue('ns/a');
  c.enqueue('ns/b');
  await drive.drain();
  await drive.advance(1000);
  const reconcileLines = lines.filter((l) => l.msg === 'reconciling' || l.msg === 'after an await' || l.msg === 'reconcile failed, will retry');
  t.equal(reconcileLines.length, 2 + 3 + 2, 'a once, b failed once then again');
  for (const l of reconcileLines) {
    t.equal(l.controller, 'echo');
    t.ok(l.key === 'ns/a' || l.key === 'ns/b', `key on "${l.msg}"`);
    t.match(l.reconcileID, /^[0-9a-f-]{36}$/, 'a reconcileID (UUID, as controller-runtime)');
  }
  const ids = (key: string) => new Set(reconcileLines.filter((l) => l.key === key).map((l) => l.reconcileID));
  t.equal(ids('ns/a').size, 1, 'one ID for one reconcile');
  t.equal(ids('ns/b').size, 2, 'a retry is a new reconcile with a new ID');
  const failed = reconcileLines.find((l) => l.msg === 'reconcile failed, will retry')!;
  t.match(failed, { level: 'warn', key: 'ns/b', error: 'try again' });
  t.ok([...ids('ns/b')].includes(failed.reconcileID), 'the failure carries the failed reconcile\'s ID');
  c.idle();
  t.notOk('key' in lines.at(-1)!, 'outside a reconcile the logger has no key');
});

t.test('controller and workqueue metrics land on each context\'s registry, and again after a new term', async (t) => {
  const sum = async (registry: Registry, metric: string, labels: Record<string, string>) =>
    (await registry.getSingleMetric(metric)?.get())?.values.filter((v) => Object.entries(labels).every(([k, x]) => v.labels[k] === x)).reduce((n, v) => n + v.value, 0);
  const first = new Registry();
  const second = new Registry();
  for (const registry of [first, second, first]) {
    const { c, drive } = setup(registry);
    c.enqueue('ns/a');
    await drive.drain();
    await c.stop();
  }
  t.equal(await sum(first, 'capstan_controller_reconcile_total', { controller: 'echo', result: 'success' }), 2, 'two terms on the first registry');
  t.equal(await sum(second, 'capstan_controller_reconcile_total', { controller: 'echo', result: 'success' }), 1, 'not only on the first registry');
  t.equal(await sum(second, 'workqueue_adds_total', { name: 'echo' }), 1);
  t.equal(await sum(first, 'workqueue_adds_total', { name: 'echo' }), 2);
  t.match(await second.metrics(), /^workqueue_work_duration_seconds_count\{name="echo"\} 1$/m);
});
