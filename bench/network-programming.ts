// Network programming latency, the upstream SLI: from a pod turning Ready to its endpoint
// being programmed on every node. A real API server and the EndpointSlice controller (their own
// processes); N hollow nodes whose service proxies (bench/lib/hollow-proxies.ts, --nodes-per-process each)
// run the real Proxier and nftables backend against the in-memory driver, each with its own
// watches; and one real node: `capstan proxy` on real nftables in a network namespace, where
// a client polls the Service until the endpoint (a TCP server in another namespace) answers.
// The bench plays the kubelet of the one measured pod: it flips the pod's Ready condition
// through the status subresource and stamps each flip to Ready with the wall clock.
//   node dist/bench/network-programming.js [--nodes 100,300,1000] [--changes 40] [--services 100] [--nodes-per-process 250]
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { Agent } from 'node:https';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { execa, type ResultPromise } from 'execa';
import { createNetlink } from '../src/netlink/index.js';
import { startAPIServerProcess } from '../test/helpers/apiserver-process.js';
import { APIClient } from '../test/helpers/api.js';
import { addNamespace, removeNamespace, type BenchNamespace } from './lib/netns.js';
import { startComponent } from './lib/components.js';
import { fmtMs, percentile } from './lib/stats.js';
import { table, writeReport } from './lib/report.js';
import { defineSuite, Recorder, runIfMain, type Progress } from './lib/suite.js';
import { command, root } from './lib/prereq.js';

interface Params { [k: string]: number[] | number; nodes: number[]; changes: number; services: number; endpoints: number; minSyncMs: number; nodesPerProcess: number }

const NS = 'default';
const PROBE = 'netprog-probe';
/** The measured pod's address: inside the pod namespace this bench creates, nowhere else. */
const POD_IP = '10.251.0.2';
const NODE_IP = '10.251.0.1';
const REAL_NODE = 'netprog-real';
const CLUSTER_CIDR = '10.244.0.0/16';
/** Background endpoints' addresses: only ever written into nftables sets, never dialled
 *  (the real node's namespace has no route to them; the hollow nodes have no kernel). */
const bgIP = (i: number) => `10.244.${(i >> 8) & 255}.${i & 255}`;

// Polls the Service from the node's namespace; prints "up <ms>" / "down <ms>" (epoch) on each change.
const PROBE_CLIENT = `
import socket, sys, time
host, port = sys.argv[1], int(sys.argv[2])
last = None
while True:
    s = socket.socket(); s.settimeout(0.05)
    try:
        s.connect((host, port)); ok = True
    except OSError:
        ok = False
    s.close()
    if ok != last:
        print(('up' if ok else 'down'), time.time() * 1000, flush=True); last = ok
    time.sleep(0.001)
`;
const SERVER = `
import socket
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(('0.0.0.0', 8080)); s.listen(512)
while True:
    c, _ = s.accept(); c.close()
`;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One process of hollow proxies: its stdout events, merged into the fleet's maps. */
class HollowProcess {
  readonly ready: Promise<void>;
  private readyWaiter: (() => void) | undefined;
  private cpuWaiter: ((c: { user: number; system: number }) => void) | undefined;
  private exited = false;

  constructor(readonly child: ChildProcess, fleet: HollowProxies) {
    this.ready = new Promise((resolve, reject) => {
      this.readyWaiter = resolve;
      child.once('exit', (code) => { this.exited = true; reject(new Error(`hollow proxies exited ${code}`)); });
    });
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const ev = JSON.parse(line) as { ready?: number; programmed?: string; retired?: string; node?: number; at?: number; cpu?: { user: number; system: number } };
      if (ev.ready !== undefined) this.readyWaiter?.();
      else if (ev.programmed !== undefined) { if (!fleet.programmed.has(ev.node!)) fleet.programmed.set(ev.node!, ev.at!); }
      else if (ev.retired !== undefined) { if (!fleet.retired.has(ev.node!)) fleet.retired.set(ev.node!, ev.at!); }
      else if (ev.cpu) this.cpuWaiter?.(ev.cpu);
    });
  }

  cpu(): Promise<{ user: number; system: number }> {
    return new Promise((resolve) => { this.cpuWaiter = resolve; this.child.stdin!.write('cpu\n'); });
  }

  async stop(): Promise<void> {
    if (this.exited) return;
    const gone = new Promise((r) => this.child.once('exit', r));
    this.child.stdin!.end();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 20_000);
    await gone;
    clearTimeout(timer);
  }
}

