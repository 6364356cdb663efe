// CRI call latencies from Node against a private containerd 1.6 (ptp + host-local CNI in
// a scratch network namespace): one pod at a time through its whole life, then the
// instance's start, image import and restart times.
//   node dist/bench/cri-latency.js [pods=10]
import { loadavg } from 'node:os';
import type { ContainerConfig, CRIMethod, PodSandboxConfig } from '../cri/index.js';
import { BUSYBOX_IMAGE, ensureBuiltinImages } from '../src/kubelet/images/index.js';
import { runtimeUnavailable, type RuntimeEnv } from '../test/cri/runtime-env.js';
import { BENCH_IMAGES, startBenchRuntime } from './lib/node-env.js';
import { fmtMs, summarize, timeMs } from './lib/stats.js';
import { table, writeReport } from './lib/report.js';
import { defineSuite, Recorder, runIfMain, type Progress } from './lib/suite.js';

let PODS = 10;

async function main(progress: Progress) {
  const why = runtimeUnavailable();
  if (why) throw new Error(`cri-latency: ${why}`);
  const teardowns: (() => unknown)[] = [];
  const startMs: number[] = [];
  let env!: RuntimeEnv;
  startMs.push(await timeMs(async () => { env = await startBenchRuntime({ teardown: (fn) => teardowns.push(fn) }); }));
  const extra: [string, number[]][] = [['containerd start + first image import (pause, busybox)', startMs]];
  try {
    const cri = env.client;
    env.stats.samples.clear();
    for (let i = 0; i < PODS; i++) {
      progress(`pod ${i + 1}/${PODS}`);
      const uid = `bench-${i}`;
      const sandbox: PodSandboxConfig = {
        metadata: { name: `p${i}`, uid, namespace: 'bench' },
        hostname: `p${i}`,
        log_directory: `${env.dir}/logs/${uid}`,
        dns_config: { servers: ['10.96.0.10'] },
        linux: { cgroup_parent: `${env.cgroupParent}/pod${uid}`, security_context: { namespace_options: { pid: 'CONTAINER' } } },
      };
      const container: ContainerConfig = {
        metadata: { name: 'c' },
        image: { image: BUSYBOX_IMAGE },
        command: ['sleep', '3600'],
        log_path: 'c/0.log',
        linux: { security_context: { namespace_options: { pid: 'CONTAINER' } } },
      };
      const sb = await cri.runPodSandbox(sandbox);
      const id = await cri.createContainer(sb, container, sandbox);
      await cri.startContainer(id);
      await cri.containerStatus(id);
      await cri.podSandboxStatus(sb);
      await cri.listContainers();
      await cri.execSync(id, ['echo', 'hi'], 10);
      await cri.stopContainer(id, 0);
      await cri.removeContainer(id);
      await cri.stopPodSandbox(sb);
      await cri.removePodSandbox(sb);
    }
    extra.push(['image import, already present (build + ImageStatus)', [await timeMs(() => ensureBuiltinImages(env.containerd.socket, BENCH_IMAGES))]]);
    const restarts: number[] = [];
    for (let i = 0; i < 3; i++) restarts.push(await timeMs(() => env.containerd.restart()));
    extra.push(['containerd restart until CRI answers', restarts]);
  } finally {
    for (const fn of teardowns) await fn();
  }
  const order: CRIMethod[] = ['RunPodSandbox', 'CreateContainer', 'StartContainer', 'ContainerStatus', 'PodSandboxStatus',
    'ListContainers', 'ExecSync', 'StopContainer', 'RemoveContainer', 'StopPodSandbox', 'RemovePodSandbox'];
  const rows = order.map((m) => {
    const s = summarize(env.stats.samples.get(m) ?? []);
    return [m, s.n, fmtMs(s.p50), fmtMs(s.p99), fmtMs(s.max)];
  });
  const other = extra.map(([what, samples]) => {
    const s = summarize(samples);
    return [what, s.n, fmtMs(s.p50), fmtMs(s.max)];
  });
  const body = `${PODS} pods one after another, each: RunPodSandbox (ptp + host-local CNI, plus containerd's loopback), a busybox \`sleep\` container created, started, inspected, one ExecSync, stopped with timeout 0, removed, sandbox stopped and removed. Wall time per call as the client sees it (deadline handling and proto decoding included). Shared 2-core VM, load average ${loadavg()[0]!.toFixed(1)} at the end: other work inflates every column.

${table(['call', 'n', 'p50', 'p99', 'max'], rows)}

${table(['instance operation', 'n', 'p50', 'max'], other)}
`;
  const rec = new Recorder();
  for (const m of order) rec.metric({ figure: 'CRI call', system: m, unit: 'ms', samples: env.stats.samples.get(m) ?? [] });
  for (const [what, samples] of extra) rec.metric({ figure: what, system: 'containerd', unit: 'ms', samples });
  return rec.output(writeReport('cri-latency', 'CRI call latencies against containerd 1.6', body));
}

export const suite = defineSuite({
  name: 'cri-latency',
  title: 'CRI call latencies against containerd 1.6',
  params: { full: { pods: PODS }, quick: { pods: 3 } },
  requires: [() => { const why = runtimeUnavailable(); return why ? `containerd: ${why}` : undefined; }],
  fromArgv: (argv, full) => ({ pods: Number(argv[0] ?? full.pods) }),
  run: (p, progress) => { PODS = p.pods; return main(progress); },
});
runIfMain(import.meta.url, suite);
