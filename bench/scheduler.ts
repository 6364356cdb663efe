// Scheduler throughput: 10,000 pods onto 1,000 and 5,000 nodes.
// * API: against a `capstan apiserver` process (Nodes created through the API, no kubelets),
//   the scheduler in this process talking HTTPS like `capstan scheduler`, with events on.
//   "while creating": time from the first pod create to the last pod bound, pods created
//   by 32 concurrent clients while the scheduler runs. "queued": pods created first, then
//   the scheduling loop started; time to all bound (schedule + bind through the API).
// * Fake: the same scheduler on FakeClientset (in-memory API), to separate API cost from
//   scheduling cost; "algorithm only" counts just the filter/score time.
// * "constrained": every pod also carries required pod anti-affinity (one per node within its
//   group of 100), a zone topologySpreadConstraint (maxSkew 1, DoNotSchedule), a hostname one
//   (ScheduleAnyway) and a preferred pod affinity to the previous group's zone; the fake runs
//   with and without them side by side, the API run adds a queued → all bound phase with them.
// Usage: node dist/bench/scheduler.js [--pods 10000] [--nodes 1000,5000] [--skip-api] [--skip-fake]
import { parseArgs } from 'node:util';
import { readFileSync } from 'node:fs';
import { hostname, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import type { KubeObject } from '../src/api/object.js';
import { clientsetFromKubeconfig, EventRecorder, FakeClientset, realClock, resources, SharedInformerFactory, type ClientsetAPI } from '../src/client/index.js';
import { Scheduler } from '../src/scheduler/index.js';
import { startAPIServerProcess } from '../test/helpers/apiserver-process.js';
import { summarize } from './lib/stats.js';
import { table, writeReport } from './lib/report.js';
import { defineSuite, runIfMain, type Progress } from './lib/suite.js';
import { emitScheduler } from './lib/scheduler-results.js';

const options = {
  pods: { type: 'string', default: '10000' }, nodes: { type: 'string', default: '1000,5000' },
  'skip-api': { type: 'boolean', default: false }, 'skip-fake': { type: 'boolean', default: false },
} as const;
let values = parseArgs({ args: [], options }).values;
let podCount = Number(values.pods);
let nodeCounts = values.nodes.split(',').map(Number);
let progress: Progress = () => undefined;
const teardowns: (() => unknown)[] = [];
const t = { teardown: (fn: () => unknown) => { teardowns.push(fn); } };

function benchNode(i: number): KubeObject {
  const capacity = { cpu: '64', memory: '256Gi', pods: '110', 'ephemeral-storage': '500Gi' };
  return {
    metadata: { name: `node-${i}`, labels: { 'kubernetes.io/hostname': `node-${i}`, 'topology.kubernetes.io/zone': `zone-${i % 3}` } },
    spec: {},
    status: { capacity, allocatable: capacity, conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady' }] },
  };
}

function constraints(group: number): KubeObject['spec'] {
  const mine = { matchLabels: { app: `app-${group}` } };
  return {
    affinity: {
      podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: mine, topologyKey: 'kubernetes.io/hostname' }] },
      podAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 10, podAffinityTerm: { labelSelector: { matchLabels: { app: `app-${group - 1}` } }, topologyKey: 'topology.kubernetes.io/zone' } }] },
    },
    topologySpreadConstraints: [
      { maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector: mine },
      { maxSkew: 1, topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'ScheduleAnyway', labelSelector: mine },
    ],
  };
}

/** Pods per "ReplicaSet": 100, or the number of nodes if fewer (constrained pods go one per node within their group). */
let groupSize = 100;

function benchPod(ns: string, i: number, constrained = false): KubeObject {
  // Pods in groups under one "ReplicaSet", so spreading has work to do.
  const group = Math.floor(i / groupSize);
  return {
    metadata: { name: `pod-${i}`, namespace: ns, labels: { app: `app-${group}` }, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: `rs-${group}`, uid: `00000000-0000-0000-0000-${String(group).padStart(12, '0')}`, controller: true }] },
    spec: { containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.9', resources: { requests: { cpu: '100m', memory: '128Mi' } } }], ...(constrained ? constraints(group) : {}) },
  };
}

async function pool(count: number, concurrency: number, op: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => { for (let i = next++; i < count; i = next++) await op(i); }));
}

/** No bind for this long while pods remain: the rest will not be placed. */
const stallMs = 20_000;

/**
 * Counts binds; until(n) resolves when n pods are bound, and rejects when none has been
 * bound for stallMs while pods remain, saying how many are unplaced and why (`why`).
 */
