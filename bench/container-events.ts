// What containerd's task events change in the kubelet: exit → API status, with the events
// (the kubelet's default), with the event stream unavailable (its fallback: one
// ListContainers a second) and with no events at all (resync only, --sync-frequency 10 s),
// in one run. 10 pods (--quick: 4) of 8 containers each (restartPolicy Never) whose
// containers exit one by one, spread over the window: 80 exits per mode. The window opens once every container
// runs (each blocks reading a gate on a hostPath until the bench opens it), so no exit
// waits for its pod's worker to finish starting the others; it closes once every exit is
// in the API, not at a fixed time, so a loaded machine makes it longer rather than empty
// (with a generous cap; the report says how many exits each mode saw and how long it took).
// An exit's moment is containerd's own (TaskExit.exited_at, read from its event stream by
// the bench); the API's is when the bench's watch shows that container's state.terminated.
// Also the CRI calls the kubelet made. The three modes share one containerd and API server
// (a node name and kubelet each, the runtime emptied between them).
// With `steady` the containers keep running (sleep 3600): the CRI calls of a quiet node.
//   node dist/bench/container-events.js [seconds=30] [steady] [pods=10]
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { constants } from 'node:fs';
import { open, rename } from 'node:fs/promises';
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
import { clearRuntime, startBenchNode, type BenchNode } from './lib/node-env.js';
import { fmtMs, summarize } from './lib/stats.js';
import { table, writeReport } from './lib/report.js';
import { defineSuite, Recorder, runIfMain, type Progress } from './lib/suite.js';
import { containerd } from './lib/prereq.js';

/** The window the exits are spread over (steady: how long the quiet node is watched). */
let SECONDS = 30;
/** `steady`: containers that keep running, to count the resync-only polling alone. */
let STEADY = false;
let PODS = 10;
const CONTAINERS = 8;
/** The first exit this long after the gate opens. */
const FIRST_EXIT_S = 1;
/** Caps, far beyond what a quiet machine needs, so that a loaded one stretches the run
 *  instead of cutting it short: every container running, and every exit in the API after
 *  the last planned one. */
const START_CAP_S = 600;
const SHOWN_CAP_S = 300;

type Mode = 'events' | 'relist' | 'resync';
const MODES: [Mode, string][] = [
  ['events', 'task events (default)'],
  ['relist', 'event stream down: 1 s relist'],
  ['resync', 'no events: resync only (10 s)'],
];

interface Run {
  lag: number[];
  /** Containers seen running before the gate opened. */
  running: number;
  /** Exits containerd reported (TaskExit of a container's own process). */
  exited: number;
  /** Exits the API showed (state.terminated) before the window closed. */
  shown: number;
  /** Seconds from the gate's opening to the window's close, and whether a cap closed it. */
  windowS: number;
  capped: string | undefined;
  calls: Map<CRIMethod, number>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The gate every container reads before its sleep: a FIFO, whose read blocks until the
 * bench opens it for writing. Opening it releases the readers already waiting; a regular
 * file then takes its name, so a container that reaches its read later is not held.
 */
async function openGate(dir: string): Promise<void> {
  // Non-blocking: with no reader yet the open fails (ENXIO) rather than waiting for one.
  const writer = await open(join(dir, 'go'), constants.O_WRONLY | constants.O_NONBLOCK).catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENXIO') return undefined;
    throw e;
  });
  writeFileSync(join(dir, 'open'), '');
  await rename(join(dir, 'open'), join(dir, 'go'));
  await writer?.close();
}

