// metrics-server's arithmetic in the API server's scraper: the rate between two scrapes, the
// rate since a container's start when it is first seen or restarted, no rate from one node
// sample, and quantities and windows as metrics.k8s.io writes them.
import t from 'tap';
import { cpuQuantity, goDuration, memoryQuantity, parseScrape, usageBetween } from '../../../src/apiserver/metrics-api/points.js';

const text = (cpu: number, at: number, start: number) => `# HELP container_cpu_usage_seconds_total x
# TYPE container_cpu_usage_seconds_total counter
container_cpu_usage_seconds_total{container="main",namespace="default",pod="web"} ${cpu} ${at}
container_memory_working_set_bytes{container="main",namespace="default",pod="web"} 1048576 ${at}
container_start_time_seconds{container="main",namespace="default",pod="web"} ${start / 1000} ${at}
node_cpu_usage_seconds_total ${cpu * 10} ${at}
node_memory_working_set_bytes 2e+09 ${at}
resource_scrape_error 0
`;

t.test('rates', async (t) => {
  const start = 1_700_000_000_000;
  const a = parseScrape(text(1, start + 10_000, start), 0), b = parseScrape(text(2.5, start + 25_000, start), 0);
  const first = usageBetween(undefined, a.pods.get('default/web')!.get('main')!);
  t.match(first, { cpu: 100_000_000, memory: 1048576, windowMs: 10_000 }, 'first seen: 1 core-second over the 10 s since start = 100m');
  t.match(usageBetween(a.pods.get('default/web')!.get('main'), b.pods.get('default/web')!.get('main')!), { cpu: 100_000_000, windowMs: 15_000 });
  t.equal(usageBetween(undefined, a.node!), null, 'a node needs two scrapes');
  t.match(usageBetween(a.node, b.node!), { cpu: 1_000_000_000, memory: 2e9 });
  const restarted = parseScrape(text(0.2, start + 40_000, start + 38_000), 0).pods.get('default/web')!.get('main')!;
  t.match(usageBetween(b.pods.get('default/web')!.get('main'), restarted), { cpu: 100_000_000, windowMs: 2_000 }, 'a restart counts from its new start');
});

t.test('quantities', async (t) => {
  t.equal(cpuQuantity(250_000_000), '250m');
  t.equal(cpuQuantity(1_234_567), '1234567n');
  t.equal(cpuQuantity(2e9), '2');
  t.equal(memoryQuantity(1048576), '1Mi');
  t.equal(memoryQuantity(1536 * 1024), '1536Ki');
  t.equal(memoryQuantity(1000), '1000');
  t.equal(goDuration(15_002), '15.002s');
  t.equal(goDuration(90_500), '1m30.5s');
});
