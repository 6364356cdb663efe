// API server CPU per Lease renewal and per create, this build against another build (main's)
// in the same run. Each build runs its own `capstan apiserver` process; both are started
// first and their phases alternate, so the machine's load weighs on both alike. A renewal is
// what a hollow node (and a kubelet) sends: a PUT of its own Lease in kube-node-lease with a
// new renewTime, as `system:node:<name>` impersonated by the hollow-nodes identity that
// `capstan up` uses (its ClusterRole names every node). CPU is the server process's
// utime+stime over each phase (/proc), which load inflates for both sides but does not hide
// behind scheduling delays, as throughput and latency figures do on a busy machine.
//
// Usage: node dist/bench/lease-renewal.js [--leases 1000] [--seconds 15] [--rounds 2]
//          [--concurrency 16] [--creates 1000] [--baseline /work/main]
// CAPSTAN_PROF=<dir> writes a CPU profile of every API server started (use --baseline '').
import { join, resolve } from 'node:path';
import { loadavg } from 'node:os';
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { startAPIServerProcess, type APIServerProcess } from '../test/helpers/apiserver-process.js';
import { writeComponentKubeconfig, componentIdentities } from '../src/cli/pki-files.js';
import { clientsetFromKubeconfig, resources, type Clientset, type ResourceAPI } from '../src/client/index.js';
import { ensureHollowNodesPolicy, impersonatingNode } from '../src/hollow/identity.js';
import { nodeLeaseNamespace } from '../src/hollow/node-object.js';
import { rfc3339Micro } from '../src/api/time.js';
import type { Lease } from '../src/api/kinds.js';
import { ProcessSampler } from './lib/process-sampler.js';
import { repoRoot, table, writeReport } from './lib/report.js';

const { values } = parseArgs({
  options: {
    leases: { type: 'string', default: '1000' }, seconds: { type: 'string', default: '15' },
    rounds: { type: 'string', default: '2' }, concurrency: { type: 'string', default: '16' },
    creates: { type: 'string', default: '1000' }, baseline: { type: 'string', default: '/work/main' },
  },
});
const leaseCount = Number(values.leases), seconds = Number(values.seconds), rounds = Number(values.rounds);
const concurrency = Number(values.concurrency), creates = Number(values.creates);
const load = () => loadavg().map((l) => l.toFixed(1)).join(' ');
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
// Phase bounds on the monotonic clock in µs, the clock V8's CPU profiles are stamped with, so
// a profile's samples can be cut to one phase.
const monoUs = () => Number(process.hrtime.bigint() / 1000n);
const phase = (what: string, side: string, from: number) => console.error(`phase ${what} [${side}] ${from} ${monoUs()}`);

interface Side {
  name: string;
  server: APIServerProcess;
  sampler: ProcessSampler;
  leases: ResourceAPI<Lease>[];
  current: Lease[];
  admin: Clientset;
  renewCPU: number[];
  renewRate: number[];
  createCPU: number[];
  createRate: number[];
  created: number;
}

/** Runs `op(i)` at `concurrency` until `stop()`; returns how many completed. */
async function drive(op: (i: number) => Promise<void>, stop: (done: number) => boolean): Promise<number> {
  let next = 0, done = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (!stop(done)) {
      await op(next++);
      done++;
    }
  }));
  return done;
}

async function startSide(name: string, bin: string, teardowns: (() => unknown)[]): Promise<Side> {
  const server = await startAPIServerProcess({ teardown: (fn) => { teardowns.push(fn); } }, { bin });
  const admin = clientsetFromKubeconfig(server.kubeconfig, 'lease-bench', { maxSockets: concurrency });
  const names = Array.from({ length: leaseCount }, (_, i) => `hollow-${i}`);
  await ensureHollowNodesPolicy(admin, componentIdentities['hollow-nodes'].commonName, names);
  const hollow = clientsetFromKubeconfig(writeComponentKubeconfig(server.dataDir, server.pki, server.url, 'hollow-nodes'), 'lease-bench', { maxSockets: concurrency });
  const leases = names.map((n) => impersonatingNode(hollow, n).resource(resources.leases) as ResourceAPI<Lease>);
  const current: Lease[] = new Array(leaseCount);
  const now = Date.now();
  await drive(async (i) => {
    if (i >= leaseCount) return;
    current[i] = await leases[i].create(nodeLeaseNamespace, {
      apiVersion: 'coordination.k8s.io/v1', kind: 'Lease',
      metadata: { name: names[i], namespace: nodeLeaseNamespace },
      spec: { holderIdentity: names[i], leaseDurationSeconds: 40, renewTime: rfc3339Micro(new Date(now)) },
    } as Lease);
  }, (done) => done >= leaseCount);
  return { name, server, sampler: new ProcessSampler(server.pid), leases, current, admin, renewCPU: [], renewRate: [], createCPU: [], createRate: [], created: 0 };
}

