// What containerd's task events change in the kubelet: exit → API status, with the events
// (the kubelet's default), with the event stream unavailable (its fallback: one
// ListContainers a second) and with no events at all (resync only, --sync-frequency 10 s),
// in one run. 10 pods of 8 containers each (restartPolicy Never) whose containers exit one by
// one, spread over the window: 80 exits per mode. The window opens once every container
// runs (each blocks reading a FIFO on a hostPath until the bench closes it), so no exit
// waits for its pod's worker to finish starting the others. An exit's moment is containerd's own
// (TaskExit.exited_at, read from its event stream by the bench); the API's is when the bench's
// watch shows that container's state.terminated. Also the CRI calls the kubelet made.
// With `steady` the containers keep running (sleep 3600): the CRI calls of a quiet node.
//   node dist/bench/container-events.js [seconds=30] [steady]
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { CRIClient, type CRIMethod } from '../cri/index.js';
import type { KubeObject } from '../src/api/object.js';
import type { ContainerStatus } from 'kubernetes-types/core/v1.js';
import { resources, SharedInformer } from '../src/client/index.js';
import { Kubelet } from '../src/kubelet/index.js';
import { subscribeEvents } from '../src/kubelet/containerd/index.js';
import { CRI_NAMESPACE } from '../src/kubelet/container-events.js';
import { BUSYBOX_IMAGE } from '../src/kubelet/images/index.js';
import { logger } from '../src/log/index.js';
import { startBenchNode } from './lib/node-env.js';
import { fmtMs, summarize } from './lib/stats.js';
import { table, writeReport } from './lib/report.js';
import { defineSuite, Recorder, runIfMain, type Progress } from './lib/suite.js';
import { containerd } from './lib/prereq.js';

/** The window the exits are spread over (steady: how long the quiet node is watched). */
let SECONDS = 30;
/** `steady`: containers that keep running, to count the resync-only polling alone. */
let STEADY = false;
const PODS = 10;
const CONTAINERS = 8;
/** The first exit this long after the gate opens. */
const FIRST_EXIT_S = 1;
const NODE = 'events-node';

type Mode = 'events' | 'relist' | 'resync';
const MODES: [Mode, string][] = [
  ['events', 'task events (default)'],
  ['relist', 'event stream down: 1 s relist'],
  ['resync', 'no events: resync only (10 s)'],
];

interface Run { lag: number[]; missed: number; calls: Map<CRIMethod, number> }

