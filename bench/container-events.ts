// What containerd's task events change in the kubelet: 10 pods whose container exits every
// few seconds (restartPolicy Always), watched for 60 s, once with the events and once
// without (resync only, --sync-frequency 10 s). Reported: how long an exit takes to reach the
// API (container finishedAt → the watch event showing it terminated or restarted) and the
// CRI call mix the kubelet made. Both runs share one containerd and API server (a node each,
// the runtime emptied between them).
// With `steady` the containers keep running (sleep 3600): the CRI calls of a quiet node.
//   node dist/bench/container-events.js [seconds=60] [steady]
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { CRIClient, type CRIMethod } from '../cri/index.js';
import type { KubeObject } from '../src/api/object.js';
import type { ContainerStatus } from 'kubernetes-types/core/v1.js';
import { resources, SharedInformer } from '../src/client/index.js';
import { Kubelet } from '../src/kubelet/index.js';
import { BUSYBOX_IMAGE } from '../src/kubelet/images/index.js';
import { logger } from '../src/log/index.js';
import { clearRuntime, startBenchNode, type BenchNode } from './lib/node-env.js';
import { fmtMs, summarize } from './lib/stats.js';
import { table, writeReport } from './lib/report.js';
import { defineSuite, Recorder, runIfMain, type Progress } from './lib/suite.js';
import { containerd } from './lib/prereq.js';

let SECONDS = 60;
/** `steady`: containers that keep running, to count the resync-only polling alone. */
let STEADY = false;
/** Seconds the pods get to start before the window opens. */
let WARMUP = 10;
const PODS = 10;

interface Run { lag: number[]; calls: Map<CRIMethod, number> }

async function runOnce(node: BenchNode, events: boolean): Promise<Run> {
  const teardowns: (() => unknown)[] = [];
  const t = { teardown: (fn: () => unknown) => { teardowns.unshift(fn); } };
  const calls = new Map<CRIMethod, number>();
  const lag: number[] = [];
  const NODE = events ? 'events-node' : 'resync-node';
  const { env, clients, watcherClients } = node;
  try {
    let counting = false;
    let countingSince = 0;
    const runtime = new CRIClient({ socket: env.containerd.socket, observe: (m) => { if (counting) calls.set(m, (calls.get(m) ?? 0) + 1); } });
    t.teardown(() => runtime.close());
    const kubelet = new Kubelet({
      nodeName: NODE, clients, runtime, rootDir: join(env.dir, 'kubelet'), cgroupRoot: env.cgroupParent, nodeIP: '127.0.0.1',
      resolvConf: '/dev/null', log: logger('kubelet', {}, () => undefined), eventsSocket: events ? env.containerd.socket : undefined,
    });
    await kubelet.start();
    t.teardown(() => kubelet.stop());
    // Each container's finishedAt (whole seconds in the API) against the moment the watch saw it.
    const seen = new Set<string>();
    const watch = new SharedInformer(watcherClients.resource(resources.pods), { fieldSelector: `spec.nodeName=${NODE}` });
    const observe = (p: KubeObject) => {
      if (!counting) return;
      for (const st of (p.status?.containerStatuses ?? []) as ContainerStatus[]) {
        const term = st.state?.terminated ?? st.lastState?.terminated;
        if (!term?.finishedAt || !term.containerID || seen.has(term.containerID)) continue;
        seen.add(term.containerID);
        // Exits from before the window would count the warm-up's wait.
        if (Date.parse(term.finishedAt) < countingSince) continue;
        lag.push(Date.now() - Date.parse(term.finishedAt));
      }
    };
    watch.addEventHandler({ onAdd: observe, onUpdate: (_o, p) => observe(p), onDelete: () => undefined });
    watch.start();
    t.teardown(() => watch.stop());
    await watch.waitForSync();
    const pods = watcherClients.resource(resources.pods);
    for (let i = 0; i < PODS; i++) {
      await pods.create('default', {
        apiVersion: 'v1', kind: 'Pod', metadata: { name: `${NODE}-exit${i}` },
        spec: {
          nodeName: NODE, terminationGracePeriodSeconds: 0,
          containers: [{ name: 'main', image: BUSYBOX_IMAGE, imagePullPolicy: 'IfNotPresent', command: ['sh', '-c', STEADY ? 'sleep 3600' : `sleep ${3 + (i % 4)}`] }],
        },
      });
    }
    await new Promise((r) => setTimeout(r, WARMUP * 1000));
    counting = true;
    countingSince = Date.now();
    await new Promise((r) => setTimeout(r, SECONDS * 1000));
    counting = false;
  } finally {
    for (const fn of teardowns) await fn();
    await clearRuntime(env.client);
  }
  return { lag, calls };
}