function boundCounter(): { onBound: () => void; until: (n: number, why: () => Promise<string>) => Promise<number> } {
  let bound = 0, lastBind = performance.now();
  let waiter: { n: number; r: (at: number) => void } | undefined;
  return {
    onBound: () => { bound++; lastBind = performance.now(); if (waiter && bound >= waiter.n) waiter.r(performance.now()); },
    until: (n, why) => new Promise((resolve, reject) => {
      if (bound >= n) { resolve(performance.now()); return; }
      lastBind = Math.max(lastBind, performance.now());
      const timer = setInterval(() => {
        if (performance.now() - lastBind < stallMs) return;
        clearInterval(timer);
        why().then((reasons) => reject(new Error(`${n - bound} of ${n} pods not placed (no bind for ${stallMs / 1000} s): ${reasons}`)), reject);
      }, 1000);
      waiter = { n, r: (at) => { clearInterval(timer); resolve(at); } };
    }),
  };
}

/** The unbound pods of `ns` grouped by their PodScheduled condition's message, most common first. */
async function unplacedReasons(clients: ClientsetAPI, ns: string): Promise<string> {
  const pods = (await clients.resource(resources.pods).list(ns)).items.filter((p) => !p.spec?.nodeName);
  const byReason = new Map<string, number>();
  for (const p of pods) {
    const cond = ((p.status?.conditions ?? []) as { type: string; message?: string }[]).find((c) => c.type === 'PodScheduled');
    const why = cond?.message ?? 'not tried yet (no PodScheduled condition)';
    byReason.set(why, (byReason.get(why) ?? 0) + 1);
  }
  return [...byReason].sort((a, b) => b[1] - a[1]).slice(0, 3).map(([why, n]) => `${n} × "${why}"`).join('; ');
}

/** CPU seconds (user + system) a process has used so far. */
function cpuSeconds(pid?: number): number {
  if (pid === undefined) { const u = process.cpuUsage(); return (u.user + u.system) / 1e6; }
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}

function cpuNote(pid: number, before: [number, number]): string {
  return `CPU: API server ${(cpuSeconds(pid) - before[0]).toFixed(1)} s, scheduler + clients ${(cpuSeconds() - before[1]).toFixed(1)} s`;
}

interface Row { nodes: number; mode: string; seconds: number; podsPerSec: number; note: string }

async function runFake(nodes: number, constrained: boolean): Promise<Row[]> {
  const fake = new FakeClientset();
  for (let i = 0; i < nodes; i++) fake.seed(resources.nodes, benchNode(i));
  for (let i = 0; i < podCount; i++) { const p = benchPod('bench', i, constrained); fake.seed(resources.pods, { ...p, metadata: { ...p.metadata, uid: `pod-uid-${i}` } }); }
  const informers = new SharedInformerFactory(fake);
  const counter = boundCounter();
  const scheduler = new Scheduler({ clients: fake, informers, onBound: counter.onBound });
  informers.start();
  await informers.waitForCacheSync();
  const t0 = performance.now();
  void scheduler.run();
  let t1: number;
  try {
    t1 = await counter.until(podCount, () => unplacedReasons(fake, 'bench'));
  } finally {
    await scheduler.stop();
    await informers.stop();
    fake.close();
  }
  const s = (t1 - t0) / 1000, alg = scheduler.stats.algorithmMs / 1000;
  const what = constrained ? ', constrained' : '';
  return [
    { nodes, mode: `FakeClientset, queued → all bound${what}`, seconds: s, podsPerSec: podCount / s, note: 'in-memory API: bind writes, watch events, informer' },
    { nodes, mode: `algorithm only (filter + score)${what}`, seconds: alg, podsPerSec: podCount / alg, note: `mean ${(scheduler.stats.algorithmMs / podCount * 1000).toFixed(0)} µs/pod, CPU ${(scheduler.stats.algorithmCpuMs / podCount * 1000).toFixed(0)} µs/pod${constrained ? '; anti-affinity, zone spread (DoNotSchedule), hostname spread, preferred affinity' : ''}` },
  ];
}

async function newScheduler(clients: ClientsetAPI, events: ClientsetAPI, onBound: () => void) {
  const informers = new SharedInformerFactory(clients);
  const recorder = new EventRecorder(events.resource(resources.events), { component: 'default-scheduler', host: hostname() }, realClock);
  const scheduler = new Scheduler({ clients, informers, recorder, onBound });
  informers.start();
  await informers.waitForCacheSync();
  return { scheduler, informers };
}

