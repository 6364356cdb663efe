// Watch fan-out: N watchers of one resource on a `capstan apiserver` process, then sequential
// writes; for each write, the time from issuing it to each watcher receiving its event. Side by
// side in the same run: the same with one watcher (the fan-out's cost is the ratio), and the
// API server's RSS before and after opening the watchers (memory per watcher). The watchers
// come three ways: each its own HTTP/1.1 TLS connection, as separate clients' watches are; all
// as streams of one HTTP/2 connection, as one client-go process shares its connection; and
// spread over 10 HTTP/2 connections.
// The watchers are read by child processes (bench/lib/watch-client.ts), several for the rows
// with many connections, so the client's own reading is not one thread's queue; the server's
// and the clients' CPU time during the writes are reported apart. With --compare, a second
// checkout's server (its bin/capstan.js) runs the same rows in the same run, alternating.
// Usage: node dist/bench/watch-fanout.js [--watchers 1000] [--writes 100] [--clients 4]
//   [--rows one,h1,h2-one,h2-ten] [--compare /work/main]
import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startAPIServerProcess, type APIServerProcess } from '../test/helpers/apiserver-process.js';
import { APIClient } from '../test/helpers/api.js';
import { summarize, type Summary } from './lib/stats.js';
import { table, writeReport } from './lib/report.js';
import type { ClientMessage, OpenMessage } from './lib/watch-client.js';

const { values } = parseArgs({ options: {
  watchers: { type: 'string', default: '1000' }, writes: { type: 'string', default: '100' },
  clients: { type: 'string', default: '4' }, rows: { type: 'string', default: 'one,h1,h2-one,h2-ten' },
  compare: { type: 'string' },
} });
const watchers = Number(values.watchers);
const writes = Number(values.writes);
const clientProcesses = Number(values.clients);
const teardowns: (() => unknown)[] = [];
const t = { teardown: (fn: () => unknown) => { teardowns.push(fn); } };
const payload = 'v'.repeat(1024);
const configMap = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { payload } });

const rssKiB = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
/** utime + stime of a process, in ms (clock ticks of 10 ms). */
const cpuMs = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
};
const load = () => loadavg()[0]!.toFixed(1);

/** One child process reading a share of the watchers. */
class WatchClient {
  private child: ChildProcess;
  private handlers = new Set<(m: ClientMessage) => void>();
  constructor() {
    this.child = fork(fileURLToPath(new URL('./lib/watch-client.js', import.meta.url)), [], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      // CAPSTAN_PROF profiles the clients as well as the server (the test helper's variable).
      execArgv: process.env.CAPSTAN_PROF ? ['--cpu-prof', '--cpu-prof-dir', join(process.env.CAPSTAN_PROF, 'clients')] : [],
    });
    this.child.on('message', (m: ClientMessage) => { for (const h of this.handlers) h(m); });
    teardowns.push(() => { if (this.child.exitCode === null) this.child.kill('SIGKILL'); });
  }
  on(h: (m: ClientMessage) => void): void { this.handlers.add(h); }
  private next(op: ClientMessage['op']): Promise<ClientMessage> {
    return new Promise((resolve, reject) => {
      const h = (m: ClientMessage) => {
        if (m.op === 'failed') { this.handlers.delete(h); reject(new Error(m.error)); }
        if (m.op === op) { this.handlers.delete(h); resolve(m); }
      };
      this.handlers.add(h);
    });
  }
  async open(o: OpenMessage): Promise<void> {
    const opened = this.next('opened');
    this.child.send({ op: 'open', open: o });
    await opened;
  }
  async close(): Promise<number> {
    const closed = this.next('closed');
    this.child.send({ op: 'close' });
    return ((await closed) as { cpuMs: number }).cpuMs;
  }
}

/** How the watchers reach the server: each on its own HTTP/1.1 connection, or as streams over `connections` HTTP/2 ones. */
type Transport = { kind: 'http/1.1' } | { kind: 'h2'; connections: number };

