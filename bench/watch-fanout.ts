// Watch fan-out: N watchers of one resource on a `capstan apiserver` process, then sequential
// writes; for each write, the time from issuing it to each watcher receiving its event. Side by
// side in the same run: the same with one watcher (the fan-out's cost is the ratio), and the
// API server's RSS before and after opening the watchers (memory per watcher). The watchers
// come three ways: each its own HTTP/1.1 TLS connection, as separate clients' watches are; all
// as streams of one HTTP/2 connection, as one client-go process shares its connection; and
// spread over 10 HTTP/2 connections.
// Usage: node dist/bench/watch-fanout.js [--watchers 1000] [--writes 100]
import { request, type Agent } from 'node:https';
import { connect as http2Connect, type ClientHttp2Session } from 'node:http2';
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
type OnName = (name: string, at: bigint) => void;

/** Reports each event's object name with its arrival time; no per-event parse beyond that. */
function eventReader(onName: OnName): (chunk: string) => void {
  let rest = '';
  return (chunk) => {
    const at = process.hrtime.bigint();
    const lines = (rest + chunk).split('\n');
    rest = lines.pop()!;
    for (const line of lines) {
      const m = /"metadata":\{"name":"([^"]+)"/.exec(line);
      if (m) onName(m[1], at);
    }
  };
}