async function runAPI(nodes: number): Promise<{ rows: Row[]; latency: ReturnType<typeof summarize>; samples: number[]; nodeCreateSec: number }> {
  const api = await startAPIServerProcess(t);
  const admin = clientsetFromKubeconfig(api.kubeconfig, 'bench');
  const schedClients = clientsetFromKubeconfig(api.kubeconfig, 'capstan-scheduler');
  const eventClients = clientsetFromKubeconfig(api.kubeconfig, 'capstan-scheduler');
  const nodesAPI = admin.resource(resources.nodes), podsAPI = admin.resource(resources.pods);
  const started: Awaited<ReturnType<typeof newScheduler>>[] = [];
  // A phase that fails (pods left unplaced) must not leave its scheduler running.
  t.teardown(async () => {
    for (const s of [...started]) await stop(s);
    admin.close(); schedClients.close(); eventClients.close();
  });
  const stop = async (s: Awaited<ReturnType<typeof newScheduler>>) => {
    started.splice(started.indexOf(s), 1);
    await s.scheduler.stop();
    await s.informers.stop();
  };
  const n0 = performance.now();
  await pool(nodes, 32, (i) => nodesAPI.create(undefined, benchNode(i)));
  const nodeCreateSec = (performance.now() - n0) / 1000;
  for (const ns of ['bench-a', 'bench-b', 'bench-c']) await admin.resource(resources.namespaces).create(undefined, { metadata: { name: ns } });
  const rows: Row[] = [];

  // 1. Pods created while the scheduler runs.
  const created = new Map<string, number>();
  const latencies: number[] = [];
  const counter = boundCounter();
  const { scheduler, informers } = await newScheduler(schedClients, eventClients, () => counter.onBound());
  started.push({ scheduler, informers });
  const onBound = counter.onBound;
  (scheduler as unknown as { opts: { onBound: (p: KubeObject) => void } }).opts.onBound = (p) => {
    const c = created.get(p.metadata.name as string);
    if (c !== undefined) latencies.push(performance.now() - c);
    onBound();
  };
  void scheduler.run();
  const cpu0: [number, number] = [cpuSeconds(api.pid), cpuSeconds()];
  const t0 = performance.now();
  let createdAll = 0;
  await pool(podCount, 32, async (i) => { created.set(`pod-${i}`, performance.now()); await podsAPI.create('bench-a', benchPod('bench-a', i)); });
  createdAll = performance.now();
  const t1 = await counter.until(podCount, () => unplacedReasons(admin, 'bench-a'));
  rows.push({ nodes, mode: 'API, created while scheduling', seconds: (t1 - t0) / 1000, podsPerSec: podCount / ((t1 - t0) / 1000), note: `creates alone took ${((createdAll - t0) / 1000).toFixed(1)} s; algorithm ${(scheduler.stats.algorithmMs / 1000).toFixed(2)} s (CPU ${(scheduler.stats.algorithmCpuMs / 1000).toFixed(2)} s); ${cpuNote(api.pid, cpu0)}` });
  await stop(started[0]);

  // 2. Pods queued first, then the loop started.
  await pool(podCount, 32, (i) => podsAPI.create('bench-b', benchPod('bench-b', i)));
  const counter2 = boundCounter();
  const second = await newScheduler(schedClients, eventClients, counter2.onBound);
  started.push(second);
  while (second.scheduler.pending() < podCount) await new Promise((r) => setTimeout(r, 100));
  const cpu2: [number, number] = [cpuSeconds(api.pid), cpuSeconds()];
  const t2 = performance.now();
  void second.scheduler.run();
  const t3 = await counter2.until(podCount, () => unplacedReasons(admin, 'bench-b'));
  rows.push({ nodes, mode: 'API, queued → all bound', seconds: (t3 - t2) / 1000, podsPerSec: podCount / ((t3 - t2) / 1000), note: `${podCount} pods already bound in the cluster; algorithm ${(second.scheduler.stats.algorithmMs / 1000).toFixed(2)} s (CPU ${(second.scheduler.stats.algorithmCpuMs / 1000).toFixed(2)} s); ${cpuNote(api.pid, cpu2)}` });
  await stop(second);

  // 3. The same with the constraints, queued first.
  await pool(podCount, 32, (i) => podsAPI.create('bench-c', benchPod('bench-c', i, true)));
  const counter3 = boundCounter();
  const third = await newScheduler(schedClients, eventClients, counter3.onBound);
  started.push(third);
  while (third.scheduler.pending() < podCount) await new Promise((r) => setTimeout(r, 100));
  const cpu3: [number, number] = [cpuSeconds(api.pid), cpuSeconds()];
  const t4 = performance.now();
  void third.scheduler.run();
  const t5 = await counter3.until(podCount, () => unplacedReasons(admin, 'bench-c'));
  rows.push({ nodes, mode: 'API, queued → all bound, constrained', seconds: (t5 - t4) / 1000, podsPerSec: podCount / ((t5 - t4) / 1000), note: `${2 * podCount} pods already bound; algorithm ${(third.scheduler.stats.algorithmMs / 1000).toFixed(2)} s (CPU ${(third.scheduler.stats.algorithmCpuMs / 1000).toFixed(2)} s); ${cpuNote(api.pid, cpu3)}` });
  await stop(third);
  await api.stop();
  return { rows, latency: summarize(latencies), samples: latencies, nodeCreateSec };
}

