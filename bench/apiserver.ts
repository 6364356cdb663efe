// API server throughput and latency, side by side with the raw store doing the same work in
// the same run: creates (vs raw SQLite inserts / etcd puts and the Store layer), gets, lists
// and watch delivery. The API server runs as its own process (`capstan apiserver`), as users
// run it; the client is this process. Usage: node dist/bench/apiserver.js [--count N]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Agent, request } from 'node:https';
import { openStore, type Store } from '../src/storage/index.js';
import { startAPIServerProcess, type APIServerProcess } from '../test/helpers/apiserver-process.js';
import { startEtcd, type EtcdCluster } from '../test/helpers/etcd.js';
import { APIClient } from '../test/helpers/api.js';
import { benchRawEtcd, benchRawSqlite } from './lib/raw-store.js';
import { timeOps, type BenchResult } from './lib/latency.js';
import { summarize } from './lib/stats.js';
import { table, writeReport } from './lib/report.js';
import { defineSuite, runIfMain, type Progress } from './lib/suite.js';
import { emitRows } from './lib/apiserver-results.js';
import { command } from './lib/prereq.js';

let values = { count: '2000', backends: 'sqlite,etcd' };
let count = Number(values.count);
let progress: Progress = () => undefined;
const payload = 'v'.repeat(1024);
const teardowns: (() => unknown)[] = [];
const t = { teardown: (fn: () => unknown) => { teardowns.push(fn); } };

const configMap = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { payload } });
// Clients keep TLS connections alive (client-go does); a handshake per request would measure RSA, not the server.
const clientFor = (p: APIServerProcess) => new APIClient(p.port, { ca: p.pki.ca.certPem, cert: p.pki.admin.certPem, key: p.pki.admin.keyPem }, new Agent({ keepAlive: true, maxSockets: 16 }));

/**
 * A GET whose reply is only received, not parsed: a list is compared with Store.list, which
 * hands out the stored bytes undecoded, so the client's JSON.parse of a megabyte is not the
 * server's time.
 */
function getUnparsed(p: APIServerProcess, agent: Agent, path: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: p.port, path, servername: 'localhost', agent, ca: p.pki.ca.certPem, cert: p.pki.admin.certPem, key: p.pki.admin.keyPem, headers: { Accept: 'application/json' } }, (res) => {
      let bytes = 0;
      const first: Buffer[] = [];
      res.on('data', (c: Buffer) => { bytes += c.length; if (first.length === 0) first.push(c); });
      res.on('error', reject);
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: bytes ? first[0].toString('utf8', 0, 200) : '' }));
    });
    req.on('error', reject);
    req.end();
  });
}

async function mustOK(p: Promise<{ status: number; text: string }>, want: number): Promise<void> {
  const r = await p;
  if (r.status !== want) throw new Error(`unexpected ${r.status}: ${r.text.slice(0, 200)}`);
}

/** Time from issuing a write to receiving its watch event, for `n` sequential writes. */
async function watchDelivery(n: number, subscribe: (onEvent: (name: string) => void) => Promise<() => void>, write: (name: string) => Promise<void>) {
  const pending = new Map<string, { start: bigint; done: () => void }>();
  const samples: number[] = [];
  const stop = await subscribe((name) => {
    const p = pending.get(name);
    if (!p) return;
    samples.push(Number(process.hrtime.bigint() - p.start) / 1e6);
    pending.delete(name);
    p.done();
  });
  for (let i = 0; i < n; i++) {
    const name = `w-${i}`;
    const arrived = new Promise<void>((done) => pending.set(name, { start: process.hrtime.bigint(), done }));
    await write(name);
    await arrived;
  }
  stop();
  return summarize(samples);
}

interface Row { what: string; api: BenchResult | { p50Ms: number; p99Ms: number; opsPerSec?: number }; raw: BenchResult | { p50Ms: number; p99Ms: number; opsPerSec?: number }; rawName: string }

