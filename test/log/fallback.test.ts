// The fallback reporter: counted every time on the component's registry, logged once per
// reason (or per reason and key), and module-level reporters follow the component's binding.
import t from 'tap';
import { Registry } from 'prom-client';
import { bindFallbacks, fallbackCount, fallbacks, FALLBACKS_METRIC } from '../../src/log/fallback.js';
import { logger } from '../../src/log/index.js';

const capture = () => {
  const lines: Record<string, unknown>[] = [];
  return { lines, log: logger('test', {}, (l) => { lines.push(JSON.parse(l)); }) };
};
const counted = async (registry: Registry) =>
  (await registry.getSingleMetric(FALLBACKS_METRIC)!.get()).values.map((v) => `${v.labels.component}/${v.labels.reason}=${v.value}`).sort();

t.test('counted every time, logged once per reason with the first error', async (t) => {
  const registry = new Registry();
  const { lines, log } = capture();
  const fallback = fallbacks('proxy-test', log, registry);
  for (let i = 0; i < 100; i++) fallback('incremental-apply-failed-full-sync', { error: new Error(`EBUSY ${i}`) });
  fallback('collect-deferred');
  t.same(await counted(registry), ['proxy-test/collect-deferred=1', 'proxy-test/incremental-apply-failed-full-sync=100']);
  t.same(lines.map((l) => [l.reason, l.error]), [['incremental-apply-failed-full-sync', 'EBUSY 0'], ['collect-deferred', undefined]]);
  t.equal(fallbackCount('proxy-test', 'incremental-apply-failed-full-sync'), 100);
});

t.test('`once` keys log each distinct key once; the metric keeps one series per reason', async (t) => {
  const registry = new Registry();
  const { lines, log } = capture();
  const fallback = fallbacks('decoder-test', log, registry);
  for (const key of ['Pod.99', 'Pod.99', 'Node.42']) fallback('untabled-field', { once: key });
  t.same(lines.map((l) => l.detail), ['Pod.99', 'Node.42']);
  t.same(await counted(registry), ['decoder-test/untabled-field=3']);
});

t.test('a module-level reporter counts on the registry its component bound, also one bound later', async (t) => {
  const fallback = fallbacks('bound-test');
  const first = new Registry();
  const { lines, log } = capture();
  bindFallbacks('bound-test', first, log);
  fallback('r');
  const second = new Registry();
  bindFallbacks('bound-test', second, log);
  fallback('r');
  t.same(await counted(first), ['bound-test/r=1']);
  t.same(await counted(second), ['bound-test/r=1']);
  t.equal(lines.length, 1, 'still logged once');
});
