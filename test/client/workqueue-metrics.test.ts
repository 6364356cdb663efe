// The work queue reports upstream's workqueue_* metrics, labelled by name, on the registry it
// is given; time is the queue's clock.
import t from 'tap';
import { Registry } from 'prom-client';
import { FakeClock } from '../../src/client/clock.js';
import { WorkQueue } from '../../src/client/workqueue.js';

async function value(registry: Registry, metric: string, labels: Record<string, string> = { name: 'things' }): Promise<number | undefined> {
  // A histogram's _sum and _count are values of the family named without the suffix.
  const family = metric.replace(/_(sum|count)$/, '');
  const m = registry.getSingleMetric(family);
  if (!m) return undefined;
  const values = (await m.get()).values;
  return values.find((v) => ((v as { metricName?: string }).metricName ?? family) === metric && Object.entries(labels).every(([k, x]) => v.labels[k] === x))?.value;
}

t.test('adds, depth, latencies, in-flight work and retries are visible on the registry', async (t) => {
  const registry = new Registry();
  const clock = new FakeClock();
  const q = new WorkQueue(clock, undefined, { name: 'things', registry });
  q.add('a');
  q.add('a');
  q.add('b');
  t.equal(await value(registry, 'workqueue_depth'), 2);
  t.equal(await value(registry, 'workqueue_adds_total'), 2, 'a folded add is not counted');

  clock.step(3000);
  const a = await q.get();
  t.equal(await value(registry, 'workqueue_depth'), 1);
  t.equal(await value(registry, 'workqueue_queue_duration_seconds_count'), 1);
  t.equal(await value(registry, 'workqueue_queue_duration_seconds_sum'), 3, 'waited 3s in the queue');

  clock.step(2000);
  t.equal(await value(registry, 'workqueue_unfinished_work_seconds'), 2);
  t.equal(await value(registry, 'workqueue_longest_running_processor_seconds'), 2);
  const b = await q.get();
  clock.step(1000);
  t.equal(await value(registry, 'workqueue_unfinished_work_seconds'), 4, '3s of a plus 1s of b');
  t.equal(await value(registry, 'workqueue_longest_running_processor_seconds'), 3);

  q.addRateLimited(a!);
  q.done(a!);
  q.done(b!);
  t.equal(await value(registry, 'workqueue_retries_total'), 1);
  t.equal(await value(registry, 'workqueue_work_duration_seconds_count'), 2);
  t.equal(await value(registry, 'workqueue_work_duration_seconds_sum'), 3 + 1, 'a ran 3s, b 1s');
  t.equal(await value(registry, 'workqueue_unfinished_work_seconds'), 0);

  const text = await registry.metrics();
  for (const name of ['workqueue_depth', 'workqueue_adds_total', 'workqueue_queue_duration_seconds', 'workqueue_work_duration_seconds',
    'workqueue_unfinished_work_seconds', 'workqueue_longest_running_processor_seconds', 'workqueue_retries_total']) {
    t.match(text, new RegExp(`^${name}(_bucket|_sum|_count)?\\{[^}]*name="things"`, 'm'), `${name} is exported`);
  }
});

t.test('two queues share the families on one registry; a second registry gets its own', async (t) => {
  const one = new Registry();
  const two = new Registry();
  const clock = new FakeClock();
  const q1 = new WorkQueue(clock, undefined, { name: 'first', registry: one });
  const q2 = new WorkQueue(clock, undefined, { name: 'second', registry: one });
  const q3 = new WorkQueue(clock, undefined, { name: 'first', registry: two });
  q1.add('x');
  q2.add('x');
  q2.add('y');
  q3.add('z');
  t.equal(await value(one, 'workqueue_adds_total', { name: 'first' }), 1);
  t.equal(await value(one, 'workqueue_adds_total', { name: 'second' }), 2);
  t.equal(await value(two, 'workqueue_adds_total', { name: 'first' }), 1);
  t.equal(await value(two, 'workqueue_depth', { name: 'second' }), undefined);
  // A queue shut down reads zero; one built again under the same name on the same registry
  // (a new leadership term) takes over.
  const started = await q2.get();
  clock.step(1000);
  t.equal(await value(one, 'workqueue_longest_running_processor_seconds', { name: 'second' }), 1);
  q2.done(started!);
  await q1.shutDown();
  await q2.shutDown();
  t.equal(await value(one, 'workqueue_depth', { name: 'second' }), 0, 'a stopped queue has no depth');
  t.equal(await value(one, 'workqueue_longest_running_processor_seconds', { name: 'second' }), 0);
  const q1again = new WorkQueue(clock, undefined, { name: 'first', registry: one });
  q1again.add('p');
  q1again.add('q');
  t.equal(await value(one, 'workqueue_depth', { name: 'first' }), 2);
  t.equal(await value(one, 'workqueue_adds_total', { name: 'first' }), 3);
});
