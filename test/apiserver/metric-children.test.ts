// The request metrics' fast path (metric-children.ts) must leave /metrics exactly as
// prom-client's own API would: same series, counts, sums and buckets, also after a reset.
import t from 'tap';
import { Counter, Histogram, Registry } from 'prom-client';
import { CounterChildren, HistogramChildren } from '../../src/apiserver/metric-children.js';

function pair() {
  const registry = new Registry();
  const counter = new Counter({ name: 'requests_total', help: 'h', labelNames: ['verb', 'resource', 'code'], registers: [registry] });
  const histogram = new Histogram({ name: 'latency_seconds', help: 'h', labelNames: ['verb', 'resource'], buckets: [0.005, 0.025, 0.1, 1], registers: [registry] });
  return { registry, counter, histogram };
}

const observations: Array<[string, string, number, number]> = [
  ['POST', 'configmaps', 201, 0.001], ['POST', 'configmaps', 201, 0.03], ['GET', 'pods', 200, 0.005],
  ['POST', 'configmaps', 409, 2.5], ['GET', 'pods', 200, 0.1], ['GET', 'pods', 404, 0], ['POST', 'configmaps', 201, 1],
];

t.test('the same /metrics text as through prom-client', async (t) => {
  const plain = pair();
  const fast = pair();
  const counts = new CounterChildren(fast.counter);
  const latency = new HistogramChildren(fast.histogram);
  const feed = () => {
    for (const [verb, resource, code, seconds] of observations) {
      plain.counter.inc({ verb, resource, code: String(code) });
      plain.histogram.observe({ verb, resource }, seconds);
      counts.inc(`${verb} ${resource} ${code}`, () => ({ verb, resource, code: String(code) }));
      latency.observe(`${verb} ${resource}`, () => ({ verb, resource }), seconds);
    }
  };
  feed();
  feed();
  t.equal(await fast.registry.metrics(), await plain.registry.metrics());
  t.match(await fast.registry.metrics(), /requests_total\{verb="POST",resource="configmaps",code="201"\} 6/);

  plain.registry.resetMetrics();
  fast.registry.resetMetrics();
  feed();
  t.equal(await fast.registry.metrics(), await plain.registry.metrics(), 'after a reset');
});
