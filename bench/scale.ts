// Scale: N hollow nodes held Ready by their Lease renewals, then P pods created, scheduled
// and Running on them. Every component is its own process (API server on SQLite,
// controller-manager, scheduler, hollow nodes), so the API server's own RSS and CPU can be
// read from /proc; this process creates the pods and watches. Reports the API server's RSS
// and CPU with the nodes idle and during the pod run, lease renewals per second, the fewest
// nodes Ready at any moment, and pods/s of creation, scheduling and Running.
// Usage: node dist/bench/scale.js [--nodes 1000] [--pods 10000] [--concurrency 32] [--idle 30] [--time-limit 0]
// --time-limit S stops creating pods and waiting S seconds after the pod run began and reports
// what was reached (0: no limit), so a run that cannot finish in the time at hand still reports.
import { parseArgs } from 'node:util';
import { cpus, loadavg } from 'node:os';
import { Agent } from 'node:https';
import { startAPIServerProcess } from '../test/helpers/apiserver-process.js';
import { APIClient, type WatchStream } from '../test/helpers/api.js';
import { table, writeReport } from './lib/report.js';
import { defineSuite, Recorder, runIfMain, type Progress } from './lib/suite.js';
import { startComponent } from './lib/components.js';
import { ProcessSampler, type ProcessWindow } from './lib/process-sampler.js';

const options = {
  nodes: { type: 'string', default: '1000' }, pods: { type: 'string', default: '10000' },
  concurrency: { type: 'string', default: '32' }, idle: { type: 'string', default: '30' },
  'time-limit': { type: 'string', default: '0' },
} as const;
interface ScaleParams { nodes: number; pods: number; concurrency: number; idle: number; timeLimit: number; [k: string]: number }