async function benchBackend(name: 'sqlite' | 'etcd'): Promise<Row[]> {
  let etcd: EtcdCluster | undefined;
  if (name === 'etcd') { etcd = await startEtcd({ members: 1 }); teardowns.push(() => etcd!.stop()); }
  const server = await startAPIServerProcess(t, etcd ? { store: etcd.url } : {});
  const api = clientFor(server);
  const listAgent = new Agent({ keepAlive: true, maxSockets: 1 });
  const rawDir = mkdtempSync(join(tmpdir(), 'capstan-bench-raw-'));
  teardowns.push(() => rmSync(rawDir, { recursive: true, force: true }));
  const store: Store = await openStore(etcd ? `${etcd.url}?prefix=/raw-bench` : `sqlite://${join(rawDir, 'store.db')}`);
  teardowns.push(() => store.close());
  const rows: Row[] = [];
  const value = Buffer.from(JSON.stringify(configMap('x')));
  const rawKey = (ns: string, i: number) => `/registry/configmaps/${ns}/cm-${i}`;

  for (const c of [1, 16]) {
    await mustOK(api.post('/api/v1/namespaces', { metadata: { name: `c${c}` } }), 201);
    const apiCreate = await timeOps(`API create c=${c}`, count, c, (i) => mustOK(api.post(`/api/v1/namespaces/c${c}/configmaps`, configMap(`cm-${i}`)), 201));
    const raw = etcd
      ? await benchRawEtcd({ count, concurrency: c, endpoints: etcd.endpoints })
      : await benchRawSqlite({ count, dir: rawDir });
    rows.push({ what: `create, concurrency ${c}`, api: apiCreate, raw, rawName: etcd ? 'etcd put' : 'SQLite insert (1 row/tx, FULL)' });
    const storeCreate = await timeOps(`Store create c=${c}`, count, c, (i) => store.create(rawKey(`c${c}`, i), value));
    rows.push({ what: `create, concurrency ${c}`, api: apiCreate, raw: storeCreate, rawName: 'capstan Store.create' });
  }

  const apiGet = await timeOps('API get', count, 16, (i) => mustOK(api.get(`/api/v1/namespaces/c16/configmaps/cm-${i}`), 200));
  const rawGet = await timeOps('Store get', count, 16, (i) => store.get(rawKey('c16', i)));
  rows.push({ what: 'get, concurrency 16', api: apiGet, raw: rawGet, rawName: 'capstan Store.get' });

  const lists = 20;
  const apiList = await timeOps(`API list ${count}`, lists, 1, () => mustOK(getUnparsed(server, listAgent, '/api/v1/namespaces/c16/configmaps'), 200));
  const rawList = await timeOps(`Store list ${count}`, lists, 1, () => store.list('/registry/configmaps/c16/'));
  rows.push({ what: `list of ${count} objects`, api: apiList, raw: rawList, rawName: 'capstan Store.list' });

  const n = Math.min(500, count);
  await mustOK(api.post('/api/v1/namespaces', { metadata: { name: 'watch' } }), 201);
  const apiWatch = await watchDelivery(n, async (onEvent) => {
    const list = await api.get('/api/v1/namespaces/watch/configmaps');
    const w = await api.watch(`/api/v1/namespaces/watch/configmaps?watch=true&resourceVersion=${list.body.metadata.resourceVersion}`);
    void (async () => { for await (const ev of w) if (ev.type === 'ADDED') onEvent(ev.object.metadata.name); })().catch(() => undefined);
    return () => w.close();
  }, (name) => mustOK(api.post('/api/v1/namespaces/watch/configmaps', configMap(name)), 201));
  const rawWatch = await watchDelivery(n, async (onEvent) => {
    const w = await store.watch('/registry/configmaps/watch/', await store.currentRevision(), (ev) => onEvent(ev.key.split('/').pop()!), () => undefined);
    return () => void w.cancel();
  }, async (name) => { await store.create(`/registry/configmaps/watch/${name}`, value); });
  rows.push({ what: 'write → watch event', api: { p50Ms: apiWatch.p50, p99Ms: apiWatch.p99 }, raw: { p50Ms: rawWatch.p50, p99Ms: rawWatch.p99 }, rawName: 'capstan Store.watch' });
  listAgent.destroy();
  await server.stop();
  return rows;
}

const fmt = (v: number | undefined, d = 0) => (v === undefined ? '—' : v.toFixed(d));
const ratio = (a: number | undefined, b: number | undefined) => (a && b ? `${(a / b).toFixed(2)}×` : '—');

async function main() {
const rowsByBackend: [string, Row[]][] = [];
try {
  let body = `Each row is measured side by side in one run: the API server (a \`capstan apiserver\` process, HTTPS, client-certificate auth, JSON) against the raw store doing the same work. 1 KB ConfigMaps, ${count} operations per row. Ratios are API ÷ raw: throughput below 1× and latency above 1× are the API server's overhead.\n\n`;
  for (const backend of values.backends.split(',') as ('sqlite' | 'etcd')[]) {
    progress(backend);
    const rows = await benchBackend(backend);
    rowsByBackend.push([backend, rows]);
    body += `## ${backend === 'sqlite' ? 'SQLite (embedded default)' : 'etcd 3.4, one member'}\n\n`;
    body += table(['operation', 'baseline', 'API ops/s', 'raw ops/s', 'throughput ratio', 'API p50 ms', 'raw p50 ms', 'API p99 ms', 'raw p99 ms', 'p50 ratio', 'p99 ratio'],
      rows.map((r) => [r.what, r.rawName, fmt(r.api.opsPerSec), fmt(r.raw.opsPerSec), ratio(r.api.opsPerSec, r.raw.opsPerSec),
        fmt(r.api.p50Ms, 2), fmt(r.raw.p50Ms, 2), fmt(r.api.p99Ms, 2), fmt(r.raw.p99Ms, 2), ratio(r.api.p50Ms, r.raw.p50Ms), ratio(r.api.p99Ms, r.raw.p99Ms)]));
    body += '\n\n';
  }
  return emitRows(rowsByBackend, writeReport('apiserver', 'API server vs raw store', body));
} finally {
  for (const fn of teardowns.reverse()) await fn();
}
}

export const suite = defineSuite({
  name: 'apiserver',
  title: 'API server vs raw store',
  params: { full: { count: 2000, backends: ['sqlite', 'etcd'] }, quick: { count: 100, backends: ['sqlite'] } },
  requires: [(p) => (p.backends.includes('etcd') ? command('etcd', 'etcd-server')(p) : undefined)],
  fromArgv: (argv, full) => {
    const v = parseArgs({ args: argv, options: { count: { type: 'string', default: String(full.count) }, backends: { type: 'string', default: full.backends.join(',') } } }).values;
    return { count: Number(v.count), backends: v.backends.split(',') };
  },
  run: (p, report) => {
    values = { count: String(p.count), backends: p.backends.join(',') };
    count = p.count;
    progress = report;
    return main();
  },
});
runIfMain(import.meta.url, suite);