/** The hollow proxies, spread over processes of at most `perProcess` nodes each: one process
 *  serialises its nodes' work, so the last node's latency would be the sum of all of them
 *  rather than one node's. */
class HollowProxies {
  /** Since the last reset: node → when its proxy committed the endpoint / retired it (first time). */
  readonly programmed = new Map<number, number>();
  readonly retired = new Map<number, number>();
  readonly processes: HollowProcess[] = [];
  readonly ready: Promise<void>;

  private constructor(kubeconfig: string, nodes: number, minSyncMs: number, perProcess: number) {
    const script = fileURLToPath(new URL('./lib/hollow-proxies.js', import.meta.url));
    // CAPSTAN_HOLLOW_PROXY_PROFILE=<dir>: CPU profiles of the hollow proxies' processes (where the time goes).
    const profile = process.env.CAPSTAN_HOLLOW_PROXY_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.CAPSTAN_HOLLOW_PROXY_PROFILE}`] : [];
    for (let first = 0; first < nodes; first += perProcess) {
      const count = Math.min(perProcess, nodes - first);
      const child = spawn(process.execPath, [...profile, script, kubeconfig, String(count), POD_IP, String(minSyncMs), String(first)], {
        stdio: ['pipe', 'pipe', 'inherit'], env: { ...process.env, CAPSTAN_LOG_LEVEL: 'warn' },
      });
      this.processes.push(new HollowProcess(child, this));
    }
    this.ready = Promise.all(this.processes.map((p) => p.ready)).then(() => undefined);
  }

  static start(kubeconfig: string, nodes: number, minSyncMs: number, perProcess: number): HollowProxies {
    return new HollowProxies(kubeconfig, nodes, minSyncMs, Math.max(1, perProcess));
  }

  /** CPU time of all the processes together. */
  async cpu(): Promise<{ user: number; system: number }> {
    const all = await Promise.all(this.processes.map((p) => p.cpu()));
    return all.reduce((a, c) => ({ user: a.user + c.user, system: a.system + c.system }), { user: 0, system: 0 });
  }

  async stop(): Promise<void> {
    await Promise.all(this.processes.map((p) => p.stop()));
  }
}

/** The real node: its namespace, the pod's namespace with the server, the probe client. */
interface RealNode { node: BenchNamespace; pod: BenchNamespace; server: ResultPromise; transitions: { up: boolean; at: number }[]; client?: ResultPromise }

async function realNode(): Promise<RealNode> {
  const nl = createNetlink('addon');
  const node = await addNamespace('capstan-netprog'), pod = await addNamespace('capstan-netprog');
  await nl.apply(node.path, [
    { op: 'linkAddVeth', name: 'vp', peerName: 'eth0', peerNetns: pod.path },
    { op: 'linkSet', name: 'lo', up: true }, { op: 'linkSet', name: 'vp', up: true },
    { op: 'addrAdd', dev: 'vp', address: `${NODE_IP}/24` },
  ]);
  // Packets to a ClusterIP need a route before DNAT picks the endpoint; this one stays in
  // the namespaces made here (the pod's namespace has no other interface).
  await execa('ip', ['-n', node.name, 'route', 'add', '10.96.0.0/12', 'dev', 'vp']);
  await nl.apply(pod.path, [{ op: 'linkSet', name: 'lo', up: true }, { op: 'linkSet', name: 'eth0', up: true }, { op: 'addrAdd', dev: 'eth0', address: `${POD_IP}/24` }]);
  const server = execa('nsenter', [`--net=${pod.path}`, 'python3', '-c', SERVER], { reject: false });
  return { node, pod, server, transitions: [] };
}

function startProbeClient(r: RealNode, clusterIP: string): void {
  r.client = execa('nsenter', [`--net=${r.node.path}`, 'python3', '-u', '-c', PROBE_CLIENT, clusterIP, '80'], { reject: false, buffer: false });
  createInterface({ input: r.client.stdout! }).on('line', (line) => {
    const [state, at] = line.split(' ');
    r.transitions.push({ up: state === 'up', at: Number(at) });
  });
}

async function stopRealNode(r: RealNode): Promise<void> {
  for (const p of [r.client, r.server]) { if (p) { p.kill('SIGKILL'); await p.catch(() => undefined); } }
  await removeNamespace(r.node);
  await removeNamespace(r.pod);
}

/** Polls until `cond` or `ms` pass; true when it held. */
async function until(cond: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) return false;
    await sleep(2);
  }
  return true;
}

interface SizeResult {
  nodes: number;
  /** Per (node, change): Ready → that node's proxy committed the endpoint. */
  perNode: number[];
  /** Per change: Ready → the last node committed it. */
  everyNode: number[];
  /** Per change: Ready → the EndpointSlice update seen by a watch. */
  slice: number[];
  /** Per change: Ready → the real node answers through the Service. */
  real: number[];
  /** Changes where some hollow node did not program within the timeout. */
  incomplete: number;
  cpuCores: number;
  startSeconds: number;
}

async function main(p: Params, progress: Progress) {
  const teardowns: (() => unknown)[] = [];
  const t = { teardown: (fn: () => unknown) => { teardowns.push(fn); } };
  const loadStart = loadavg().map((x) => x.toFixed(1)).join(' ');
  try {
    progress('starting the API server and the EndpointSlice controller');
    const server = await startAPIServerProcess(t);
    const kc = server.kubeconfig;
    await startComponent(['controller-manager', '--kubeconfig', kc, '--secure-port', '0', '--leader-elect', 'false', '--controllers', 'endpointslice,serviceaccount'], 'controller-manager running', teardowns);
    const api = new APIClient(server.port, { ca: server.pki.ca.certPem, cert: server.pki.admin.certPem, key: server.pki.admin.keyPem }, new Agent({ keepAlive: true }));
    const ok = (r: { status: number; body: unknown }, what: string) => { if (r.status >= 300) throw new Error(`${what}: ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`); return r; };

    progress(`${p.services} background Services with ${p.endpoints} endpoints each`);
    for (let s = 0; s < p.services; s++) {
      const name = `bg-${s}`;
      ok(await api.post(`/api/v1/namespaces/${NS}/services`, { metadata: { name }, spec: { ports: [{ name: 'http', port: 80, targetPort: 8080, protocol: 'TCP' }] } }), name);
      const endpoints = Array.from({ length: p.endpoints }, (_, e) => ({ addresses: [bgIP(s * p.endpoints + e)], conditions: { ready: true }, nodeName: `hollow-proxy-${(s * p.endpoints + e) % 1000}` }));
      ok(await api.post(`/apis/discovery.k8s.io/v1/namespaces/${NS}/endpointslices`, {
        metadata: { name: `${name}-1`, labels: { 'kubernetes.io/service-name': name, 'endpointslice.kubernetes.io/managed-by': 'netprog-bench' } },
        addressType: 'IPv4', ports: [{ name: 'http', port: 8080, protocol: 'TCP' }], endpoints,
      }), `${name} slice`);
    }
    const svc = ok(await api.post(`/api/v1/namespaces/${NS}/services`, { metadata: { name: PROBE }, spec: { selector: { app: PROBE }, ports: [{ name: 'http', port: 80, targetPort: 8080, protocol: 'TCP' }] } }), PROBE);
    const clusterIP = (svc.body as { spec: { clusterIP: string } }).spec.clusterIP;
    // The measured pod, bound to the real node; this bench is its kubelet.
    for (let i = 0; ; i++) {
      const r = await api.post(`/api/v1/namespaces/${NS}/pods`, { metadata: { name: PROBE, labels: { app: PROBE } }, spec: { nodeName: REAL_NODE, automountServiceAccountToken: false, containers: [{ name: 'server', image: 'busybox' }] } });
      if (r.status < 300) break;
      if (i > 50) ok(r, 'probe pod');
      await sleep(200); // the default ServiceAccount is being created
    }
    const setReady = async (ready: boolean, at: number) => {
      const cur = ok(await api.get(`/api/v1/namespaces/${NS}/pods/${PROBE}`), 'get pod').body as Record<string, unknown> & { status?: object };
      const time = new Date(at).toISOString();
      cur.status = {
        phase: 'Running', podIP: POD_IP, podIPs: [{ ip: POD_IP }], hostIP: NODE_IP,
        conditions: [{ type: 'Ready', status: ready ? 'True' : 'False', lastTransitionTime: time }, { type: 'ContainersReady', status: ready ? 'True' : 'False', lastTransitionTime: time }],
      };
      ok(await api.put(`/api/v1/namespaces/${NS}/pods/${PROBE}/status`, cur), 'pod status');
    };
    await setReady(false, Date.now());

    // Every EndpointSlice change of the probe Service, as a node's informer sees it.
    const sliceReadyAt: number[] = [];
    const slices = await api.get(`/apis/discovery.k8s.io/v1/namespaces/${NS}/endpointslices?labelSelector=kubernetes.io%2Fservice-name%3D${PROBE}`);
    const watch = await api.watch(`/apis/discovery.k8s.io/v1/namespaces/${NS}/endpointslices?watch=true&labelSelector=kubernetes.io%2Fservice-name%3D${PROBE}&resourceVersion=${(slices.body as { metadata: { resourceVersion: string } }).metadata.resourceVersion}`);
    let watching = true;
    void (async () => {
      while (watching) {
        const ev = await watch.next(3_600_000).catch(() => null);
        if (!ev) return;
        const eps = (ev.object as { endpoints?: { addresses: string[]; conditions?: { ready?: boolean } }[] }).endpoints ?? [];
        if (eps.some((e) => e.addresses.includes(POD_IP) && e.conditions?.ready)) sliceReadyAt.push(Date.now());
      }
    })();
    teardowns.push(() => { watching = false; watch.close(); });

    progress('the real node: capstan proxy on nftables in a network namespace');
    const real = await realNode();
    teardowns.push(() => stopRealNode(real));
    await startComponent(['proxy', '--kubeconfig', kc, '--netns', real.node.path, '--hostname-override', REAL_NODE, '--cluster-cidr', CLUSTER_CIDR,
      '--nft-driver', 'addon', '--min-sync-period', `${p.minSyncMs}ms`, '--metrics-bind-address', '127.0.0.1:0', '--healthz-bind-address', '127.0.0.1:0'], 'capstan proxy running', teardowns);
    startProbeClient(real, clusterIP);

    const results: SizeResult[] = [];
    for (const nodes of p.nodes) {
      progress(`${nodes} hollow proxies: starting`);
      const started = Date.now();
      const hollow = HollowProxies.start(kc, nodes, p.minSyncMs, p.nodesPerProcess);
      try {
        await hollow.ready;
        const startSeconds = (Date.now() - started) / 1000;
        const r: SizeResult = { nodes, perNode: [], everyNode: [], slice: [], real: [], incomplete: 0, cpuCores: 0, startSeconds };
        const cpu0 = await hollow.cpu(), wall0 = performance.now();
        for (let c = 0; c < p.changes; c++) {
          progress(`${nodes} hollow proxies: change ${c + 1}/${p.changes}`);
          // NotReady first, and long enough for every proxy's next sync to be a fresh one
          // (min-sync-period since its last), as between two changes far apart.
          hollow.retired.clear();
          await setReady(false, Date.now());
          await until(() => real.transitions.at(-1)?.up === false && (c === 0 || hollow.retired.size >= nodes), 20_000);
          await sleep(p.minSyncMs + 300);
          hollow.programmed.clear();
          const sliceBefore = sliceReadyAt.length, realBefore = real.transitions.length;
          const t0 = Date.now();
          await setReady(true, t0);
          const done = await until(() => hollow.programmed.size >= nodes && real.transitions.length > realBefore && sliceReadyAt.length > sliceBefore, 10_000);
          if (!done) r.incomplete++;
          const lat = [...hollow.programmed.values()].map((at) => at - t0);
          r.perNode.push(...lat);
          if (lat.length >= nodes) r.everyNode.push(Math.max(...lat));
          if (sliceReadyAt.length > sliceBefore) r.slice.push(sliceReadyAt[sliceBefore]! - t0);
          const up = real.transitions.slice(realBefore).find((x) => x.up);
          if (up) r.real.push(up.at - t0);
        }
        const cpu1 = await hollow.cpu();
        r.cpuCores = ((cpu1.user - cpu0.user + cpu1.system - cpu0.system) / 1000) / (performance.now() - wall0);
        results.push(r);
        console.error(`${nodes} nodes: every node p50 ${fmtMs(percentile(r.everyNode, 50))} p99 ${fmtMs(percentile(r.everyNode, 99))}; per node p50 ${fmtMs(percentile(r.perNode, 50))} p99 ${fmtMs(percentile(r.perNode, 99))}; slice p50 ${fmtMs(percentile(r.slice, 50))}; real node p50 ${fmtMs(percentile(r.real, 50))} p99 ${fmtMs(percentile(r.real, 99))}; incomplete ${r.incomplete}; hollow CPU ${r.cpuCores.toFixed(2)} cores`);
      } finally {
        await hollow.stop();
      }
    }
    const loadEnd = loadavg().map((x) => x.toFixed(1)).join(' ');
    return emit(results, report(p, results, loadStart, loadEnd));
  } finally {
    for (const fn of teardowns.reverse()) await fn();
  }
}

function emit(results: SizeResult[], file: string) {
  const rec = new Recorder();
  for (const r of results) {
    const x = { name: 'nodes', value: r.nodes };
    const every = rec.metric({ figure: 'Ready → programmed on every node', system: 'capstan (hollow proxies)', unit: 'ms', samples: r.everyNode, x });
    rec.metric({ figure: 'Ready → programmed, per node', system: 'capstan (hollow proxies)', unit: 'ms', samples: r.perNode, x });
    const slice = rec.metric({ figure: 'Ready → EndpointSlice updated', system: 'EndpointSlice controller', baseline: true, unit: 'ms', samples: r.slice, x });
    rec.metric({ figure: 'Ready → answers through the Service (real node)', system: 'capstan proxy (nftables)', unit: 'ms', samples: r.real, x });
    rec.ratio(every, slice, 'p50');
    rec.ratio(every, slice, 'p99');
  }
  return rec.output(file);
}

function report(p: Params, results: SizeResult[], loadStart: string, loadEnd: string): string {
  const f = (xs: number[], q: number) => (xs.length ? fmtMs(percentile(xs, q)) : '–');
  const body = [
    `The upstream network programming latency SLI: from a pod turning Ready to its endpoint programmed on every node. One API server (SQLite) and the EndpointSlice controller, each its own process; N hollow nodes' service proxies in processes of at most ${p.nodesPerProcess} nodes (bench/lib/hollow-proxies.ts: the real Proxier and nftables backend with its own client and watches per node, syncing into the in-memory nftables driver); one real node, \`capstan proxy\` on real nftables in a network namespace, polled through the Service's ClusterIP every ~1 ms until the pod's server (in its own namespace) answers. ${p.services} background Services with ${p.endpoints} endpoints each are programmed on every node. The bench is the measured pod's kubelet: it writes Ready=False, waits ${p.minSyncMs + 300} ms (so every proxy's next sync is due at once, min-sync-period ${p.minSyncMs} ms), then stamps the wall clock and writes Ready=True (${p.changes} changes per size). *every node* = until the last node's proxy committed the endpoint (per change); *per node* = each node's own latency (per change × node, the upstream SLI's samples); *slice* = until a watch on the EndpointSlices saw the endpoint ready.`,
    '',
    `Load average at the start ${loadStart}, at the end ${loadEnd} (2 cores shared with other work).`,
    '',
    table(['hollow nodes', 'every node p50', 'every node p99', 'per node p50', 'per node p99', 'slice p50', 'slice p99', 'real node answers p50', 'real node answers p99', 'hollow proxies CPU (cores)', 'changes incomplete', 'proxies started in'],
      results.map((r) => [r.nodes, f(r.everyNode, 50), f(r.everyNode, 99), f(r.perNode, 50), f(r.perNode, 99), f(r.slice, 50), f(r.slice, 99), f(r.real, 50), f(r.real, 99), r.cpuCores.toFixed(2), r.incomplete, `${r.startSeconds.toFixed(1)} s`])),
  ].join('\n');
  return writeReport('network-programming', 'Network programming latency: pod Ready → endpoint programmed on every node', body);
}

const options = { nodes: { type: 'string' }, changes: { type: 'string' }, services: { type: 'string' }, 'nodes-per-process': { type: 'string' } } as const;

export const suite = defineSuite<Params>({
  name: 'network-programming',
  title: 'Network programming latency: pod Ready → endpoint programmed on every node',
  params: {
    full: { nodes: [100, 300, 1000], changes: 40, services: 100, endpoints: 10, minSyncMs: 1000, nodesPerProcess: 250 },
    quick: { nodes: [10, 30], changes: 5, services: 20, endpoints: 5, minSyncMs: 1000, nodesPerProcess: 250 },
  },
  requires: [root, command('python3', 'python3'), command('nsenter', 'util-linux')],
  fromArgv: (argv, full) => {
    const v = parseArgs({ args: argv, options }).values;
    return { ...full, ...(v.nodes ? { nodes: v.nodes.split(',').map(Number) } : {}), ...(v.changes ? { changes: Number(v.changes) } : {}), ...(v.services ? { services: Number(v.services) } : {}), ...(v['nodes-per-process'] ? { nodesPerProcess: Number(v['nodes-per-process']) } : {}) };
  },
  run: (p, progress) => main(p, progress),
});
runIfMain(import.meta.url, suite);