async function runOnce(node: BenchNode, mode: Mode, progress: Progress): Promise<Run> {
  const { env, clients, watcherClients } = node;
  const nodeName = `events-${mode}`;
  const teardowns: (() => unknown)[] = [];
  const t = { teardown: (fn: () => unknown) => { teardowns.unshift(fn); } };
  const calls = new Map<CRIMethod, number>();
  const exitedAt = new Map<string, number>();
  const shownAt = new Map<string, number>();
  /** The pods' containers (containerd also reports each sandbox's pause process exiting). */
  const ours = new Set<string>();
  let running = 0;
  let windowS = 0;
  let capped: string | undefined;
  try {
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
      nodeName, clients, runtime, rootDir: join(env.dir, `kubelet-${mode}`), cgroupRoot: env.cgroupParent, nodeIP: '127.0.0.1',
      resolvConf: '/dev/null', log: logger('kubelet', {}, () => undefined), eventsSocket,
    });
    await kubelet.start();
    t.teardown(() => kubelet.stop());
    const watch = new SharedInformer(watcherClients.resource(resources.pods), { fieldSelector: `spec.nodeName=${nodeName}` });
    const observe = (p: KubeObject) => {
      const now = Date.now();
      for (const st of (p.status?.containerStatuses ?? []) as ContainerStatus[]) {
        const id = st.containerID?.replace(/^containerd:\/\//, '');
        if (id) ours.add(id);
        if (st.state?.terminated && id && !shownAt.has(id)) shownAt.set(id, now);
      }
    };
    watch.addEventHandler({ onAdd: observe, onUpdate: (_o, p) => observe(p), onDelete: () => undefined });
    watch.start();
    t.teardown(() => watch.stop());
    await watch.waitForSync();
    counting = true;
    const gateDir = join(env.dir, `gate-${mode}`);
    mkdirSync(gateDir, { recursive: true });
    execFileSync('mkfifo', [join(gateDir, 'go')]);
    const pods = watcherClients.resource(resources.pods);
    for (let i = 0; i < PODS; i++) {
      const containers = Array.from({ length: CONTAINERS }, (_, j) => {
        // Exit k of PODS × CONTAINERS lands k/(n−1) of the way through the window.
        const k = j * PODS + i;
        const seconds = FIRST_EXIT_S + (STEADY ? 3600 : (SECONDS * k) / (PODS * CONTAINERS - 1));
        return {
          name: `c${j}`, image: BUSYBOX_IMAGE, imagePullPolicy: 'IfNotPresent',
          command: ['sh', '-c', `cat /gate/go >/dev/null; sleep ${seconds.toFixed(2)}`], volumeMounts: [{ name: 'gate', mountPath: '/gate' }],
        };
      });
      await pods.create('default', {
        apiVersion: 'v1', kind: 'Pod', metadata: { name: `${mode}-exit${i}` },
        spec: {
          nodeName, terminationGracePeriodSeconds: 0, restartPolicy: 'Never', containers,
          volumes: [{ name: 'gate', hostPath: { path: gateDir, type: 'Directory' } }],
        },
      });
    }
    // Every container running (however long the machine takes), then the gate opens.
    const countRunning = () => watch.lister.list()
      .reduce((n, p) => n + ((p.status?.containerStatuses ?? []) as ContainerStatus[]).filter((c) => c.state?.running).length, 0);
    const startedAt = Date.now();
    while ((running = countRunning()) < PODS * CONTAINERS) {
      if (Date.now() - startedAt > START_CAP_S * 1000) {
        capped = `${running} of ${PODS * CONTAINERS} containers running after ${START_CAP_S} s`;
        break;
      }
      await sleep(200);
    }
    progress(`${mode}: ${running} containers running after ${((Date.now() - startedAt) / 1000).toFixed(0)} s; gate open`);
    const gateAt = Date.now();
    await openGate(gateDir);
    if (STEADY) {
      await sleep(10_000);
      calls.clear();
      await sleep(SECONDS * 1000);
    } else {
      // Until the API shows the exit of every container that ran (and containerd's moment of
      // each has arrived: its event and the kubelet's status race).
      const deadline = gateAt + (FIRST_EXIT_S + SECONDS + SHOWN_CAP_S) * 1000;
      const allShown = () => shownAt.size >= running && [...shownAt.keys()].every((id) => exitedAt.has(id));
      while (!allShown()) {
        if (Date.now() > deadline) {
          capped ??= `window closed ${FIRST_EXIT_S + SECONDS + SHOWN_CAP_S} s after the gate with ${shownAt.size} of ${running} exits shown`;
          break;
        }
        await sleep(100);
      }
    }
    windowS = (Date.now() - gateAt) / 1000;
    counting = false;
  } finally {
    for (const fn of teardowns) await fn();
    await clearRuntime(env.client);
  }
  const lag = [...exitedAt].filter(([id]) => shownAt.has(id)).map(([id, at]) => shownAt.get(id)! - at);
  return { lag, running, exited: [...exitedAt.keys()].filter((id) => ours.has(id)).length, shown: lag.length, windowS, capped, calls };
}

