// NetworkPolicy on one node, capstan's `ip capstan-policy` (maps keyed by pod address, pod
// chains looking up the pod's own sets) side by side with the classic iptables shape (kube-router's and Calico's
// iptables modes: FORWARD jumps per isolated pod, a chain per policy, a rule per peer),
// loaded with iptables-restore. For 0/100/1,000/10,000 policies (10 select the target pod,
// the rest select other pods of this node, ten per pod; peers: the ten pods of a namespace):
// first-packet latency of new TCP connections client → target, and the time from a
// one-policy change to its commit in the kernel. Each (size, shape) runs in fresh namespaces.
//   node dist/bench/networkpolicy.js [sizes=0,100,1000,10000] [connects=400] [iptables-restore]
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { logger } from '../src/log/index.js';
import { createNetlink } from '../src/netlink/index.js';
import { nodeNetworkOps, podNetworkOps, randomPodMac } from '../src/network/index.js';
import { COLLECT_AFTER_MS, PolicyEnforcer, policyTable } from '../src/network/policy/index.js';
import { createNftDriver, type NftDriver } from '../src/nft/index.js';
import type { Namespace, NetworkPolicy, Pod } from '../src/api/kinds.js';
import { addNamespace, removeNamespace, type BenchNamespace } from './lib/netns.js';
import { fmtMs, summarize, timeMs } from './lib/stats.js';
import { table, writeReport } from './lib/report.js';
import { defineSuite, runIfMain, type Progress } from './lib/suite.js';
import { command, root } from './lib/prereq.js';
import { emitPolicyRows } from './lib/networkpolicy-results.js';

let SIZES = [0, 100, 1000, 10000];
let CONNECTS = 400;
let RESTORE = 'iptables-legacy-restore';
const CHANGES = 10;
const TARGET = '10.244.0.2', CLIENT = '10.244.0.3';
const nl = createNetlink('addon');
// Each row runs in a process of its own (a 10,000-policy world is ~150 MB of garbage that a later
// row's changes would otherwise collect), and a full collection before its changes clears what
// building its own world left.
setFlagsFromString('--expose-gc');
const fullGc = runInNewContext('gc') as () => void;

interface World { pods: Pod[]; namespaces: Namespace[]; policies: NetworkPolicy[] }

const pod = (ns: string, name: string, ip: string, labels: Record<string, string>): Pod =>
  ({ metadata: { namespace: ns, name, labels }, spec: { nodeName: 'bench', containers: [] }, status: { phase: 'Running', podIP: ip } });

/** The target and the client, and `size` policies: 10 on the target (one admits the client on `port`). */
function world(size: number, port = 80): World {
  const pods: Pod[] = [pod('bench', 'target', TARGET, { app: 'target' }), pod('bench', 'client', CLIENT, { app: 'client' })];
  const namespaces: Namespace[] = [{ metadata: { name: 'bench', labels: { ns: 'bench' } } }];
  const policies: NetworkPolicy[] = [];
  const others = Math.max(0, size - 10);
  const podCount = Math.ceil(others / 10);
  for (let i = 0; i < podCount; i++) {
    const ns = `ns-${Math.floor(i / 10)}`;
    if (i % 10 === 0) namespaces.push({ metadata: { name: ns, labels: { ns } } });
    pods.push(pod(ns, `p${i}`, `10.244.${1 + Math.floor(i / 250)}.${2 + (i % 250)}`, { app: 'peer', idx: String(i) }));
  }
  const policy = (ns: string, name: string, selector: Record<string, string>, from: Record<string, string>, p: number): NetworkPolicy =>
    ({ metadata: { namespace: ns, name }, spec: { podSelector: { matchLabels: selector }, ingress: [{ from: [{ podSelector: { matchLabels: from } }], ports: [{ port: p }] }] } });
  if (size > 0) {
    policies.push(policy('bench', 'allow-client', { app: 'target' }, { app: 'client' }, port));
    for (let k = 1; k < Math.min(10, size); k++) policies.push(policy('bench', `t${k}`, { app: 'target' }, { app: `nobody-${k}` }, 8000 + k));
  }
  for (let j = 0; j < others; j++) {
    const i = Math.floor(j / 10);
    policies.push(policy(`ns-${Math.floor(i / 10)}`, `np${j}`, { idx: String(i) }, { app: 'peer' }, 9000 + (j % 10)));
  }
  return { pods, namespaces, policies };
}

interface Topology { node: BenchNamespace; client: BenchNamespace; server: BenchNamespace; stop(): Promise<void> }