async function main() {
const rows: Row[] = [];
const notes: string[] = [];
/** Phases that did not complete (pods left unplaced, API errors): the run fails after the report is written. */
const failures: string[] = [];
const latencies: [number, number[]][] = [];
const loadBefore = loadavg()[0];
try {
  for (const nodes of nodeCounts) {
    groupSize = Math.min(100, nodes);
    progress(`${nodes} nodes: fake`);
    if (!values['skip-fake']) for (const constrained of [false, true]) {
      try {
        rows.push(...await runFake(nodes, constrained));
      } catch (e) {
        const msg = `* ${nodes} nodes, FakeClientset${constrained ? ', constrained' : ''}: ${(e as Error).message}`;
        console.error(msg);
        notes.push(msg);
        failures.push(msg);
      }
    }
    if (!values['skip-api']) {
      progress(`${nodes} nodes: API`);
      try {
        const r = await runAPI(nodes);
        rows.push(...r.rows);
        latencies.push([nodes, r.samples]);
        notes.push(`* ${nodes} nodes: creating the Nodes took ${r.nodeCreateSec.toFixed(1)} s; pod create → bound latency while creating: p50 ${r.latency.p50.toFixed(0)} ms, p99 ${r.latency.p99.toFixed(0)} ms.`);
      } catch (e) {
        const msg = `* ${nodes} nodes, API: failed: ${(e as Error).message.split('\n').slice(0, 2).join(' ')}`;
        console.error(msg);
        notes.push(msg);
        failures.push(msg);
      }
    }
    console.log(rows.filter((r) => r.nodes === nodes));
  }
} finally {
  for (const fn of teardowns.reverse()) await fn();
}

const output = emitScheduler(podCount, rows, latencies, writeReport('scheduler', 'Scheduler throughput', `
${podCount} pods (100m CPU, 128Mi each, in groups of 100 — or of the node count, if smaller — under one controller owner) onto nodes with 64 CPU, 256Gi, 110 pods, spread over 3 zones. "constrained" pods also carry required pod anti-affinity by hostname within their group, a zone topologySpreadConstraint (maxSkew 1, DoNotSchedule), a hostname one (ScheduleAnyway) and a preferred pod affinity (weight 10) to the previous group's zone; the others get the PodTopologySpread system defaults. Default plugins (InterPodAffinity, PodTopologySpread and DefaultPreemption included), adaptive percentageOfNodesToScore (420 of 1,000 nodes, 500 of 5,000), 32 binds in flight. Kubernetes' scheduler_perf floors for comparison: 680–810 pods/s at 5,000 nodes.

${table(['nodes', 'what', 'seconds', 'pods/s', 'note'], rows.map((r) => [r.nodes, r.mode, r.seconds.toFixed(2), r.podsPerSec.toFixed(0), r.note]))}

${notes.join('\n')}

"API" rows run against a \`capstan apiserver\` process on SQLite (the same machine's 2 cores serve the API server, the scheduler and the pod-creating clients); each bind is a POST pods/binding, each pod also gets a Scheduled Event. Load average (1 min) ${loadBefore.toFixed(1)} at the start, ${loadavg()[0].toFixed(1)} at the end: the machine is shared, so figures move between runs. The FakeClientset row replaces the API with the in-memory fake (structured clones on every write and watch event); "algorithm only" is the filter and score time alone (wall clock; its CPU time, user + system of the process, is in the note: on a loaded machine the wall time mostly measures waiting for a core).
`));
if (failures.length) throw new Error(`scheduler bench: ${failures.length} phase(s) failed:\n${failures.join('\n')}`);
return output;
}

export const suite = defineSuite({
  name: 'scheduler',
  title: 'Scheduler throughput',
  params: { full: { pods: 10000, nodes: [1000, 5000], skipApi: false, skipFake: false }, quick: { pods: 100, nodes: [50], skipApi: false, skipFake: false } },
  fromArgv: (argv) => {
    const v = parseArgs({ args: argv, options }).values;
    return { pods: Number(v.pods), nodes: v.nodes.split(',').map(Number), skipApi: v['skip-api'], skipFake: v['skip-fake'] };
  },
  run: (p, report) => {
    values = { pods: String(p.pods), nodes: p.nodes.join(','), 'skip-api': p.skipApi, 'skip-fake': p.skipFake };
    podCount = p.pods;
    nodeCounts = p.nodes;
    progress = report;
    return main();
  },
});
runIfMain(import.meta.url, suite);
