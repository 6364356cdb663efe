// CPU of N hollow service proxies for a fixed workload, without an API server: the proxies
// watch an in-memory clientset (src/client/fake.ts), so what is measured is the proxies'
// own work (informer upserts, plans, syncs into the in-memory nftables driver), not TLS or
// the API server. To compare two builds side by side on a shared machine, it alternates runs
// of each build's copy of this script in child processes and prints each run's CPU.
//   node dist/bench/hollow-proxy-cpu.js [--nodes N] [--services S] [--endpoints E]
//        [--changes C] [--sync-period-ms P] [--rounds R] [--compare <other dist root>]
// Each child prints one JSON line: {"startCpuS":…,"changesCpuS":…,"wallS":…}.
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { FakeClientset, resources } from '../src/client/index.js';
import { logger } from '../src/log/index.js';
import { HollowProxy } from '../src/proxy/hollow.js';
import type { KubeObject } from '../src/api/object.js';
import type { EndpointSlice } from '../src/api/kinds.js';

const { values: a } = parseArgs({ options: {
  nodes: { type: 'string', default: '100' }, services: { type: 'string', default: '100' }, endpoints: { type: 'string', default: '10' },
  changes: { type: 'string', default: '10' }, 'sync-period-ms': { type: 'string', default: '5000' },
  rounds: { type: 'string', default: '2' }, compare: { type: 'string' }, child: { type: 'boolean', default: false },
} });
const NS = 'bench';
const cpuSeconds = (c: NodeJS.CpuUsage) => (c.user + c.system) / 1e6;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function workload(): Promise<void> {
  const nodes = Number(a.nodes), services = Number(a.services), endpoints = Number(a.endpoints);
  const clients = new FakeClientset();
  const ip = (i: number) => `10.244.${Math.floor(i / 250)}.${(i % 250) + 1}`;
  const slice = (s: number, ready: boolean): KubeObject => ({
    metadata: { namespace: NS, name: `svc-${s}-1`, labels: { 'kubernetes.io/service-name': `svc-${s}` } },
    addressType: 'IPv4', ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
    endpoints: Array.from({ length: endpoints }, (_, e) => ({ addresses: [ip(s * endpoints + e)], conditions: { ready: e > 0 || ready }, nodeName: `hollow-proxy-${e}` })),
  });
  for (let s = 0; s < services; s++) {
    clients.seed(resources.services, { metadata: { namespace: NS, name: `svc-${s}` }, spec: { clusterIP: `10.96.${Math.floor(s / 250)}.${(s % 250) + 1}`, clusterIPs: [`10.96.${Math.floor(s / 250)}.${(s % 250) + 1}`], ports: [{ name: 'http', port: 80, targetPort: 8080, protocol: 'TCP' }] } });
    clients.seed(resources.endpointslices, slice(s, true));
  }
  const log = logger('hollow-proxy');
  const cpu0 = process.cpuUsage();
  const proxies = Array.from({ length: nodes }, (_, i) => new HollowProxy({
    nodeName: `hollow-proxy-${i}`, clients, log, clusterCIDR: '10.244.0.0/16', syncPeriodMs: Number(a['sync-period-ms']),
  }));
  for (let i = 0; i < proxies.length; i += 50) await Promise.all(proxies.slice(i, i + 50).map((p) => p.start()));
  const cpu1 = process.cpuUsage(), wall1 = performance.now();
  // One endpoint of one service flips readiness per change, every min-sync-period and a bit.
  const slices = clients.resource(resources.endpointslices);
  for (let c = 0; c < Number(a.changes); c++) {
    const current = await slices.get(NS, 'svc-0-1');
    await slices.update({ ...(slice(0, c % 2 === 1) as unknown as EndpointSlice), metadata: current.metadata });
    await sleep(1300);
  }
  const cpu2 = process.cpuUsage();
  process.stdout.write(`${JSON.stringify({ startCpuS: cpuSeconds(cpu1) - cpuSeconds(cpu0), changesCpuS: cpuSeconds(cpu2) - cpuSeconds(cpu1), wallS: (performance.now() - wall1) / 1000 })}\n`);
  for (const p of proxies) await p.proxier.stop();
  clients.close();
}

function run(script: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args, '--child'], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, CAPSTAN_LOG_LEVEL: 'error' } });
    let out = '';
    child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
    child.on('exit', (code) => (code === 0 ? resolve(out.trim()) : reject(new Error(`${script} exited ${code}`))));
  });
}

if (a.child) {
  await workload();
  process.exit(0);
} else {
  const self = fileURLToPath(import.meta.url);
  const builds: [string, string][] = [['this', self]];
  if (a.compare) builds.unshift(['compare', `${a.compare}/bench/hollow-proxy-cpu.js`]);
  const args = ['--nodes', a.nodes!, '--services', a.services!, '--endpoints', a.endpoints!, '--changes', a.changes!, '--sync-period-ms', a['sync-period-ms']!];
  console.log(`load average at the start ${loadavg().map((x) => x.toFixed(1)).join(' ')}; ${args.join(' ')}`);
  for (let r = 0; r < Number(a.rounds); r++) {
    for (const [name, script] of builds) console.log(`${name}: ${await run(script, args)}`);
  }
  console.log(`load average at the end ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);
}