async function main(progress: Progress) {
  const runs: [string, Run][] = [];
  const teardowns: (() => unknown)[] = [];
  const loads: string[] = [];
  try {
    const node = await startBenchNode({ teardown: (fn) => { teardowns.unshift(fn); } }, 'container-events');
    for (const [mode, name] of MODES) {
      progress(`${name}: ${STEADY ? `steady ${SECONDS} s` : `${PODS * CONTAINERS} exits over ${SECONDS} s`}`);
      const before = loadavg()[0]!.toFixed(1);
      runs.push([name, await runOnce(node, mode, progress)]);
      loads.push(`${before} → ${loadavg()[0]!.toFixed(1)}`);
    }
  } finally {
    for (const fn of teardowns) await fn();
  }
  const methods = [...new Set(runs.flatMap(([, r]) => [...r.calls.keys()]))].sort();
  const callRows: (string | number)[][] = methods.map((m) => [m, ...runs.map(([, r]) => r.calls.get(m) ?? 0)]);
  callRows.push(['total', ...runs.map(([, r]) => [...r.calls.values()].reduce((a, b) => a + b, 0))]);
  if (STEADY) {
    process.stdout.write(`steady ${PODS} pods, ${SECONDS} s (load ${loads.join(', ')}): CRI calls\n${table(['call', ...runs.map(([n]) => n)], callRows)}\n`);
    return new Recorder().output();
  }
  const lagRows = runs.map(([name, r], i) => {
    const s = summarize(r.lag);
    return [name, loads[i]!, r.running, r.exited, r.shown, `${r.windowS.toFixed(1)} s`, fmtMs(s.p50), fmtMs(s.p99), fmtMs(s.max)];
  });
  const caps = runs.filter(([, r]) => r.capped).map(([name, r]) => `* ${name}: ${r.capped}.`);
  const report = writeReport('container-events', 'Container exits: containerd task events vs relisting vs resync only', `${PODS} pods of ${CONTAINERS} busybox containers each (restartPolicy Never). Once all of them run, the
bench opens a gate (a FIFO on a hostPath each container reads) and the containers sleep from
${FIRST_EXIT_S} s to ${FIRST_EXIT_S + SECONDS} s, so ${PODS * CONTAINERS} exits are spread over ${SECONDS} s. One kubelet in this process per
mode (a node of its own), one mode after the other on one containerd and API server emptied
between them; the kubelet's default --sync-frequency (10 s). The window closes once the API
shows every exit containerd reported, not at a fixed time (caps: ${START_CAP_S} s for the starts,
${SHOWN_CAP_S} s after the last planned exit). Shared 2-core VM; load average (1 min) at each mode's
start → end.

Exit → API: from containerd's TaskExit.exited_at (the bench subscribes to containerd's
events itself) to the bench's watch event showing that container's state.terminated.
running: containers running when the gate opened; exited: exits containerd reported;
shown: of those, the ones the API showed before the window closed (the figures' n);
window: from the gate's opening to the last exit shown.

${table(['kubelet', 'load', 'running', 'exited', 'shown', 'window', 'p50', 'p99', 'max'], lagRows)}
${caps.length ? `\nCut short by a cap:\n${caps.join('\n')}\n` : ''}
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
  params: { full: { seconds: SECONDS, steady: false as boolean, pods: PODS }, quick: { seconds: 8, steady: false as boolean, pods: 4 } },
  requires: [containerd],
  fromArgv: (argv, full) => ({ seconds: Number(argv[0] ?? full.seconds), steady: argv[1] === 'steady', pods: Number(argv[2] ?? full.pods) }),
  run: (p, progress) => { SECONDS = p.seconds; STEADY = p.steady; PODS = p.pods; return main(progress); },
});
runIfMain(import.meta.url, suite);