async function topology(): Promise<Topology> {
  const node = await addNamespace(), client = await addNamespace(), server = await addNamespace();
  const ip = (ns: BenchNamespace, ...args: string[]) => execa('ip', ['-n', ns.name, ...args]);
  await ip(node, 'link', 'set', 'lo', 'up');
  // A default route (proxy ARP answers only with one) into a veth whose far end stays here.
  await ip(node, 'link', 'add', 'uplink0', 'type', 'veth', 'peer', 'name', 'uplink1');
  await ip(node, 'addr', 'add', '192.168.250.1/24', 'dev', 'uplink0');
  await ip(node, 'link', 'set', 'uplink0', 'up');
  await ip(node, 'link', 'set', 'uplink1', 'up');
  await ip(node, 'route', 'add', 'default', 'via', '192.168.250.2', 'dev', 'uplink0');
  await nl.apply(node.path, nodeNetworkOps());
  for (const [i, [ns, addr]] of ([[server, TARGET], [client, CLIENT]] as const).entries()) {
    await ip(ns, 'link', 'set', 'lo', 'up');
    const ops = podNetworkOps({ podIP: addr, hostVeth: `capb${i}`, ifName: 'eth0', netns: ns.path, podMac: randomPodMac(), mtu: 1500 });
    await nl.apply(node.path, ops.host);
    await nl.apply(ns.path, ops.pod);
  }
  const srv = execa('nsenter', [`--net=${server.path}`, process.execPath, '-e',
    `require('node:net').createServer((c) => c.destroy()).listen(80, '0.0.0.0', () => console.log('listening'))`], { reject: false });
  await new Promise<void>((res) => srv.stdout!.on('data', () => res()));
  return {
    node, client, server,
    async stop() {
      srv.kill('SIGKILL');
      await srv.catch(() => undefined);
      for (const ns of [client, server, node]) await removeNamespace(ns);
    },
  };
}

