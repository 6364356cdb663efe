// Hollow nodes' synthetic usage: a share of the requests by default, the test-hook annotations
// override it, cumulative CPU grows at the stated rate and never goes back, the node adds a
// base, and /metrics/resource renders it with upstream's names and timestamps.
import t from 'tap';
import type { Pod } from '../../src/api/kinds.js';
import { HollowUsage, containerUsage, CPU_USAGE_ANNOTATION } from '../../src/hollow/usage.js';
import { parseSamples, renderResourceMetrics } from '../../src/api/stats/resource-metrics.js';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const pod = (name: string, annotations: Record<string, string> = {}, requests: Record<string, string> = { cpu: '200m', memory: '64Mi' }): Pod => ({
  metadata: { name, namespace: 'default', uid: `uid-${name}`, annotations },
  spec: { nodeName: 'hollow-0', containers: [{ name: 'main', image: 'busybox', resources: { requests } }] },
  status: { phase: 'Running', startTime: new Date(T0).toISOString(), containerStatuses: [{ name: 'main', ready: true, restartCount: 0, image: 'busybox', imageID: '', state: { running: { startedAt: new Date(T0).toISOString() } } }] },
} as Pod);

t.test('defaults and the annotation hook', async (t) => {
  const c = pod('a').spec!.containers[0];
  t.same(containerUsage(pod('a'), c), { milliCPU: 20, memory: 32 * 2 ** 20 }, '10% of the CPU request, half the memory request');
  t.same(containerUsage(pod('a', { [CPU_USAGE_ANNOTATION]: '450m', 'hollow.capstan.io/memory-usage': '100Mi' }), c), { milliCPU: 450, memory: 100 * 2 ** 20 });
  const bare = pod('b', {}, {});
  t.same(containerUsage(bare, bare.spec!.containers[0]), { milliCPU: 1, memory: 8 * 2 ** 20 }, 'without requests: 1m and 8Mi');
});

t.test('counters integrate the rate and only grow', async (t) => {
  const u = new HollowUsage();
  const p = pod('a', { [CPU_USAGE_ANNOTATION]: '500m' });
  const s1 = u.summary('hollow-0', new Date(T0).toISOString(), [p], T0 + 10_000);
  t.equal(s1.pods[0].containers[0].cpu!.usageCoreNanoSeconds, 5e9, '0.5 core for 10 s since the container started');
  const slower = pod('a', { [CPU_USAGE_ANNOTATION]: '100m' });
  const s2 = u.summary('hollow-0', new Date(T0).toISOString(), [slower], T0 + 20_000);
  t.equal(s2.pods[0].containers[0].cpu!.usageCoreNanoSeconds, 6e9, 'then 0.1 core for 10 s');
  t.equal(s2.pods[0].cpu!.usageCoreNanoSeconds, 6e9, 'the pod sums its containers');
  t.equal(s2.node.memory!.workingSetBytes, 256 * 2 ** 20 + 32 * 2 ** 20, 'node: base plus its pods');
  const text = renderResourceMetrics(s2);
  const samples = parseSamples(text);
  t.match(samples.find((s) => s.name === 'container_cpu_usage_seconds_total'), { labels: { container: 'main', namespace: 'default', pod: 'a' }, value: 6, timestamp: T0 + 20_000 });
  t.match(samples.find((s) => s.name === 'container_start_time_seconds'), { value: T0 / 1000 });
  t.match(samples.find((s) => s.name === 'node_memory_working_set_bytes'), { value: 288 * 2 ** 20 });
  t.match(samples.find((s) => s.name === 'resource_scrape_error'), { value: 0 });
});
