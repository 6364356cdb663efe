// Batch throughput beside Deployment throughput, in one run on hollow nodes: a Deployment of N
// replicas (default 1,000) until every pod is Running and Ready, then a Job of N completions
// with parallelism P (default 100) whose pods run `sh -c 'sleep 1'` (hollow containers exit
// as their command says) until the Job is Complete. Each component is its own process (API
// server, controller-manager, scheduler, hollow nodes); this process only watches pods and
// reports, per workload, the time to its goal and the pod creation rate reached (mean over the
// whole run and the best one-second window).
// Usage: node dist/bench/job.js [--completions 1000] [--parallelism 100] [--nodes 50]
import { parseArgs } from 'node:util';
import { Agent } from 'node:https';
import { startAPIServerProcess } from '../test/helpers/apiserver-process.js';
import { APIClient } from '../test/helpers/api.js';
import { table, writeReport } from './lib/report.js';
import { defineSuite, Recorder, runIfMain, type Progress } from './lib/suite.js';
import { startComponent } from './lib/components.js';

const options = { completions: { type: 'string', default: '1000' }, parallelism: { type: 'string', default: '100' }, nodes: { type: 'string', default: '50' } } as const;
let size = 1000;
let parallelism = 100;
let nodes = 50;
const teardowns: (() => unknown)[] = [];
const t = { teardown: (fn: () => unknown) => { teardowns.push(fn); } };

const component = (args: string[], readyText: string) => startComponent(args, readyText, teardowns);

interface Run { goalMs: number; created: number[] }

/** Creation rate: mean over first→last create, and the most creates seen in any one second. */
function rates(created: number[]): { mean: string; peak: number } {
  const sorted = [...created].sort((a, b) => a - b);
  const span = (sorted[sorted.length - 1] - sorted[0]) / 1000;
  let peak = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (sorted[i] - sorted[j] >= 1000) j++;
    peak = Math.max(peak, i - j + 1);
  }
  return { mean: span > 0 ? (sorted.length / span).toFixed(0) : String(sorted.length), peak };
}

