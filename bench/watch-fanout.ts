// Watch fan-out: N watchers of one resource on a `capstan apiserver` process, then sequential
// writes; for each write, the time from issuing it to each watcher receiving its event. Side by
// side in the same run: the same with one watcher (the fan-out's cost is the ratio), and the
// API server's RSS before and after opening the watchers (memory per watcher). Each watcher is
// its own TLS connection, as separate clients' watches are.
// Usage: node dist/bench/watch-fanout.js [--watchers 1000] [--writes 100]
import { request, type Agent } from 'node:https';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { startAPIServerProcess, type APIServerProcess } from '../test/helpers/apiserver-process.js';
import { APIClient } from '../test/helpers/api.js';
import { summarize, type Summary } from './lib/stats.js';
import { table, writeReport } from './lib/report.js';

const { values } = parseArgs({ options: { watchers: { type: 'string', default: '1000' }, writes: { type: 'string', default: '100' } } });
const watchers = Number(values.watchers);
const writes = Number(values.writes);
const teardowns: (() => unknown)[] = [];
const t = { teardown: (fn: () => unknown) => { teardowns.push(fn); } };
const payload = 'v'.repeat(1024);
const configMap = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { payload } });

const rssKiB = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);

interface Stream { close(): void }

/** A watch that reports each event's object name with its arrival time; no per-event parse beyond that. */
function openWatch(p: APIServerProcess, path: string, onName: (name: string, at: bigint) => void): Promise<Stream> {
  return new Promise((resolve, reject) => {
    const req = request({
      host: '127.0.0.1', port: p.port, path, method: 'GET', servername: 'localhost', agent: false as unknown as Agent,
      ca: p.pki.ca.certPem, cert: p.pki.admin.certPem, key: p.pki.admin.keyPem, headers: { Accept: 'application/json' },
    }, (res) => {
      if (res.statusCode !== 200) { reject(new Error(`watch: ${res.statusCode}`)); return; }
      let rest = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        const at = process.hrtime.bigint();
        const lines = (rest + chunk).split('\n');
        rest = lines.pop()!;
        for (const line of lines) {
          const m = /"metadata":\{"name":"([^"]+)"/.exec(line);
          if (m) onName(m[1], at);
        }
      });
      resolve({ close: () => req.destroy() });
    });
    req.on('error', reject);
    req.end();
  });
}

interface Run { watchers: number; latency: Summary; rssPerWatcherKiB: number; openSeconds: number }

async function fanout(p: APIServerProcess, api: APIClient, ns: string, n: number): Promise<Run> {
  const cms = `/api/v1/namespaces/${ns}/configmaps`;
  const rv = (await api.get(cms)).body.metadata.resourceVersion;
  const samples: number[] = [];
  let current = '';
  let started = 0n;
  let waiting = 0;
  let done: () => void = () => undefined;
  const onName = (name: string, at: bigint) => {
    if (name !== current) return;
    samples.push(Number(at - started) / 1e6);
    if (--waiting === 0) done();
  };
  global.gc?.();
  const rssBefore = rssKiB(p.pid);
  const t0 = process.hrtime.bigint();
  const streams: Stream[] = [];
  // Opened a few at a time: each is a TLS handshake.
  for (let i = 0; i < n; i += 50) {
    streams.push(...await Promise.all(Array.from({ length: Math.min(50, n - i) }, () => openWatch(p, `${cms}?watch=true&resourceVersion=${rv}`, onName))));
  }
  const openSeconds = Number(process.hrtime.bigint() - t0) / 1e9;
  await new Promise((r) => setTimeout(r, 1000));
  const rssAfter = rssKiB(p.pid);
  for (let i = 0; i < writes; i++) {
    current = `${ns}-${i}`;
    waiting = n;
    const arrived = new Promise<void>((r) => { done = r; });
    started = process.hrtime.bigint();
    const r = await api.post(cms, configMap(current));
    if (r.status !== 201) throw new Error(`create: ${r.status} ${r.text.slice(0, 200)}`);
    await arrived;
  }
  for (const s of streams) s.close();
  return { watchers: n, latency: summarize(samples), rssPerWatcherKiB: (rssAfter - rssBefore) / n, openSeconds };
}

try {
  const p = await startAPIServerProcess(t);
  teardowns.push(() => p.stop());
  const { Agent } = await import('node:https');
  const api = new APIClient(p.port, { ca: p.pki.ca.certPem, cert: p.pki.admin.certPem, key: p.pki.admin.keyPem }, new Agent({ keepAlive: true, maxSockets: 4 }));
  const runs: Run[] = [];
  for (const [ns, n] of [['one', 1], ['many', watchers]] as const) {
    if ((await api.post('/api/v1/namespaces', { metadata: { name: ns } })).status !== 201) throw new Error('namespace');
    runs.push(await fanout(p, api, ns, n));
  }
  const [one, many] = runs;
  const fmt = (v: number) => v.toFixed(2);
  let body = `One \`capstan apiserver\` process (SQLite, HTTPS, JSON); ${writes} sequential ConfigMap creates (1 KB) in one namespace, each awaited until every watcher of that namespace's ConfigMaps has its ADDED event. Latency is from issuing the create to a watcher receiving the event, over every (write, watcher) pair; the client reads all watches in this one process. Memory per watcher is the API server's RSS growth from opening the watchers (TLS connection included) divided by their number. Both rows measured in the same run.\n\n`;
  body += table(['watchers', 'write → event p50 ms', 'p99 ms', 'max ms', 'p99 ratio to 1 watcher', 'RSS per watcher', 'opening them'],
    runs.map((r) => [String(r.watchers), fmt(r.latency.p50), fmt(r.latency.p99), fmt(r.latency.max), `${(r.latency.p99 / one.latency.p99).toFixed(1)}×`, r.watchers > 1 ? `${r.rssPerWatcherKiB.toFixed(1)} KiB` : '—', `${r.openSeconds.toFixed(1)} s`]));
  body += `\n\nGoal: ${watchers} watchers, p99 < 20 ms: ${many.latency.p99 < 20 ? 'met' : 'not met'} (${fmt(many.latency.p99)} ms).\n`;
  writeReport('watch-fanout', 'Watch fan-out', body);
} finally {
  for (const fn of teardowns.reverse()) await fn();
}