interface Run {
  build: string; label: string; watchers: number; latency: Summary; rssPerWatcherKiB: number; openSeconds: number;
  serverCpuPerWriteMs: number; clientCpuPerWriteMs: number; load: string;
}

async function fanout(build: string, p: APIServerProcess, api: APIClient, ns: string, n: number, via: Transport): Promise<Run> {
  const cms = `/api/v1/namespaces/${ns}/configmaps`;
  const rv = (await api.get(cms)).body.metadata.resourceVersion;
  const path = `${cms}?watch=true&resourceVersion=${rv}`;
  // One HTTP/2 connection is one client's; otherwise the watchers (or connections) are shared
  // out over the client processes.
  const units = via.kind === 'h2' ? via.connections : n;
  const k = Math.max(1, Math.min(clientProcesses, units));
  const shares = Array.from({ length: k }, (_, i) => Math.floor(units / k) + (i < units % k ? 1 : 0));
  const clients = shares.map(() => new WatchClient());
  const samples: number[] = [];
  let current = '';
  let started = 0;
  let waiting = 0;
  let done: () => void = () => undefined;
  for (const c of clients) {
    c.on((m) => {
      if (m.op !== 'arrived' || m.name !== current) return;
      for (const at of m.at) samples.push((at - started) / 1e6);
      if (--waiting === 0) done();
    });
  }
  global.gc?.();
  const rssBefore = rssKiB(p.pid);
  const t0 = process.hrtime.bigint();
  const creds = { port: p.port, ca: p.pki.ca.certPem, cert: p.pki.admin.certPem, key: p.pki.admin.keyPem, path };
  await Promise.all(clients.map((c, i) => c.open({
    ...creds, transport: via.kind,
    watchers: via.kind === 'h2' ? Math.round((n * shares[i]!) / units) : shares[i]!,
    connections: via.kind === 'h2' ? shares[i]! : 0,
  })));
  const openSeconds = Number(process.hrtime.bigint() - t0) / 1e9;
  await new Promise((r) => setTimeout(r, 1000));
  const rssAfter = rssKiB(p.pid);
  const serverCpu0 = cpuMs(p.pid);
  const loadAtStart = load();
  for (let i = 0; i < writes; i++) {
    current = `${ns}-${i}`;
    waiting = clients.length;
    const arrived = new Promise<void>((r) => { done = r; });
    started = Number(process.hrtime.bigint());
    const r = await api.post(cms, configMap(current));
    if (r.status !== 201) throw new Error(`create: ${r.status} ${r.text.slice(0, 200)}`);
    await arrived;
  }
  const serverCpu = cpuMs(p.pid) - serverCpu0;
  let clientCpu = 0;
  for (const c of clients) clientCpu += await c.close();
  const label = via.kind === 'http/1.1' ? `HTTP/1.1, ${n === 1 ? 'one connection' : 'a connection each'}` : `HTTP/2, ${via.connections === 1 ? 'one connection' : `${via.connections} connections`} of ${n / via.connections} streams`;
  return {
    build, label, watchers: n, latency: summarize(samples), rssPerWatcherKiB: (rssAfter - rssBefore) / n, openSeconds,
    serverCpuPerWriteMs: serverCpu / writes, clientCpuPerWriteMs: clientCpu / writes, load: `${loadAtStart}–${load()}`,
  };
}