async function main(progress: Progress) {
try {
  progress('starting the API server, hollow nodes, controller-manager, scheduler');
  const server = await startAPIServerProcess(t);
  const kc = server.kubeconfig;
  await component(['hollow-nodes', '--kubeconfig', kc, '--count', String(nodes), '--pods', String(Math.ceil((size * 2.5) / nodes) + 10)], 'capstan hollow-nodes running');
  await component(['controller-manager', '--kubeconfig', kc, '--secure-port', '0', '--leader-elect', 'false'], 'controller-manager running');
  await component(['scheduler', '--kubeconfig', kc, '--secure-port', '0', '--leader-elect', 'false'], 'scheduler');
  const api = new APIClient(server.port, { ca: server.pki.ca.certPem, cert: server.pki.admin.certPem, key: server.pki.admin.keyPem }, new Agent({ keepAlive: true }));
  for (;;) {
    const list = await api.get('/api/v1/nodes');
    if (list.body.items.length === nodes && list.body.items.every((n: { spec?: { podCIDR?: string } }) => n.spec?.podCIDR)) break;
    await new Promise((r) => setTimeout(r, 500));
  }

  /** Creates `body` at `path` and watches pods with `selector` until `done` says so. */
  async function measure(path: string, body: object, selector: string, done: () => Promise<boolean>, podsDone: (running: number, finished: number) => boolean): Promise<Run> {
    const pods = await api.get(`/api/v1/namespaces/default/pods?labelSelector=${encodeURIComponent(selector)}`);
    const watch = await api.watch(`/api/v1/namespaces/default/pods?watch=true&labelSelector=${encodeURIComponent(selector)}&resourceVersion=${pods.body.metadata.resourceVersion}`);
    const seen = new Map<string, number>();
    const running = new Set<string>(), finished = new Set<string>();
    const start = Date.now();
    const watching = (async () => {
      for await (const ev of watch) {
        const p = ev.object;
        const name = p.metadata.name as string;
        if (!seen.has(name)) seen.set(name, Date.now());
        if (p.status?.phase === 'Running' && (p.status.conditions ?? []).some((c: { type: string; status: string }) => c.type === 'Ready' && c.status === 'True')) running.add(name);
        if (p.status?.phase === 'Succeeded') finished.add(name);
        if (podsDone(running.size, finished.size)) return;
      }
    })();
    await api.post(path, body);
    await watching;
    watch.close();
    while (!(await done())) await new Promise((r) => setTimeout(r, 100));
    return { goalMs: Date.now() - start, created: [...seen.values()] };
  }

  progress(`a Deployment of ${size}`);
  const deployment = await measure('/apis/apps/v1/namespaces/default/deployments', {
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' },
    spec: { replicas: size, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'localhost/capstan/busybox:1' }] } } },
  }, 'app=web', async () => (await api.get('/apis/apps/v1/namespaces/default/deployments/web')).body.status?.availableReplicas === size, (r) => r >= size);

  progress(`a Job of ${size} completions, parallelism ${parallelism}`);
  const job = await measure('/apis/batch/v1/namespaces/default/jobs', {
    apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'batch' },
    spec: { completions: size, parallelism, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'localhost/capstan/busybox:1', command: ['sh', '-c', 'sleep 1'] }] } } },
  }, 'batch.kubernetes.io/job-name=batch', async () => {
    const j = (await api.get('/apis/batch/v1/namespaces/default/jobs/batch')).body;
    return (j.status?.conditions ?? []).some((c: { type: string; status: string }) => c.type === 'Complete' && c.status === 'True');
  }, (_r, f) => f >= size);

  const d = rates(deployment.created), j = rates(job.created);
  const rows = [
    [`Deployment, ${size} replicas`, 'all Running and Ready, available', (deployment.goalMs / 1000).toFixed(1), deployment.created.length, d.mean, d.peak],
    [`Job, ${size} completions, parallelism ${parallelism}, pods \`sleep 1\``, 'Complete', (job.goalMs / 1000).toFixed(1), job.created.length, j.mean, j.peak],
  ];
  const report = writeReport('job', `Job throughput beside a Deployment: ${size} pods each on ${nodes} hollow nodes`,
    `API server (SQLite), controller-manager, scheduler and hollow nodes each in their own process; one run, the Deployment first, then the Job. Times from the create to the goal; creation rates from the pods' first appearance in a watch from this process (mean over first→last create; peak: most creates in one second).\n\n${table(['workload', 'goal', 'seconds', 'pods created', 'pods/s (mean)', 'pods/s (peak 1 s)'], rows)}\n`);
  const rec = new Recorder();
  for (const [system, r] of [['Deployment', deployment], ['Job', job]] as const) {
    const first = Math.min(...r.created);
    rec.metric({ figure: 'pods created', system: `capstan ${system}`, unit: 'pods/s', times: r.created.map((c) => (c - first) / 1000).sort((a, b) => a - b), rate: Number(rates(r.created).mean) });
    rec.metric({ figure: 'time to goal', system: `capstan ${system}`, unit: 's', samples: [r.goalMs / 1000] });
  }
  return rec.output(report);
} finally {
  for (const fn of teardowns.reverse()) await fn();
}
}

export const suite = defineSuite({
  name: 'job',
  title: 'Job throughput beside a Deployment on hollow nodes',
  params: { full: { completions: size, parallelism, nodes }, quick: { completions: 20, parallelism: 10, nodes: 3 } },
  fromArgv: (argv) => {
    const v = parseArgs({ args: argv, options }).values;
    return { completions: Number(v.completions), parallelism: Number(v.parallelism), nodes: Number(v.nodes) };
  },
  run: (p, progress) => {
    [size, parallelism, nodes] = [p.completions, p.parallelism, p.nodes];
    return main(progress);
  },
});
runIfMain(import.meta.url, suite);