async function main(progress: Progress) {
  const teardowns: (() => unknown)[] = [];
  let withEvents!: Run, resyncOnly!: Run;
  try {
    progress('starting containerd and the API server');
    const node = await startBenchNode({ teardown: (fn) => { teardowns.unshift(fn); } }, 'container-events');
    progress(`with task events, ${SECONDS} s`);
    withEvents = await runOnce(node, true);
    progress(`resync only, ${SECONDS} s`);
    resyncOnly = await runOnce(node, false);
  } finally {
    for (const fn of teardowns) await fn();
  }
  const runs = [['events', withEvents], ['resync only (10 s)', resyncOnly]] as const;
  const methods = [...new Set(runs.flatMap(([, r]) => [...r.calls.keys()]))].sort();
  const lagRows = runs.map(([name, r]) => {
    const s = summarize(r.lag);
    return [name, s.n, fmtMs(s.p50), fmtMs(s.p99), fmtMs(s.max)];
  });
  const callRows: (string | number)[][] = methods.map((m) => [m, ...runs.map(([, r]) => r.calls.get(m) ?? 0)]);
  callRows.push(['total', ...runs.map(([, r]) => [...r.calls.values()].reduce((a, b) => a + b, 0))]);
  if (STEADY) {
    process.stdout.write(`steady ${PODS} pods, ${SECONDS} s: CRI calls\n${table(['call', ...runs.map(([n]) => n)], callRows)}\n`);
    return new Recorder().output();
  }
  const report = writeReport('container-events', 'Container exits: containerd task events vs resync only', `${PODS} pods whose busybox container sleeps 3–6 s and exits (restartPolicy Always, so it restarts after
the backoff), one kubelet in this process, ${SECONDS} s measured after a ${WARMUP} s warm-up; the kubelet's
default --sync-frequency (10 s). Load average ${loadavg()[0]!.toFixed(1)} at the end (shared 2-core VM).

Exit → API: from the container's finishedAt (whole seconds, so up to 1 s early) to the watch
event that shows it terminated:

${table(['kubelet', 'exits', 'p50', 'p99', 'max'], lagRows)}

CRI calls the kubelet made in the window:

${table(['call', ...runs.map(([n]) => n)], callRows)}

With the events a pod is synced when its container exits (three wake-ups: at once, 200 ms and
1 s later, because containerd's CRI plugin may not have recorded the exit yet), so exits are
seen in about a second instead of at the next resync. While the stream is up the resyncs read
one node-wide List kept up to 300 s (dropped by each exit and by the kubelet's own changes),
so the Lists follow the exits rather than the resync period; \`steady\` (containers that keep
running) shows the resync-only polling alone.
`);
  const rec = new Recorder();
  const ev = rec.metric({ figure: 'container exit → API', system: 'capstan kubelet with task events', unit: 'ms', samples: runs[0][1].lag });
  rec.ratio(ev, rec.metric({ figure: 'container exit → API', system: 'resync only (10 s)', baseline: true, unit: 'ms', samples: runs[1][1].lag }), 'p50');
  return rec.output(report);
}

export const suite = defineSuite({
  name: 'container-events',
  title: 'Container exits: containerd task events vs resync only',
  params: { full: { seconds: SECONDS, steady: false as boolean, warmup: WARMUP }, quick: { seconds: 8, steady: false as boolean, warmup: 5 } },
  requires: [containerd],
  fromArgv: (argv, full) => ({ seconds: Number(argv[0] ?? full.seconds), steady: argv[1] === 'steady', warmup: full.warmup }),
  run: (p, progress) => { SECONDS = p.seconds; STEADY = p.steady; WARMUP = p.warmup; return main(progress); },
});
runIfMain(import.meta.url, suite);
