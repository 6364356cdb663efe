// Admin request latency while 1,000 unauthenticated TLS connections sit idle on the API
// server, against none, in the same run: rounds alternate between the two so drift on the
// shared machine hits both alike. Two admin clients: a new TLS connection per request (as each
// kubectl invocation does) and one kept-alive connection (as client-go does). All on loopback.
// The API server runs as its own process (`capstan apiserver`), with its default limits; a
// second loaded figure holds more idle connections than the cap of 1,000.
// Usage: node dist/bench/connection-limits.js [--idle 1000,3000] [--requests 200] [--rounds 3]
import { parseArgs } from 'node:util';
import { loadavg } from 'node:os';
import { Agent } from 'node:https';
import { connect, type TLSSocket } from 'node:tls';
import { startAPIServerProcess, type APIServerProcess } from '../test/helpers/apiserver-process.js';
import { APIClient } from '../test/helpers/api.js';
import { summarize } from './lib/stats.js';
import { table, writeReport } from './lib/report.js';
import { defineSuite, Recorder, runIfMain, type Progress } from './lib/suite.js';

const options = { idle: { type: 'string', default: '1000,3000' }, requests: { type: 'string', default: '200' }, rounds: { type: 'string', default: '3' } } as const;
let idleCounts = [1000, 3000];
let requests = 200;
let rounds = 3;
const teardowns: (() => unknown)[] = [];
const t = { teardown: (fn: () => unknown) => { teardowns.push(fn); } };

function openIdle(p: APIServerProcess): Promise<TLSSocket | undefined> {
  return new Promise((resolve) => {
    const s = connect({ host: '127.0.0.1', port: p.port, ca: p.pki.ca.certPem }, () => resolve(s));
    s.on('error', () => resolve(undefined));
  });
}

async function holdIdle(p: APIServerProcess, n: number): Promise<TLSSocket[]> {
  const out: TLSSocket[] = [];
  // A few at a time: the server's handshakes are the cost, not the client's.
  for (let i = 0; i < n; i += 50) {
    const batch = await Promise.all(Array.from({ length: Math.min(50, n - i) }, () => openIdle(p)));
    for (const s of batch) if (s) out.push(s);
  }
  return out;
}

async function timeRequests(client: APIClient, n: number): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = process.hrtime.bigint();
    const r = await client.get('/api/v1/namespaces/default');
    if (r.status !== 200) throw new Error(`admin request answered ${r.status}`);
    samples.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return samples;
}

async function main(progress: Progress) {
  const server = await startAPIServerProcess(t);
  const creds = { ca: server.pki.ca.certPem, cert: server.pki.admin.certPem, key: server.pki.admin.keyPem };
  const fresh = new APIClient(server.port, creds);
  const kept = new APIClient(server.port, creds, new Agent({ keepAlive: true, maxSockets: 1 }));
  const none = { fresh: [] as number[], kept: [] as number[] };
  const loaded = idleCounts.map((n) => ({ n, fresh: [] as number[], kept: [] as number[], stillOpen: [] as number[] }));
  await timeRequests(kept, 50); // warm-up
  const loadBefore = loadavg()[0];
  for (let round = 0; round < rounds; round++) {
    progress(`round ${round + 1}/${rounds}`);
    none.fresh.push(...await timeRequests(fresh, requests));
    none.kept.push(...await timeRequests(kept, requests));
    for (const l of loaded) {
      const idle = await holdIdle(server, l.n);
      l.fresh.push(...await timeRequests(fresh, requests));
      l.kept.push(...await timeRequests(kept, requests));
      l.stillOpen.push(idle.filter((s) => !s.destroyed && !s.closed).length);
      for (const s of idle) s.destroy();
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  const rows: (string | number)[][] = [];
  for (const kind of ['fresh', 'kept'] as const) {
    const a = summarize(none[kind]);
    const label = kind === 'fresh' ? 'new TLS connection per request (kubectl)' : 'one kept-alive connection (client-go)';
    rows.push([label, 'none', a.n, a.p50.toFixed(2), a.p99.toFixed(2), '1.00']);
    for (const l of loaded) {
      const b = summarize(l[kind]);
      rows.push([label, `${l.n} idle`, b.n, b.p50.toFixed(2), b.p99.toFixed(2), (b.p99 / a.p99).toFixed(2)]);
    }
  }
  const report = writeReport('connection-limits', 'Admin latency under idle unauthenticated connections', `
GET /api/v1/namespaces/default with the admin client certificate against a \`capstan apiserver\` process on SQLite, sequentially, ${requests} requests per client per round, ${rounds} rounds, each measuring "none" and then each loaded figure. The idle connections finished their TLS handshake without a client certificate and sent nothing; they are opened at the start of each loaded round and closed at its end. All traffic on loopback; the API server, the idle sockets and the admin client share the machine's cores.

${table(['admin client', 'unauthenticated idle connections', 'requests', 'p50 ms', 'p99 ms', 'p99 ratio to none'], rows)}

${loaded.map((l) => `* ${l.n} idle: still open at the end of each round ${l.stillOpen.join(', ')}.`).join('\n')}
* Load average (1 min) ${loadBefore.toFixed(1)} at the start, ${loadavg()[0].toFixed(1)} at the end (other work shares the 2 cores; single p99s move between runs).
* The default cap on unauthenticated connections is 1,000, oldest closed first; every new connection counts until its TLS handshake shows a client certificate (or a request on it authenticates), so each admin connection pushes out one idle one. TLS handshake timeout 10 s, headers timeout 60 s.
`);
  const rec = new Recorder();
  for (const kind of ['fresh', 'kept'] as const) {
    const figure = kind === 'fresh' ? 'admin GET, new TLS connection per request' : 'admin GET, one kept-alive connection';
    const base = rec.metric({ figure, system: 'no idle connections', baseline: true, unit: 'ms', samples: none[kind] });
    for (const l of loaded) rec.ratio(rec.metric({ figure, system: `capstan with ${l.n} idle unauthenticated`, unit: 'ms', samples: l[kind] }), base, 'p99');
  }
  return rec.output(report);
}

async function runAll(progress: Progress) {
try {
  return await main(progress);
} finally {
  for (const fn of teardowns.reverse()) await fn();
}
}

export const suite = defineSuite({
  name: 'connection-limits',
  title: 'Admin latency under idle unauthenticated connections',
  params: { full: { idle: idleCounts, requests, rounds }, quick: { idle: [300], requests: 30, rounds: 1 } },
  fromArgv: (argv) => {
    const v = parseArgs({ args: argv, options }).values;
    return { idle: v.idle.split(',').map(Number), requests: Number(v.requests), rounds: Number(v.rounds) };
  },
  run: (p, progress) => {
    [idleCounts, requests, rounds] = [p.idle, p.requests, p.rounds];
    return runAll(progress);
  },
});
runIfMain(import.meta.url, suite);
