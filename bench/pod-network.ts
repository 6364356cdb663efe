// Pod-to-pod TCP throughput (iperf3) through a real `capstan lab up --nodes 3 --subnets 2`:
// a client pod on node-1 sends to a pod on the same node, to one on node-3 (same segment:
// a direct route) and to one on node-2 (another segment: VXLAN), against a bare veth pair
// between two plain namespaces as the ceiling. One run, paths interleaved round by round.
// iperf3 is not in the pod image: it runs from the host inside the pods' own network
// namespaces (the sandbox's pause process, found over the node's CRI socket), so the traffic
// crosses the pod interfaces, host veths, node routes and VXLAN device capstan built.
//   node dist/bench/pod-network.js [runs=3] [seconds=5]
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { CRIClient } from '../cri/index.js';
import { labDown, labUp, type LabState } from '../src/lab/index.js';
import { table, writeReport } from './lib/report.js';
import { defineSuite, Recorder, runIfMain, type Progress } from './lib/suite.js';
import { command, containerd } from './lib/prereq.js';

let RUNS = 3;
let SECONDS = 5;
const PORT = 5201;
const IMAGE = 'localhost/capstan/busybox:1';

interface Path {
  name: string;
  /** Network namespace paths (for nsenter --net=). */
  client: string;
  server: string;
  serverIP: string;
  where: string;
  /** The interface the client's node sends on, and its MTU. */
  hop?: { dev: string; mtu: number };
  clientMtu?: number;
  runs: { gbps: number; retransmits: number; senderCpu: number; mss?: number }[];
}

const median = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); return s.length ? (s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2) : NaN; };
const inNetns = (netns: string, cmd: string[]) => execa('nsenter', [`--net=${netns}`, ...cmd]);

// Everything started here, removed on the way out (also on failure and Ctrl-C).
const children = new Set<ChildProcess>();
const namespaces: string[] = [];
let labDir: string | undefined;
let cleaning: Promise<void> | undefined;
function cleanup(): Promise<void> {
  return cleaning ??= (async () => {
    for (const c of children) if (c.pid && c.exitCode === null) c.kill('SIGKILL');
    for (const ns of namespaces) await execa('ip', ['netns', 'del', ns], { reject: false });
    if (labDir) {
      const { problems } = await labDown(labDir, (s) => console.error(`lab: ${s}`));
      for (const p of problems) console.error(`lab down: ${p}`);
      if (!problems.length) rmSync(join(labDir, '..'), { recursive: true, force: true });
    }
  })();
}
for (const sig of ['SIGINT', 'SIGTERM'] as const) process.on(sig, () => { void cleanup().finally(() => process.exit(130)); });

function kubectl(state: LabState, args: string[], input?: string): Promise<string> {
  return execa('kubectl', ['--kubeconfig', state.kubeconfig!, ...args], { input }).then((r) => r.stdout);
}

/** The pod's network namespace as the host sees it: its sandbox (pause) process's. */
async function podNetns(state: LabState, pod: string, node: string): Promise<string> {
  const cri = new CRIClient({ socket: join(state.dir, 'nodes', node, 'containerd', 'containerd.sock') });
  try {
    const sandbox = (await cri.listPodSandbox({ state: { state: 'SANDBOX_READY' } })).find((s) => s.metadata?.name === pod);
    if (!sandbox) throw new Error(`no ready sandbox for ${pod} on ${node}`);
    const info = JSON.parse((await cri.podSandboxStatus(sandbox.id, true)).info.info ?? '{}') as { pid?: number };
    if (!info.pid) throw new Error(`no sandbox pid for ${pod}`);
    return `/proc/${info.pid}/ns/net`;
  } finally {
    cri.close();
  }
}

async function mtuOf(netns: string, dev: string): Promise<number> {
  const m = /mtu (\d+)/.exec((await inNetns(netns, ['ip', '-o', 'link', 'show', dev])).stdout);
  return Number(m?.[1]);
}