async function runOnce(mode: Mode): Promise<Run> {
  const teardowns: (() => unknown)[] = [];
  const t = { teardown: (fn: () => unknown) => { teardowns.unshift(fn); } };
  const calls = new Map<CRIMethod, number>();
  const exitedAt = new Map<string, number>();
  const shownAt = new Map<string, number>();
  try {
    const { env, clients, watcherClients } = await startBenchNode(t, 'container-events');
    let counting = false;
    const runtime = new CRIClient({ socket: env.containerd.socket, observe: (m) => { if (counting) calls.set(m, (calls.get(m) ?? 0) + 1); } });
    t.teardown(() => runtime.close());
    // The bench's own subscription: containerd's moment of each container's exit.
    const exits = subscribeEvents(env.containerd.socket, [`namespace==${CRI_NAMESPACE},topic=="/tasks/exit"`], (e) => {
      if (e.processId === e.containerId && e.exitedAt !== undefined) exitedAt.set(e.containerId, e.exitedAt);
    }, () => undefined);
    t.teardown(() => exits.close());
    const eventsSocket = mode === 'events' ? env.containerd.socket : mode === 'relist' ? join(env.dir, 'no-such-events.sock') : undefined;
    const kubelet = new Kubelet({
      nodeName: NODE, clients, runtime, rootDir: join(env.dir, 'kubelet'), cgroupRoot: env.cgroupParent, nodeIP: '127.0.0.1',
      resolvConf: '/dev/null', log: logger('kubelet', {}, () => undefined), eventsSocket,
    });
    await kubelet.start();
    t.teardown(() => kubelet.stop());
    const watch = new SharedInformer(watcherClients.resource(resources.pods), { fieldSelector: `spec.nodeName=${NODE}` });
    const observe = (p: KubeObject) => {
      const now = Date.now();
      for (const st of (p.status?.containerStatuses ?? []) as ContainerStatus[]) {
        const id = st.containerID?.replace(/^containerd:\/\//, '');
        if (st.state?.terminated && id && !shownAt.has(id)) shownAt.set(id, now);
      }
    };
    watch.addEventHandler({ onAdd: observe, onUpdate: (_o, p) => observe(p), onDelete: () => undefined });
    watch.start();
    t.teardown(() => watch.stop());
    await watch.waitForSync();
    counting = true;
    const gateDir = join(env.dir, 'gate');
    mkdirSync(gateDir, { recursive: true });
    execFileSync('mkfifo', [join(gateDir, 'go')]);
    const pods = watcherClients.resource(resources.pods);
    const sleeps: number[] = [];
    for (let i = 0; i < PODS; i++) {
      const containers = Array.from({ length: CONTAINERS }, (_, j) => {
        // Exit k of PODS × CONTAINERS lands k/(n−1) of the way through the window.
        const k = j * PODS + i;
        const seconds = FIRST_EXIT_S + (STEADY ? 3600 : (SECONDS * k) / (PODS * CONTAINERS - 1));
        sleeps.push(seconds);
        return {
          name: `c${j}`, image: BUSYBOX_IMAGE, imagePullPolicy: 'IfNotPresent',
          command: ['sh', '-c', `cat /gate/go >/dev/null; sleep ${seconds.toFixed(2)}`], volumeMounts: [{ name: 'gate', mountPath: '/gate' }],
        };
      });
      await pods.create('default', {
        apiVersion: 'v1', kind: 'Pod', metadata: { name: `exit${i}` },
        spec: {
          nodeName: NODE, terminationGracePeriodSeconds: 0, restartPolicy: 'Never', containers,
          volumes: [{ name: 'gate', hostPath: { path: gateDir, type: 'Directory' } }],
        },
      });
    }
    // Every container running (and a moment to reach its read), then the gate opens: EOF for all.
    const running = () => watch.lister.list().filter((p) => ((p.status?.containerStatuses ?? []) as ContainerStatus[]).filter((c) => c.state?.running).length === CONTAINERS).length;
    const startDeadline = Date.now() + 300_000;
    while (running() < PODS && Date.now() < startDeadline) await new Promise((r) => setTimeout(r, 200));
    await new Promise((r) => setTimeout(r, 2_000));
    await (await open(join(gateDir, 'go'), 'w')).close();
    if (STEADY) {
      await new Promise((r) => setTimeout(r, 10_000));
      calls.clear();
      await new Promise((r) => setTimeout(r, SECONDS * 1000));
    } else {
      // Until every exit is in the API, or well past the last one.
      const deadline = Date.now() + (FIRST_EXIT_S + SECONDS + 60) * 1000;
      while (Date.now() < deadline && !(exitedAt.size >= PODS * CONTAINERS && [...exitedAt.keys()].every((id) => shownAt.has(id)))) {
        await new Promise((r) => setTimeout(r, 200));
      }
    }
    counting = false;
  } finally {
    for (const fn of teardowns) await fn();
  }
  const lag = [...exitedAt].filter(([id]) => shownAt.has(id)).map(([id, at]) => shownAt.get(id)! - at);
  return { lag, missed: STEADY ? 0 : PODS * CONTAINERS - lag.length, calls };
}

async function main(progress: Progress) {
  const runs: [string, Run][] = [];
  for (const [mode, name] of MODES) {
    progress(`${name}: ${STEADY ? `steady ${SECONDS} s` : `${PODS * CONTAINERS} exits over ${SECONDS} s`}`);
    runs.push([name, await runOnce(mode)]);
  }
  const load = loadavg()[0]!.toFixed(1);
  const methods = [...new Set(runs.flatMap(([, r]) => [...r.calls.keys()]))].sort();
  const callRows: (string | number)[][] = methods.map((m) => [m, ...runs.map(([, r]) => r.calls.get(m) ?? 0)]);
  callRows.push(['total', ...runs.map(([, r]) => [...r.calls.values()].reduce((a, b) => a + b, 0))]);
  if (STEADY) {
    process.stdout.write(`steady ${PODS} pods, ${SECONDS} s (load ${load}): CRI calls\n${table(['call', ...runs.map(([n]) => n)], callRows)}\n`);
    return new Recorder().output();
  }
  const lagRows = runs.map(([name, r]) => {
    const s = summarize(r.lag);
    return [name, s.n, r.missed, fmtMs(s.p50), fmtMs(s.p99), fmtMs(s.max)];
  });
  const report = writeReport('container-events', 'Container exits: containerd task events vs relisting vs resync only', `${PODS} pods of ${CONTAINERS} busybox containers each (restartPolicy Never). Once all of them run, the
bench opens a gate (a FIFO on a hostPath each container reads) and the containers sleep from
${FIRST_EXIT_S} s to ${FIRST_EXIT_S + SECONDS} s, so ${PODS * CONTAINERS} exits are spread over ${SECONDS} s. One kubelet in this process per
mode, each on its own containerd and API server, one mode after the other; the kubelet's
default --sync-frequency (10 s). Load average ${load} at the end (shared 2-core VM).

Exit → API: from containerd's TaskExit.exited_at (the bench subscribes to containerd's
events itself) to the bench's watch event showing that container's state.terminated:

${table(['kubelet', 'exits', 'missed', 'p50', 'p99', 'max'], lagRows)}

CRI calls the kubelet made from the first create to the last exit shown (the starts included):

${table(['call', ...runs.map(([n]) => n)], callRows)}
`);
  const rec = new Recorder();
  const ev = rec.metric({ figure: 'container exit → API', system: 'capstan kubelet with task events', unit: 'ms', samples: runs[0]![1].lag });
  const relist = rec.metric({ figure: 'container exit → API', system: 'capstan kubelet relisting (event stream down)', unit: 'ms', samples: runs[1]![1].lag });
  const resync = rec.metric({ figure: 'container exit → API', system: 'resync only (10 s)', baseline: true, unit: 'ms', samples: runs[2]![1].lag });
  rec.ratio(ev, resync, 'p50');
  rec.ratio(ev, resync, 'p99');
  rec.ratio(relist, resync, 'p50');
  return rec.output(report);
}

export const suite = defineSuite({
  name: 'container-events',
  title: 'Container exits: containerd task events vs relisting vs resync only',
  params: { full: { seconds: SECONDS, steady: false as boolean }, quick: { seconds: 8, steady: false as boolean } },
  requires: [containerd],
  fromArgv: (argv, full) => ({ seconds: Number(argv[0] ?? full.seconds), steady: argv[1] === 'steady' }),
  run: (p, progress) => { SECONDS = p.seconds; STEADY = p.steady; return main(progress); },
});
runIfMain(import.meta.url, suite);