const load = () => loadavg().map((l) => l.toFixed(1)).join(' ');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const ready = (n: { status?: { conditions?: { type: string; status: string }[] } }) => (n.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');

/** Follows a watch in the background, calling `on` for each event, until closed. */
/** What the bench reads of a watched Node or Pod. */
interface Watched { metadata: { name: string }; spec?: { nodeName?: string; podCIDR?: string; renewTime?: string }; status?: { phase?: string; conditions?: { type: string; status: string }[] } }

function follow(watch: WatchStream, on: (type: string, obj: Watched) => void): Promise<void> {
  return (async () => { for await (const ev of watch) on(ev.type, ev.object as Watched); })().catch(() => undefined);
}

async function main(p: ScaleParams, progress: Progress) {
  const teardowns: (() => unknown)[] = [];
  const loadStart = load();
  const t = { teardown: (fn: () => unknown) => { teardowns.push(fn); } };
  try {
    progress('starting the API server, controller-manager, scheduler');
    const server = await startAPIServerProcess(t);
    const kc = server.kubeconfig;
    const apiserver = new ProcessSampler(server.pid);
    const baseline = await apiserver.window(5_000);
    // Every node needs a pod CIDR (nodeipam) before its pods get addresses: /24 blocks of a /12 hold 4,096
    // nodes, a /8 65,536. These addresses are only written into statuses; nothing dials them.
    await startComponent(['controller-manager', '--kubeconfig', kc, '--secure-port', '0', '--leader-elect', 'false', '--cluster-cidr', '10.0.0.0/8'], 'controller-manager running', teardowns);
    await startComponent(['scheduler', '--kubeconfig', kc, '--secure-port', '0', '--leader-elect', 'false'], 'scheduler', teardowns);
    const api = new APIClient(server.port, { ca: server.pki.ca.certPem, cert: server.pki.admin.certPem, key: server.pki.admin.keyPem }, new Agent({ keepAlive: true, maxSockets: p.concurrency + 4 }));

    const nodes = new Map<string, boolean>(), nodeCIDRs = new Set<string>();
    let minReady = Infinity, counting = false;
    const nodeList = await api.get('/api/v1/nodes');
    const nodeWatch = await api.watch(`/api/v1/nodes?watch=true&timeoutSeconds=21600&allowWatchBookmarks=true&resourceVersion=${nodeList.body.metadata.resourceVersion}`);
    void follow(nodeWatch, (type, n) => {
      if (type === 'BOOKMARK') return;
      if (type === 'DELETED') nodes.delete(n.metadata.name);
      else nodes.set(n.metadata.name, ready(n) && !!n.spec?.podCIDR);
      if (type !== 'DELETED' && n.spec?.podCIDR) nodeCIDRs.add(n.metadata.name);
      if (counting) minReady = Math.min(minReady, [...nodes.values()].filter(Boolean).length);
    });
    // Renewals, and the longest time between two renewals of one Lease (by renewTime): the
    // node lifecycle controller marks a node Unknown past 40 s.
    let renewals = 0, maxGap = 0;
    const lastRenew = new Map<string, number>();
    const leaseList = await api.get('/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases');
    const leaseWatch = await api.watch(`/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases?watch=true&timeoutSeconds=21600&resourceVersion=${leaseList.body.metadata.resourceVersion}`);
    void follow(leaseWatch, (type, l) => {
      if (type !== 'ADDED' && type !== 'MODIFIED') return;
      if (type === 'MODIFIED') renewals++;
      const at = Date.parse(l.spec?.renewTime ?? '');
      const before = lastRenew.get(l.metadata.name);
      if (counting && before !== undefined && at > before) maxGap = Math.max(maxGap, at - before);
      lastRenew.set(l.metadata.name, at);
    });

    progress(`registering ${p.nodes} hollow nodes`);
    const regStart = Date.now();
    const hollow = await startComponent(['hollow-nodes', '--kubeconfig', kc, '--count', String(p.nodes), '--pods', String(Math.ceil((p.pods * 1.5) / p.nodes) + 10)], 'capstan hollow-nodes running', teardowns);
    const hollowSampler = new ProcessSampler(hollow.pid!);
    const allReady = () => nodes.size >= p.nodes && [...nodes.values()].every(Boolean);
    // On a machine too busy for the renewals, some nodes flap NotReady and all are never
    // Ready at once: 2 min after the last node got its pod CIDR, the bench goes on and says so.
    const readyCount = () => [...nodes.values()].filter(Boolean).length;
    let allHadCIDRAt = 0, mostReady = 0;
    while (!allReady()) {
      await sleep(500);
      mostReady = Math.max(mostReady, readyCount());
      if (!allHadCIDRAt && nodes.size >= p.nodes && nodeCIDRs.size >= p.nodes) allHadCIDRAt = Date.now();
      if (allHadCIDRAt && Date.now() - allHadCIDRAt > 120_000) break;
    }
    const registration = (Date.now() - regStart) / 1000;
    const neverAllReady = !allReady();
    if (neverAllReady) progress(`never all ${p.nodes} Ready at once (at most ${mostReady}); going on`);

    progress(`${p.nodes} nodes Ready; idle for ${p.idle} s`);
    counting = true;
    minReady = p.nodes;
    maxGap = 0;
    const r0 = renewals;
    const hollowIdleWindow = hollowSampler.start();
    const idle = await apiserver.window(p.idle * 1000);
    const hollowIdle = hollowIdleWindow.end();
    const idleRenewals = (renewals - r0) / p.idle;
    const idleMinReady = minReady, idleMaxGap = maxGap;
    const idleLoad = load();
    progress(`idle: API server RSS ${(idle.rssMean / 2 ** 20).toFixed(0)} MB, ${idle.cpuCores.toFixed(2)} cores; hollow nodes ${hollowIdle.cpuCores.toFixed(2)} cores; ${idleRenewals.toFixed(0)} renewals/s, longest gap ${(idleMaxGap / 1000).toFixed(1)} s, fewest Ready ${idleMinReady}; load ${idleLoad}`);

    progress(`creating ${p.pods} pods at concurrency ${p.concurrency}`);
    await api.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'scale' } });
    const podList = await api.get('/api/v1/namespaces/scale/pods');
    const podWatch = await api.watch(`/api/v1/namespaces/scale/pods?watch=true&timeoutSeconds=21600&resourceVersion=${podList.body.metadata.resourceVersion}`);
    const bound = new Set<string>(), running = new Set<string>();
    const createdAt: number[] = [], boundAt: number[] = [], runningAt: number[] = [];
    const start = Date.now();
    const since = () => (Date.now() - start) / 1000;
    let allRunning!: () => void;
    const runningDone = new Promise<void>((r) => { allRunning = r; });
    void follow(podWatch, (type, pod) => {
      const name = pod.metadata.name as string;
      if (type === 'DELETED') return;
      if (pod.spec?.nodeName && !bound.has(name)) { bound.add(name); boundAt.push(since()); }
      if (pod.status?.phase === 'Running' && !running.has(name)) {
        running.add(name);
        runningAt.push(since());
        if (running.size >= p.pods) allRunning();
      }
    });
    const r1 = renewals;
    minReady = p.nodes;
    maxGap = 0;
    const runWindow = apiserver.start();
    const hollowWindow = hollowSampler.start();
    let next = 0, failures = 0;
    const overTime = () => !!p.timeLimit && since() > p.timeLimit;
    // A line every 30 s, so a run cut short still says how far it got.
    let lastRenewals = renewals, lastAt = Date.now();
    const ticker = setInterval(() => {
      const now = Date.now(), rate = ((renewals - lastRenewals) * 1000) / (now - lastAt);
      lastRenewals = renewals; lastAt = now;
      let rss = NaN;
      try { rss = apiserver.rssBytes() / 2 ** 20; } catch { /* gone */ }
      progress(`t=${since().toFixed(0)} s: ${createdAt.length} created, ${bound.size} bound, ${running.size} Running; ${rate.toFixed(0)} renewals/s, longest gap ${(maxGap / 1000).toFixed(1)} s, fewest Ready ${minReady}; API server RSS ${rss.toFixed(0)} MB; load ${load()}`);
    }, 30_000);
    teardowns.push(() => clearInterval(ticker));
    const spec = { containers: [{ name: 'c', image: 'localhost/capstan/busybox:1', resources: { requests: { cpu: '10m', memory: '16Mi' } } }] };
    await Promise.all(Array.from({ length: p.concurrency }, async () => {
      while (next < p.pods && !overTime()) {
        const i = next++;
        for (let attempt = 0; ; attempt++) {
          const res = await api.post('/api/v1/namespaces/scale/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: `p-${i}`, labels: { app: 'scale' } }, spec });
          if (res.status === 201) { createdAt.push(since()); break; }
          failures++;
          if (res.status !== 429 && res.status < 500 || attempt > 20) throw new Error(`create p-${i}: ${res.status} ${res.text.slice(0, 300)}`);
          await sleep(200);
        }
      }
    }));
    const createdIn = since();
    const created = createdAt.length;
    progress(`${created} pods created in ${createdIn.toFixed(1)} s; waiting for Running`);
    const lastProgress = { count: 0, at: Date.now() };
    while (running.size < created && !overTime()) {
      await Promise.race([runningDone, sleep(5_000)]);
      if (running.size > lastProgress.count) Object.assign(lastProgress, { count: running.size, at: Date.now() });
      else if (Date.now() - lastProgress.at > 180_000) { progress(`stalled: ${bound.size} bound, ${running.size} Running of ${p.pods}`); break; }
    }
    clearInterval(ticker);
    const runSeconds = since();
    const run = runWindow.end();
    const hollowRun = hollowWindow.end();
    const runRenewals = (renewals - r1) / runSeconds;
    const runMinReady = minReady, runMaxGap = maxGap;
    const runLoad = load();
    const settled = await apiserver.window(10_000);
    nodeWatch.close(); leaseWatch.close(); podWatch.close();
    api.closeAll();

    const boundIn = boundAt[boundAt.length - 1] ?? NaN, runningIn = runningAt[runningAt.length - 1] ?? NaN;
    const cut = created < p.pods ? ` (cut at the ${p.timeLimit} s time limit: ${created} of ${p.pods})` : '';
    const rateOf = (n: number, s: number) => `${s.toFixed(1)} s, ${(n / s).toFixed(0)} pods/s`;
    const mb = (b: number) => (b / 2 ** 20).toFixed(0);
    const row = (label: string, w: ProcessWindow) => [label, mb(w.rssMean), mb(w.rssMax), w.cpuCores.toFixed(2)];
    const body = [
      `API server (SQLite), controller-manager, scheduler and ${p.nodes} hollow nodes each in their own process; ${p.pods} pods created by this process at concurrency ${p.concurrency} (${failures} retried), watched from here. Load average at the start ${loadStart}, at the end ${load()} (${cpus().length} cores shared with other work).`,
      '',
      '### API server process',
      '',
      table(['phase', 'RSS mean (MB)', 'RSS max (MB)', 'CPU (cores)'], [
        row('empty, before any node', baseline), row(`${p.nodes} nodes idle (${p.idle} s)`, idle), row(`${p.pods}-pod run`, run), row('after the run (10 s)', settled),
      ]),
      '',
      `Hollow-nodes process: idle RSS max ${mb(hollowIdle.rssMax)} MB, CPU ${hollowIdle.cpuCores.toFixed(2)} cores; during the run RSS max ${mb(hollowRun.rssMax)} MB, CPU ${hollowRun.cpuCores.toFixed(2)} cores. Load average (1, 5, 15 min) at the end of the idle window ${idleLoad}, at the end of the pod run ${runLoad}.`,
      '',
      '### Nodes and pods',
      '',
      table(['figure', 'value'], [
        neverAllReady
          ? [`${p.nodes} nodes registered with pod CIDRs`, `never all Ready at once (at most ${mostReady}); went on after ${registration.toFixed(1)} s`]
          : [`${p.nodes} nodes registered and Ready (with pod CIDRs)`, `${registration.toFixed(1)} s`],
        ['lease renewals while idle', `${idleRenewals.toFixed(0)}/s (nodes ÷ 10 s = ${(p.nodes / 10).toFixed(0)}/s)`],
        ['longest gap between one Lease\'s renewals while idle', `${(idleMaxGap / 1000).toFixed(1)} s (grace period 40 s)`],
        ['fewest nodes Ready while idle', `${idleMinReady} of ${p.nodes}`],
        ['lease renewals during the pod run', `${runRenewals.toFixed(0)}/s`],
        ['longest gap between one Lease\'s renewals during the pod run', `${(runMaxGap / 1000).toFixed(1)} s`],
        ['fewest nodes Ready during the pod run', `${runMinReady} of ${p.nodes} (${p.nodes - runMinReady} NotReady at worst)`],
        [`${created} pods created${cut}`, rateOf(created, createdIn)],
        [`${bound.size} pods scheduled (bound)`, rateOf(bound.size, boundIn)],
        [`${running.size} pods Running`, `${rateOf(running.size, runningIn)}${running.size < created ? ` — ${created - running.size} of ${created} not Running after ${runSeconds.toFixed(0)} s` : ''}`],
      ]),
      '',
    ].join('\n');
    const report = writeReport('scale', `Scale: ${p.nodes} hollow nodes, ${p.pods} pods`, body);

    const rec = new Recorder();
    const x = { name: 'nodes', value: p.nodes };
    rec.metric({ figure: 'API server RSS, nodes idle', system: 'capstan', unit: 'bytes', samples: idle.rss, x });
    rec.metric({ figure: 'API server RSS, pod run', system: 'capstan', unit: 'bytes', samples: run.rss, x });
    rec.metric({ figure: 'API server CPU (cores), nodes idle', system: 'capstan', unit: 'count', samples: [idle.cpuCores], x });
    rec.metric({ figure: 'API server CPU (cores), pod run', system: 'capstan', unit: 'count', samples: [run.cpuCores], x });
    rec.metric({ figure: 'lease renewals per second, idle', system: 'capstan', unit: 'ops/s', samples: [idleRenewals], x });
    rec.metric({ figure: 'fewest nodes Ready, pod run', system: 'capstan', unit: 'count', samples: [runMinReady], x });
    rec.metric({ figure: 'lease renewals per second, pod run', system: 'capstan', unit: 'ops/s', samples: [runRenewals], x });
    rec.metric({ figure: 'pods created', system: 'capstan', unit: 'pods/s', times: createdAt, rate: created / createdIn, x });
    rec.metric({ figure: 'pods scheduled', system: 'capstan', unit: 'pods/s', times: boundAt, rate: bound.size / boundIn, x });
    rec.metric({ figure: 'pods Running', system: 'capstan', unit: 'pods/s', times: runningAt, rate: running.size / runningIn, x });
    return rec.output(report);
  } finally {
    for (const fn of teardowns.reverse()) await fn();
  }
}

export const suite = defineSuite<ScaleParams>({
  name: 'scale',
  title: 'Scale: hollow nodes held Ready, pods created, scheduled and Running',
  params: { full: { nodes: 1000, pods: 10000, concurrency: 32, idle: 30, timeLimit: 0 }, quick: { nodes: 20, pods: 200, concurrency: 16, idle: 5, timeLimit: 0 } },
  fromArgv: (argv) => {
    const v = parseArgs({ args: argv, options }).values;
    return { nodes: Number(v.nodes), pods: Number(v.pods), concurrency: Number(v.concurrency), idle: Number(v.idle), timeLimit: Number(v['time-limit']) };
  },
  run: (p, progress) => main(p, progress),
});
runIfMain(import.meta.url, suite);