try {
  const builds: { build: string; bin?: string }[] = [{ build: 'this' }];
  if (values.compare) builds.unshift({ build: values.compare, bin: join(values.compare, 'bin', 'capstan.js') });
  const { Agent } = await import('node:https');
  const servers: { build: string; p: APIServerProcess; api: APIClient }[] = [];
  for (const b of builds) {
    // One connection must carry all the watchers (kube-apiserver's flag; its default is 100).
    const p = await startAPIServerProcess(t, { bin: b.bin, args: ['--http2-max-streams-per-connection', String(watchers)] });
    const api = new APIClient(p.port, { ca: p.pki.ca.certPem, cert: p.pki.admin.certPem, key: p.pki.admin.keyPem }, new Agent({ keepAlive: true, maxSockets: 4 }));
    servers.push({ build: b.build, p, api });
  }
  const loadAtStart = load();
  const runs: Run[] = [];
  const allRows: Record<string, [number, Transport]> = {
    one: [1, { kind: 'http/1.1' }], h1: [watchers, { kind: 'http/1.1' }],
    'h2-one': [watchers, { kind: 'h2', connections: 1 }], 'h2-ten': [watchers, { kind: 'h2', connections: 10 }],
  };
  for (const row of values.rows!.split(',')) {
    const [n, via] = allRows[row] ?? (() => { throw new Error(`unknown row ${row}`); })();
    for (const { build, p, api } of servers) {
      if ((await api.post('/api/v1/namespaces', { metadata: { name: row } })).status !== 201) throw new Error('namespace');
      runs.push(await fanout(build, p, api, row, n, via));
      const r = runs.at(-1)!;
      console.error(`${build} ${r.label}: p50 ${r.latency.p50.toFixed(2)} p99 ${r.latency.p99.toFixed(2)} ms, server ${r.serverCpuPerWriteMs.toFixed(1)} client ${r.clientCpuPerWriteMs.toFixed(1)} ms CPU a write, load ${r.load}`);
    }
  }
  const fmt = (v: number) => v.toFixed(2);
  const mine = runs.filter((r) => r.build === 'this');
  const one = mine.find((r) => r.watchers === 1);
  const best = mine.filter((r) => r.watchers > 1).reduce((a, b) => (b.latency.p99 < a.latency.p99 ? b : a));
  let body = `One \`capstan apiserver\` process per build (SQLite, HTTPS, JSON); ${writes} sequential ConfigMap creates (1 KB) in one namespace, each awaited until every watcher of that namespace's ConfigMaps has its ADDED event. Latency is from issuing the create to a watcher receiving the event, over every (write, watcher) pair. The watchers are read by child processes (one for a single HTTP/2 connection, as one client-go process shares one; otherwise up to ${clientProcesses}, the connections shared out), each stamping arrivals with the machine's monotonic clock. They reach the server each on its own HTTP/1.1 TLS connection (separate clients), or as streams of shared HTTP/2 connections (the client opens Go's flow-control windows, 4 MiB a stream and 1 GiB a connection). CPU a write is the server's (its /proc stat) and the watch clients' (all processes) during the writes, divided by the writes. Memory per watcher is the API server's RSS growth from opening the watchers (their connections included) divided by their number. Every server started with \`--http2-max-streams-per-connection ${watchers}\`${servers.length > 1 ? `; \`${servers[0]!.build}\` is another checkout's build, run in the same process and alternated with this one row by row` : ''}. Load average ${loadAtStart} at the start, ${load()} at the end.\n\n`;
  body += table(['build', 'watchers', 'connections', 'write → event p50 ms', 'p99 ms', 'max ms', 'server CPU a write', 'clients\' CPU a write', 'RSS per watcher', 'opening them', 'load'],
    runs.map((r) => [r.build, String(r.watchers), r.label, fmt(r.latency.p50), fmt(r.latency.p99), fmt(r.latency.max), `${r.serverCpuPerWriteMs.toFixed(1)} ms`, `${r.clientCpuPerWriteMs.toFixed(1)} ms`, r.watchers > 1 ? `${r.rssPerWatcherKiB.toFixed(1)} KiB` : '—', `${r.openSeconds.toFixed(1)} s`, r.load]));
  body += `\n\nGoal: ${watchers} watchers, p99 < 20 ms: ${best.latency.p99 < 20 ? 'met' : 'not met'} (best ${fmt(best.latency.p99)} ms, ${best.label}${one ? `; one watcher ${fmt(one.latency.p99)} ms` : ''}).\n`;
  writeReport('watch-fanout', 'Watch fan-out', body);
} finally {
  for (const fn of teardowns.reverse()) await fn();
}