async function renewPhase(s: Side): Promise<void> {
  const end = Date.now() + seconds * 1000;
  const t0 = Date.now(), cpu0 = s.sampler.cpuSeconds(), us0 = monoUs();
  const n = await drive(async (i) => {
    const k = i % leaseCount;
    const known = s.current[k];
    s.current[k] = await s.leases[k].update({ ...known, spec: { ...known.spec, renewTime: rfc3339Micro(new Date()) } });
  }, () => Date.now() >= end);
  phase('renew', s.name, us0);
  const cpu = s.sampler.cpuSeconds() - cpu0;
  s.renewCPU.push((cpu / n) * 1000);
  s.renewRate.push(n / ((Date.now() - t0) / 1000));
}

async function createPhase(s: Side, round: number): Promise<void> {
  const ns = `create-${round}`;
  await s.admin.resource(resources.namespaces).create(undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  const cms = s.admin.resource(resources.configmaps);
  const payload = 'v'.repeat(1024);
  const t0 = Date.now(), cpu0 = s.sampler.cpuSeconds(), us0 = monoUs();
  const n = await drive(async (i) => {
    await cms.create(ns, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}` }, data: { payload } });
  }, (done) => done >= creates);
  phase('create', s.name, us0);
  const cpu = s.sampler.cpuSeconds() - cpu0;
  s.createCPU.push((cpu / n) * 1000);
  s.createRate.push(n / ((Date.now() - t0) / 1000));
}

async function main() {
  const teardowns: (() => unknown)[] = [];
  const loadStart = load();
  try {
    const sides: Side[] = [];
    sides.push(await startSide('this build', join(repoRoot(), 'bin', 'capstan.js'), teardowns));
    const baselineBin = values.baseline ? resolve(values.baseline, 'bin', 'capstan.js') : '';
    if (baselineBin && existsSync(baselineBin)) sides.push(await startSide(`baseline (${values.baseline})`, baselineBin, teardowns));
    const loads: string[] = [];
    for (let r = 0; r < rounds; r++) {
      // Alternate which side goes first, so neither always meets the same minute of load.
      const order = r % 2 ? [...sides].reverse() : sides;
      for (const s of order) await renewPhase(s);
      for (const s of order) await createPhase(s, r);
      loads.push(load());
      console.error(`round ${r + 1}: ${sides.map((s) => `${s.name}: renew ${s.renewCPU.at(-1)!.toFixed(3)} ms CPU, ${s.renewRate.at(-1)!.toFixed(0)}/s; create ${s.createCPU.at(-1)!.toFixed(3)} ms CPU, ${s.createRate.at(-1)!.toFixed(0)}/s`).join(' | ')}; load ${load()}`);
    }
    const rows = sides.map((s) => [s.name,
      `${median(s.renewCPU).toFixed(3)} (${s.renewCPU.map((v) => v.toFixed(3)).join(', ')})`, `${median(s.renewRate).toFixed(0)}`,
      `${median(s.createCPU).toFixed(3)} (${s.createCPU.map((v) => v.toFixed(3)).join(', ')})`, `${median(s.createRate).toFixed(0)}`]);
    const body = `${leaseCount} Leases renewed at concurrency ${concurrency} for ${seconds} s per round, then ${creates} 1 KB ConfigMaps created at concurrency ${concurrency}, ${rounds} rounds, sides alternating. API server CPU is its process's utime+stime per operation (medians, each round in brackets). Load average at the start ${loadStart}, after each round ${loads.join(' / ')} (2 cores shared with other work).\n\n`
      + table(['API server', 'CPU per renewal, ms', 'renewals/s', 'CPU per create, ms', 'creates/s'], rows);
    writeReport('lease-renewal', 'API server CPU per Lease renewal and per create, two builds side by side', body);
  } finally {
    for (const fn of teardowns.reverse()) await fn();
  }
}

main().catch((e) => { console.error(e); process.exitCode = 1; });