/** `count` new TCP connections one after another; the connect times (SYN → SYN-ACK seen) in ms. */
async function connects(ns: BenchNamespace, count: number, port = 80): Promise<number[]> {
  const script = `const net = require('node:net'); const out = []; let i = 0;
    const one = () => { const t0 = process.hrtime.bigint(); const c = net.connect({ host: '${TARGET}', port: ${port} });
      c.on('connect', () => { out.push(Number(process.hrtime.bigint() - t0) / 1e6); c.destroy(); if (++i < ${count}) one(); else console.log(JSON.stringify(out)); });
      c.on('error', (e) => { console.error(e.message); process.exit(1); }); };
    one();`;
  const r = await execa('nsenter', [`--net=${ns.path}`, process.execPath, '-e', script], { reject: false, timeout: 120_000 });
  if (r.exitCode !== 0) throw new Error(`connects failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as number[];
}

/** Whether a new connection gets through within 1 s (to see a change took effect). */
async function reachable(ns: BenchNamespace, port: number): Promise<boolean> {
  const r = await execa('nsenter', [`--net=${ns.path}`, process.execPath, '-e',
    `const c = require('node:net').connect({ host: '${TARGET}', port: ${port} }); c.on('connect', () => process.exit(0)).on('error', () => process.exit(1)); setTimeout(() => process.exit(2), 1000);`], { reject: false });
  return r.exitCode === 0;
}

// ---- the iptables shape ----

const hash = (s: string) => { let h = 0; for (const c of s) h = (h * 31 + c.charCodeAt(0)) >>> 0; return h.toString(36); };
const polChain = (np: NetworkPolicy) => `NPC-${hash(`${np.metadata.namespace}/${np.metadata.name}`)}`;

function policyChainRules(w: World, np: NetworkPolicy): string[] {
  const rule = np.spec!.ingress![0]!;
  const sel = rule.from![0]!.podSelector!.matchLabels!;
  const peers = w.pods.filter((p) => p.metadata.namespace === np.metadata.namespace && Object.entries(sel).every(([k, v]) => p.metadata.labels?.[k] === v));
  const port = rule.ports![0]!.port;
  return peers.map((p) => `-A ${polChain(np)} -s ${p.status!.podIP}/32 -p tcp -m tcp --dport ${port} -j MARK --set-xmark 0x10000/0x10000`);
}

function iptablesRuleset(w: World): string {
  const lines = ['*filter', ':NP-FORWARD - [0:0]'];
  const rules: string[] = ['-A FORWARD -j NP-FORWARD', '-A NP-FORWARD -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT'];
  const selecting = new Map<string, NetworkPolicy[]>();
  for (const np of w.policies) {
    lines.push(`:${polChain(np)} - [0:0]`);
    rules.push(...policyChainRules(w, np));
    const sel = np.spec!.podSelector!.matchLabels!;
    for (const p of w.pods) {
      if (p.metadata.namespace !== np.metadata.namespace || !Object.entries(sel).every(([k, v]) => p.metadata.labels?.[k] === v)) continue;
      const ip = p.status!.podIP!;
      selecting.set(ip, [...(selecting.get(ip) ?? []), np]);
    }
  }
  // The target's jump comes last in FORWARD: its first packets walk past every other isolated pod.
  const order = [...selecting.keys()].sort((a, b) => (a === TARGET ? 1 : b === TARGET ? -1 : a.localeCompare(b)));
  for (const ip of order) {
    const chain = `NPP-${hash(ip)}`;
    lines.push(`:${chain} - [0:0]`);
    rules.push(`-A NP-FORWARD -d ${ip}/32 -j ${chain}`);
    for (const np of selecting.get(ip)!) rules.push(`-A ${chain} -j ${polChain(np)}`);
    rules.push(`-A ${chain} -m mark --mark 0x10000/0x10000 -j ACCEPT`, `-A ${chain} -j DROP`);
  }
  return [...lines, ...rules, 'COMMIT', ''].join('\n');
}

async function restore(ns: BenchNamespace, text: string, noflush = false): Promise<void> {
  const r = await execa('nsenter', [`--net=${ns.path}`, RESTORE, ...(noflush ? ['--noflush'] : [])], { input: text, reject: false });
  if (r.exitCode !== 0) throw new Error(`${RESTORE} failed: ${r.stderr}`);
}

// ---- one run ----

interface Row { shape: string; policies: number; load: number; p50: number; p99: number; mean: number; change: number; changeMax: number; commit?: number; collect?: number; cpu?: number }

async function run(shape: 'nft' | 'iptables', size: number): Promise<Row> {
  const topo = await topology();
  try {
    const w = world(size);
    let load = 0;
    const commits: number[] = [];
    const collects: number[] = [];
    // CPU time of this process during a change (JavaScript, and the kernel's commit in the
    // addon's thread): what a change costs, whatever else the shared machine runs meanwhile.
    const cpus: number[] = [];
    let change: () => Promise<number>;
    if (shape === 'nft') {
      // The kernel's share of a change: the transaction alone, timed inside the driver.
      const addon = createNftDriver('addon');
      const timed: NftDriver = { name: 'timed', list: (n, t) => addon.list(n, t), generation: (n) => addon.generation!(n),
        apply: async (n, t, ops) => { const t0 = process.hrtime.bigint(); const r = await addon.apply(n, t, ops); commits.push(Number(process.hrtime.bigint() - t0) / 1e6); return r; } };
      const enforcer = new PolicyEnforcer(policyTable(timed, topo.node.path), logger('bench', {}, () => undefined), 'bench');
      load = await timeMs(() => enforcer.sync(w));
      let port = 80;
      // As from an informer's lister: every object but the changed policy stays the same object.
      change = async () => {
        port = port === 80 ? 81 : 80;
        const next = { ...w, policies: [world(Math.min(size, 10), port).policies[0]!, ...w.policies.slice(1)] };
        const cpu0 = process.cpuUsage();
        const ms = await timeMs(() => enforcer.sync(next));
        const cpu = process.cpuUsage(cpu0);
        cpus.push((cpu.user + cpu.system) / 1000);
        // A change that moved a chain to its other generation leaves garbage, collected a while
        // later in a transaction of its own (an element-only change leaves none).
        if (enforcer.hasGarbage()) {
          await new Promise((r) => setTimeout(r, COLLECT_AFTER_MS));
          collects.push(await timeMs(async () => { if (!(await enforcer.collect())) throw new Error('nothing collected'); }));
        }
        return ms;
      };
    } else {
      const text = iptablesRuleset(w);
      load = await timeMs(() => restore(topo.node, text));
      let port = 80;
      change = async () => {
        port = port === 80 ? 81 : 80;
        const next = world(size, port);
        const np = next.policies[0]!;
        return timeMs(() => restore(topo.node, ['*filter', `:${polChain(np)} - [0:0]`, ...policyChainRules(next, np), 'COMMIT', ''].join('\n'), true));
      };
    }
    await connects(topo.client, 20); // warm up (ARP, JIT)
    const lat = summarize(await connects(topo.client, CONNECTS));
    const changes: number[] = [];
    fullGc();
    if (size > 0) {
      for (let i = 0; i < CHANGES; i++) changes.push(await change());
      // CHANGES is even: the client's policy is back on port 80; one more change moves it to 81.
      changes.push(await change());
      if (await reachable(topo.client, 80)) throw new Error(`${shape}: the change was not enforced`);
    }
    const ch = summarize(changes);
    // Each change is its transaction then the collection's.
    const commit = shape === 'nft' && size > 0 ? summarize(commits.slice(-(changes.length + collects.length)).filter((_, i) => !collects.length || i % 2 === 0)).p50 : undefined;
    const collect = collects.length ? summarize(collects).p50 : undefined;
    const cpu = cpus.length ? summarize(cpus).p50 : undefined;
    return { shape, policies: size, load, p50: lat.p50, p99: lat.p99, mean: lat.mean, change: ch.p50, changeMax: ch.max, ...(commit !== undefined ? { commit } : {}), ...(collect !== undefined ? { collect } : {}), ...(cpu !== undefined ? { cpu } : {}) };
  } finally {
    await topo.stop();
  }
}

const ROW_ENV = 'CAPSTAN_BENCH_NETWORKPOLICY_ROW';

/** One row measured by a fresh `node` running this file, which prints the row as JSON. */
async function runInOwnProcess(shape: 'nft' | 'iptables', size: number): Promise<Row> {
  const r = await execa(process.execPath, [fileURLToPath(import.meta.url)], {
    env: { [ROW_ENV]: JSON.stringify({ shape, size, connects: CONNECTS, restore: RESTORE }) }, stderr: 'inherit', reject: false,
  });
  if (r.exitCode !== 0) throw new Error(`${shape} with ${size} policies: the row's process exited with ${r.exitCode}`);
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as Row;
}

async function main(progress: Progress) {
const rows: Row[] = [];
for (const size of SIZES) {
  for (const shape of ['nft', 'iptables'] as const) {
    progress(`${shape}, ${size} policies`);
    const r = await runInOwnProcess(shape, size);
    rows.push(r);
    console.log(JSON.stringify(r));
  }
}
const base = (shape: string) => rows.find((r) => r.shape === shape && r.policies === SIZES[0])!;
const body = [
  `Sizes ${SIZES.join(', ')} policies; ${CONNECTS} sequential new TCP connections client → target (same node) per row; `
  + `${CHANGES + 1} one-policy changes (the policy admitting the client flips between port 80 and 81). iptables shape loaded with \`${RESTORE}\`.`,
  '',
  table(['shape', 'policies', 'initial load', 'connect p50', 'p99', 'mean', 'p50 ÷ 0 policies', 'change → committed p50', 'max', 'of which the transaction (p50)', 'change CPU time (p50)', 'later collection (p50)'],
    rows.map((r) => [r.shape === 'nft' ? 'capstan-policy (nft, addon)' : 'iptables chain per policy', r.policies, fmtMs(r.load), `${(r.p50 * 1000).toFixed(0)} µs`, `${(r.p99 * 1000).toFixed(0)} µs`,
      `${(r.mean * 1000).toFixed(0)} µs`, `${(r.p50 / base(r.shape).p50).toFixed(2)}×`, r.policies ? fmtMs(r.change) : '–', r.policies ? fmtMs(r.changeMax) : '–',
      r.commit !== undefined ? fmtMs(r.commit) : '–', r.cpu !== undefined ? fmtMs(r.cpu) : '–', r.collect !== undefined ? fmtMs(r.collect) : '–'])),
].join('\n');
return emitPolicyRows(rows, writeReport('networkpolicy', 'NetworkPolicy: first-packet latency and change-to-enforcement, nft maps vs iptables chains', body));
}

export const suite = defineSuite({
  name: 'networkpolicy',
  title: 'NetworkPolicy: first-packet latency and change-to-enforcement, nft maps vs iptables chains',
  params: { full: { sizes: SIZES, connects: CONNECTS, restore: RESTORE }, quick: { sizes: [0, 30], connects: 50, restore: RESTORE } },
  requires: [root, (p) => command(p.restore, 'iptables')(p), command('nsenter', 'util-linux')],
  fromArgv: (argv, full) => ({ sizes: argv[0] ? argv[0].split(',').map(Number) : full.sizes, connects: Number(argv[1] ?? full.connects), restore: argv[2] ?? full.restore }),
  run: (p, progress) => {
    [SIZES, CONNECTS, RESTORE] = [p.sizes, p.connects, p.restore];
    return main(progress);
  },
});
const rowRequest = process.env[ROW_ENV];
if (rowRequest) {
  const { shape, size, connects, restore } = JSON.parse(rowRequest) as { shape: 'nft' | 'iptables'; size: number; connects: number; restore: string };
  [CONNECTS, RESTORE] = [connects, restore];
  run(shape, size).then((row) => { console.log(JSON.stringify(row)); process.exit(0); }, (e) => { console.error(e instanceof Error ? e.stack : e); process.exit(1); });
} else {
  runIfMain(import.meta.url, suite);
}
