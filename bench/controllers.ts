// Controller throughput: a Deployment of N replicas (default 5,000) from `kubectl apply` to
// every pod Running and the Deployment fully available, on hollow nodes. Every component is
// its own process, as in a real cluster: API server, controller-manager, scheduler, hollow
// nodes; this process only watches. Reports the time to each milestone and pods/s.
// Usage: node dist/bench/controllers.js [--replicas 5000] [--nodes 100]
import { parseArgs } from 'node:util';
import { Agent } from 'node:https';
import { startAPIServerProcess } from '../test/helpers/apiserver-process.js';
import { APIClient } from '../test/helpers/api.js';
import { table, writeReport } from './lib/report.js';
import { defineSuite, Recorder, runIfMain, type Progress } from './lib/suite.js';
import { startComponent } from './lib/components.js';

const options = { replicas: { type: 'string', default: '5000' }, nodes: { type: 'string', default: '100' } } as const;
let replicas = 5000;
let nodes = 100;
const teardowns: (() => unknown)[] = [];
const t = { teardown: (fn: () => unknown) => { teardowns.push(fn); } };

const component = (args: string[], readyText: string) => startComponent(args, readyText, teardowns);

async function main(progress: Progress) {
try {
  progress('starting the API server, hollow nodes, controller-manager, scheduler');
  const server = await startAPIServerProcess(t);
  const kc = server.kubeconfig;
  await component(['hollow-nodes', '--kubeconfig', kc, '--count', String(nodes), '--pods', String(Math.ceil((replicas * 1.5) / nodes) + 10)], 'capstan hollow-nodes running');
  await component(['controller-manager', '--kubeconfig', kc, '--secure-port', '0', '--leader-elect', 'false'], 'controller-manager running');
  await component(['scheduler', '--kubeconfig', kc, '--secure-port', '0', '--leader-elect', 'false'], 'scheduler');
  const api = new APIClient(server.port, { ca: server.pki.ca.certPem, cert: server.pki.admin.certPem, key: server.pki.admin.keyPem }, new Agent({ keepAlive: true }));
  // Wait until every node has a pod CIDR, so pods can get addresses.
  for (;;) {
    const list = await api.get('/api/v1/nodes');
    if (list.body.items.length === nodes && list.body.items.every((n: { spec?: { podCIDR?: string } }) => n.spec?.podCIDR)) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  const pods = await api.get('/api/v1/namespaces/default/pods');
  const watch = await api.watch(`/api/v1/namespaces/default/pods?watch=true&resourceVersion=${pods.body.metadata.resourceVersion}`);
  const created = new Set<string>(), bound = new Set<string>(), running = new Set<string>();
  const runningAt: number[] = [];
  const marks: Record<string, number> = {};
  const start = Date.now();
  const done = (async () => {
    for await (const ev of watch) {
      const p = ev.object;
      const name = p.metadata.name as string;
      created.add(name);
      if (p.spec?.nodeName) bound.add(name);
      if (p.status?.phase === 'Running' && (p.status.conditions ?? []).some((c: { type: string; status: string }) => c.type === 'Ready' && c.status === 'True') && !running.has(name)) {
        running.add(name);
        runningAt.push((Date.now() - start) / 1000);
      }
      for (const [label, set] of [['all created', created], ['all scheduled', bound], ['all Running and Ready', running]] as const) {
        if (set.size >= replicas && marks[label] === undefined) marks[label] = Date.now() - start;
      }
      if (running.size >= replicas) return;
    }
  })();
  progress(`a Deployment of ${replicas} on ${nodes} hollow nodes`);
  await api.post('/apis/apps/v1/namespaces/default/deployments', {
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'big' },
    spec: { replicas, selector: { matchLabels: { app: 'big' } }, template: { metadata: { labels: { app: 'big' } }, spec: { containers: [{ name: 'c', image: 'localhost/capstan/busybox:1' }] } } },
  });
  await done;
  watch.close();
  for (;;) {
    const d = await api.get('/apis/apps/v1/namespaces/default/deployments/big');
    if (d.body.status?.availableReplicas === replicas) { marks['Deployment available'] = Date.now() - start; break; }
    await new Promise((r) => setTimeout(r, 200));
  }
  const rows = Object.entries(marks).map(([m, ms]) => [m, (ms / 1000).toFixed(1), (replicas / (ms / 1000)).toFixed(0)]);
  const report = writeReport('controllers', `Controller throughput: a Deployment of ${replicas} on ${nodes} hollow nodes`,
    `API server (SQLite), controller-manager, scheduler and hollow nodes each in their own process; milestones seen through a watch from this process, from the moment the Deployment is created.\n\n${table(['milestone', 'seconds', 'pods/s'], rows)}\n`);
  const rec = new Recorder();
  rec.metric({ figure: 'Deployment pods Running and Ready', system: 'capstan', unit: 'pods/s', times: runningAt, rate: replicas / (marks['all Running and Ready']! / 1000) });
  for (const [m, ms] of Object.entries(marks)) rec.metric({ figure: `Deployment of ${replicas}: ${m}`, system: 'capstan', unit: 's', samples: [ms / 1000], rate: replicas / (ms / 1000) });
  return rec.output(report);
} finally {
  for (const fn of teardowns.reverse()) await fn();
}
}

export const suite = defineSuite({
  name: 'controllers',
  title: 'Controller throughput: a Deployment on hollow nodes',
  params: { full: { replicas, nodes }, quick: { replicas: 30, nodes: 3 } },
  fromArgv: (argv) => {
    const v = parseArgs({ args: argv, options }).values;
    return { replicas: Number(v.replicas), nodes: Number(v.nodes) };
  },
  run: (p, progress) => {
    [replicas, nodes] = [p.replicas, p.nodes];
    return main(progress);
  },
});
runIfMain(import.meta.url, suite);