/** A watch on a TLS connection of its own (HTTP/1.1, as Node's https client speaks). */
function openWatch(p: APIServerProcess, path: string, onName: OnName): Promise<Stream> {
  return new Promise((resolve, reject) => {
    const req = request({
      host: '127.0.0.1', port: p.port, path, method: 'GET', servername: 'localhost', agent: false as unknown as Agent,
      ca: p.pki.ca.certPem, cert: p.pki.admin.certPem, key: p.pki.admin.keyPem, headers: { Accept: 'application/json' },
    }, (res) => {
      if (res.statusCode !== 200) { reject(new Error(`watch: ${res.statusCode}`)); return; }
      res.setEncoding('utf8');
      res.on('data', eventReader(onName));
      resolve({ close: () => req.destroy() });
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * An HTTP/2 connection with client-go's flow-control windows (Go's transport: 4 MiB a stream,
 * 1 GiB the connection), so the client's window never paces the fan-out.
 */
function openSession(p: APIServerProcess): Promise<ClientHttp2Session> {
  return new Promise((resolve, reject) => {
    const s = http2Connect(`https://127.0.0.1:${p.port}`, {
      ca: p.pki.ca.certPem, cert: p.pki.admin.certPem, key: p.pki.admin.keyPem, servername: 'localhost',
      settings: { initialWindowSize: 4 << 20 },
    });
    s.once('error', reject);
    s.once('remoteSettings', () => { s.setLocalWindowSize(1 << 30); resolve(s); });
  });
}

/** A watch as one stream of a shared HTTP/2 connection. */
function openStreamWatch(s: ClientHttp2Session, path: string, onName: OnName): Promise<Stream> {
  return new Promise((resolve, reject) => {
    const req = s.request({ ':method': 'GET', ':path': path, accept: 'application/json' });
    req.once('response', (h) => {
      if (h[':status'] !== 200) { reject(new Error(`watch: ${h[':status']}`)); return; }
      req.setEncoding('utf8');
      req.on('data', eventReader(onName));
      resolve({ close: () => req.close() });
    });
    req.once('error', reject);
    req.end();
  });
}

/** How the watchers reach the server: each on its own HTTP/1.1 connection, or as streams over `connections` HTTP/2 ones. */
type Transport = { kind: 'http/1.1' } | { kind: 'h2'; connections: number };

interface Run { label: string; watchers: number; latency: Summary; rssPerWatcherKiB: number; openSeconds: number }

async function fanout(p: APIServerProcess, api: APIClient, ns: string, n: number, via: Transport): Promise<Run> {
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
  const sessions: ClientHttp2Session[] = [];
  const path = `${cms}?watch=true&resourceVersion=${rv}`;
  if (via.kind === 'http/1.1') {
    // Opened a few at a time: each is a TLS handshake.
    for (let i = 0; i < n; i += 50) {
      streams.push(...await Promise.all(Array.from({ length: Math.min(50, n - i) }, () => openWatch(p, path, onName))));
    }
  } else {
    for (let c = 0; c < via.connections; c++) sessions.push(await openSession(p));
    for (let i = 0; i < n; i += 50) {
      streams.push(...await Promise.all(Array.from({ length: Math.min(50, n - i) }, (_, j) => openStreamWatch(sessions[(i + j) % sessions.length]!, path, onName))));
    }
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
  for (const s of sessions) s.close();
  const label = via.kind === 'http/1.1' ? `HTTP/1.1, ${n === 1 ? 'one connection' : 'a connection each'}` : `HTTP/2, ${via.connections === 1 ? 'one connection' : `${via.connections} connections`} of ${n / via.connections} streams`;
  return { label, watchers: n, latency: summarize(samples), rssPerWatcherKiB: (rssAfter - rssBefore) / n, openSeconds };
}

try {
  // One connection must carry all the watchers (kube-apiserver's flag; its default is 100).
  const p = await startAPIServerProcess(t, { args: ['--http2-max-streams-per-connection', String(watchers)] });
  teardowns.push(() => p.stop());
  const { Agent } = await import('node:https');
  const api = new APIClient(p.port, { ca: p.pki.ca.certPem, cert: p.pki.admin.certPem, key: p.pki.admin.keyPem }, new Agent({ keepAlive: true, maxSockets: 4 }));
  const runs: Run[] = [];
  const rows: [string, number, Transport][] = [
    ['one', 1, { kind: 'http/1.1' }], ['many', watchers, { kind: 'http/1.1' }],
    ['h2-one', watchers, { kind: 'h2', connections: 1 }], ['h2-ten', watchers, { kind: 'h2', connections: 10 }],
  ];
  for (const [ns, n, via] of rows) {
    if ((await api.post('/api/v1/namespaces', { metadata: { name: ns } })).status !== 201) throw new Error('namespace');
    runs.push(await fanout(p, api, ns, n, via));
    console.error(`${runs.at(-1)!.label}: p99 ${runs.at(-1)!.latency.p99.toFixed(2)} ms`);
  }
  const [one] = runs;
  const best = runs.slice(1).reduce((a, b) => (b.latency.p99 < a.latency.p99 ? b : a));
  const fmt = (v: number) => v.toFixed(2);
  let body = `One \`capstan apiserver\` process (SQLite, HTTPS, JSON); ${writes} sequential ConfigMap creates (1 KB) in one namespace, each awaited until every watcher of that namespace's ConfigMaps has its ADDED event. Latency is from issuing the create to a watcher receiving the event, over every (write, watcher) pair; the client reads all watches in this one process. The watchers reach the server each on its own HTTP/1.1 TLS connection (separate clients), or as streams of shared HTTP/2 connections (as client-go shares one; the client here opens Go's flow-control windows, 4 MiB a stream and 1 GiB a connection). Memory per watcher is the API server's RSS growth from opening the watchers (their connections included) divided by their number. All rows measured in the same run, against one server started with \`--http2-max-streams-per-connection ${watchers}\`.\n\n`;
  body += table(['watchers', 'connections', 'write → event p50 ms', 'p99 ms', 'max ms', 'p99 ratio to 1 watcher', 'RSS per watcher', 'opening them'],
    runs.map((r) => [String(r.watchers), r.label, fmt(r.latency.p50), fmt(r.latency.p99), fmt(r.latency.max), `${(r.latency.p99 / one.latency.p99).toFixed(1)}×`, r.watchers > 1 ? `${r.rssPerWatcherKiB.toFixed(1)} KiB` : '—', `${r.openSeconds.toFixed(1)} s`]));
  body += `\n\nGoal: ${watchers} watchers, p99 < 20 ms: ${best.latency.p99 < 20 ? 'met' : 'not met'} (best ${fmt(best.latency.p99)} ms, ${best.label}).\n`;
  writeReport('watch-fanout', 'Watch fan-out', body);
} finally {
  for (const fn of teardowns.reverse()) await fn();
}