async function iperf(p: Path): Promise<void> {
  const server = spawn('nsenter', [`--net=${p.server}`, 'iperf3', '-s', '-1', '-p', String(PORT)], { stdio: 'ignore' });
  children.add(server);
  const exited = new Promise<void>((r) => server.once('exit', () => r()));
  try {
    for (let i = 0; ; i++) {
      const ss = await inNetns(p.server, ['ss', '-Hltn', `sport = :${PORT}`]);
      if (ss.stdout.trim()) break;
      if (i > 50) throw new Error(`iperf3 server for ${p.name} did not listen`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const out = await inNetns(p.client, ['iperf3', '-c', p.serverIP, '-p', String(PORT), '-t', String(SECONDS), '-J']);
    const j = JSON.parse(out.stdout) as {
      start?: { tcp_mss_default?: number; tcp_mss?: number };
      end: { sum_sent: { bits_per_second: number; retransmits?: number }; sum_received: { bits_per_second: number }; cpu_utilization_percent?: { host_total: number } };
    };
    p.runs.push({
      gbps: j.end.sum_received.bits_per_second / 1e9, retransmits: j.end.sum_sent.retransmits ?? 0,
      senderCpu: j.end.cpu_utilization_percent?.host_total ?? NaN, mss: j.start?.tcp_mss_default ?? j.start?.tcp_mss,
    });
  } finally {
    await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
    if (server.exitCode === null) server.kill('SIGKILL');
    children.delete(server);
  }
}

/** Offload flags that matter for these paths (ethtool -k), "on"/"off" per feature. */
async function offloads(netns: string, dev: string): Promise<string> {
  const r = await inNetns(netns, ['ethtool', '-k', dev]).catch(() => undefined);
  if (!r) return 'n/a (no ethtool)';
  const want = [['tx-checksumming', 'tx csum'], ['tcp-segmentation-offload', 'TSO'], ['generic-segmentation-offload', 'GSO'],
    ['generic-receive-offload', 'GRO'], ['tx-udp_tnl-segmentation', 'UDP tunnel GSO'], ['rx-udp-gro-forwarding', 'UDP GRO forwarding']];
  return want.map(([k, label]) => `${label} ${new RegExp(`^${k}: (\\w+)`, 'm').exec(r.stdout)?.[1] ?? '?'}`).join(', ');
}

async function main(progress: Progress) {
  if (process.getuid?.() !== 0) throw new Error('needs root (network namespaces, the lab)');
  await execa('iperf3', ['--version']).catch(() => { throw new Error('iperf3 is missing (Debian: apt-get install iperf3; scripts/setup.sh lists it)'); });
  const load0 = loadavg();
  labDir = join(mkdtempSync('/tmp/cpnb-'), 'lab');
  progress('capstan lab up --nodes 3 --subnets 2');
  const state = await labUp({ dir: labDir, nodes: 3, subnets: 2, log: (s) => console.error(`lab: ${s}`) });
  const [n1, n2, n3] = state.topology.nodes;
  if (!n1 || !n2 || !n3 || n1.segment !== n3.segment || n1.segment === n2.segment) throw new Error('unexpected lab topology');

  // One client pod on node-1; servers on node-1, node-3 (same segment) and node-2 (the other).
  const pods = [['client', n1], ['same-node', n1], ['same-segment', n3], ['cross-segment', n2]] as const;
  await kubectl(state, ['apply', '-f', '-'], pods.map(([name, node]) => `apiVersion: v1
kind: Pod
metadata: {name: ${name}}
spec:
  nodeName: ${node.name}
  terminationGracePeriodSeconds: 1
  containers: [{name: c, image: '${IMAGE}', command: [sleep, '3600']}]
---
`).join(''));
  await kubectl(state, ['wait', '--for=condition=Ready', ...pods.map(([name]) => `pod/${name}`), '--timeout=120s']);
  const ns = new Map<string, string>(), ip = new Map<string, string>();
  for (const [name, node] of pods) {
    ns.set(name, await podNetns(state, name, node.name));
    ip.set(name, (await kubectl(state, ['get', 'pod', name, '-o', 'jsonpath={.status.podIP}'])).trim());
    const have = (await inNetns(ns.get(name)!, ['ip', '-4', '-o', 'addr', 'show', 'eth0'])).stdout;
    if (!have.includes(`${ip.get(name)}/32`)) throw new Error(`${name}: the sandbox's netns does not hold ${ip.get(name)}`);
  }

  // The ceiling: a bare veth pair between two plain namespaces, nothing else in the way.
  const id = randomBytes(2).toString('hex');
  const [a, b] = [`cpnb-${id}-a`, `cpnb-${id}-b`];
  for (const n of [a, b]) { namespaces.push(n); await execa('ip', ['netns', 'add', n]); }
  await execa('ip', ['-n', a, 'link', 'add', 'veth0', 'type', 'veth', 'peer', 'name', 'veth0', 'netns', b]);
  for (const [n, addr] of [[a, '10.99.0.1/24'], [b, '10.99.0.2/24']] as const) {
    await execa('ip', ['-n', n, 'addr', 'add', addr, 'dev', 'veth0']);
    await execa('ip', ['-n', n, 'link', 'set', 'veth0', 'up']);
    await execa('ip', ['-n', n, 'link', 'set', 'lo', 'up']);
  }

  const node1 = `/run/netns/${n1.netns}`;
  const paths: Path[] = [
    { name: 'bare veth pair (ceiling)', client: `/run/netns/${a}`, server: `/run/netns/${b}`, serverIP: '10.99.0.2', where: 'two plain namespaces', runs: [] },
    { name: 'same node', client: ns.get('client')!, server: ns.get('same-node')!, serverIP: ip.get('same-node')!, where: `${n1.name} → ${n1.name}`, runs: [] },
    { name: 'same segment, direct route', client: ns.get('client')!, server: ns.get('same-segment')!, serverIP: ip.get('same-segment')!, where: `${n1.name} → ${n3.name}`, runs: [] },
    { name: 'across segments, VXLAN', client: ns.get('client')!, server: ns.get('cross-segment')!, serverIP: ip.get('cross-segment')!, where: `${n1.name} → ${n2.name} (via the router)`, runs: [] },
  ];
  for (const p of paths) {
    p.clientMtu = await mtuOf(p.client, p === paths[0] ? 'veth0' : 'eth0');
    if (p !== paths[0]) {
      const dev = /dev (\S+)/.exec((await inNetns(node1, ['ip', 'route', 'get', p.serverIP])).stdout)?.[1] ?? '?';
      p.hop = { dev, mtu: await mtuOf(node1, dev) };
    }
  }
  for (let r = 0; r < RUNS; r++) {
    for (const p of r % 2 ? [...paths].reverse() : paths) {
      await iperf(p);
      const last = p.runs.at(-1)!;
      console.error(`run ${r + 1}/${RUNS} ${p.name}: ${last.gbps.toFixed(2)} Gb/s, ${last.retransmits} retransmits`);
    }
  }
  // What PMTU the client learned towards each server (a cached route shows "mtu N").
  const pmtu = new Map<Path, string>();
  for (const p of paths.slice(1)) pmtu.set(p, /mtu (\d+)/.exec((await inNetns(p.client, ['ip', 'route', 'get', p.serverIP])).stdout)?.[1] ?? '—');
  const offload = [
    ['pod eth0 (client)', await offloads(ns.get('client')!, 'eth0')],
    [`${n1.name} eth0 (uplink, a veth)`, await offloads(node1, 'eth0')],
    [`${n1.name} vxlan.capstan`, await offloads(node1, 'vxlan.capstan')],
  ];
  const load1 = loadavg();

  const ceiling = median(paths[0]!.runs.map((x) => x.gbps));
  const rows = paths.map((p) => {
    const g = median(p.runs.map((x) => x.gbps));
    return [p.name, p.where, `${p.clientMtu}${p.hop ? ` → ${p.hop.dev.replace(/^cap[0-9a-f]+$/, 'host veth')} ${p.hop.mtu}` : ''}`,
      pmtu.get(p) ?? '—', String(p.runs[0]?.mss ?? '?'), g.toFixed(2), p.runs.map((x) => x.gbps.toFixed(2)).join(' / '),
      p.runs.map((x) => x.retransmits).join(' / '), `${(g / ceiling).toFixed(2)}×`, `${median(p.runs.map((x) => x.senderCpu)).toFixed(0)}%`];
  });
  const gOf = (i: number) => median(paths[i]!.runs.map((x) => x.gbps));
  const body = `iperf3 ${(await execa('iperf3', ['--version'])).stdout.split('\n')[0]}, one TCP stream, ${RUNS} runs × ${SECONDS} s per path, the paths
taking turns round by round (order reversed every other round). Pods run \`${IMAGE}\`; iperf3
runs from the host inside each pod's network namespace (its sandbox's pause process, found
over the node's CRI socket), so the packets cross capstan's pod veths, host routes and VXLAN
device. The client pod is on ${n1.name}; ${n3.name} shares its segment, ${n2.name} is behind the lab router.
Everything shares this 2-core VM (client, server, both kernels' softirq work and other
engineers' jobs): the figures are CPU-bound, the ratios are the point. Load average
${load0[0]!.toFixed(1)} before, ${load1[0]!.toFixed(1)} after.

Throughput is what the receiver counted (Gb/s); retransmits are the sender's per run.
MTU: the client's interface → the interface ${n1.name} forwards on (its MTU). PMTU: what the
client's kernel cached for the server after the runs ("—": nothing cached). MSS: iperf3's
default MSS on the client socket.

${table(['path', 'where', 'MTU', 'PMTU', 'MSS', 'median Gb/s', 'runs (Gb/s)', 'retransmits', 'vs ceiling', 'sender CPU'], rows)}

Same node ${(gOf(1) / gOf(0)).toFixed(2)}×, direct ${(gOf(2) / gOf(0)).toFixed(2)}× and VXLAN ${(gOf(3) / gOf(0)).toFixed(2)}× of the bare
veth pair; VXLAN is ${(gOf(3) / gOf(2)).toFixed(2)}× the direct route.

Offloads (ethtool -k) on ${n1.name}:

${table(['interface', 'features'], offload)}
`;
  const rec = new Recorder();
  const ceilingMetric = rec.metric({ figure: 'TCP throughput, one stream', system: paths[0]!.name, baseline: true, unit: 'Gbit/s', samples: paths[0]!.runs.map((x) => x.gbps) });
  for (const p of paths.slice(1)) rec.ratio(rec.metric({ figure: 'TCP throughput, one stream', system: `capstan ${p.name}`, unit: 'Gbit/s', samples: p.runs.map((x) => x.gbps) }), ceilingMetric, 'p50', 'higher');
  return rec.output(writeReport('pod-network', 'Pod-to-pod TCP throughput: same node, direct route, VXLAN, bare veth', body));
}

export const suite = defineSuite({
  name: 'pod-network',
  title: 'Pod-to-pod TCP throughput: same node, direct route, VXLAN, bare veth',
  params: { full: { runs: RUNS, seconds: SECONDS }, quick: { runs: 1, seconds: 1 } },
  requires: [containerd, command('iperf3', 'iperf3')],
  fromArgv: (argv, full) => ({ runs: Number(argv[0] ?? full.runs), seconds: Number(argv[1] ?? full.seconds) }),
  run: async (p, progress) => {
    [RUNS, SECONDS] = [p.runs, p.seconds];
    try {
      return await main(progress);
    } finally {
      await cleanup();
    }
  },
});
runIfMain(import.meta.url, suite);
