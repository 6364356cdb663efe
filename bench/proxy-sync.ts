// Service proxy sync cost, side by side in one run: N Services × 10 endpoints, full sync into
// an empty namespace, then one endpoint replaced (p50 of several), for capstan's nftables
// shape through the addon and through `nft -f`, kube-proxy's own nftables structure and sync
// protocol through `nft -f` (kube-proxy-nft.ts), and kube-proxy's iptables structure through
// iptables-restore (nft and legacy backends). Then new-connection latency through the rules.
//   node dist/bench/proxy-sync.js [sizes=100,1000,3000,10000,30000] [modes=addon,nft,kube-proxy-nft,iptables-nft,iptables-legacy] [latencySizes=10,10000]
import { execa } from 'execa';
import { AddonNft, createNftDriver, NftCommand, NftTable, type NftDriver, type NftOp, type TableMonitor, type TableRef } from '../src/nft/index.js';
import { NftBackend } from '../src/proxy/nft/backend.js';
import { IptablesBackend } from '../src/proxy/iptables/backend.js';
import type { ProxyBackend } from '../src/proxy/backend.js';
import { shortHash, type EndpointTarget, type ProxyConfig, type ServicePortPlan } from '../src/proxy/model.js';
import { createNetlink } from '../src/netlink/index.js';
import { KubeProxyNftBackend } from './kube-proxy-nft.js';
import { addNamespace, removeNamespace, type BenchNamespace } from './lib/netns.js';
import { fmtMs, percentile } from './lib/stats.js';
import { table, writeReport } from './lib/report.js';
import { defineSuite, Recorder, runIfMain, type Progress } from './lib/suite.js';
import { command, root } from './lib/prereq.js';

const ALL_MODES = ['addon', 'nft', 'kube-proxy-nft', 'iptables-nft', 'iptables-legacy'];
let SIZES = [100, 1000, 3000, 10000, 30000];
let MODES = ALL_MODES;
let LATENCY_SIZES = [10, 10000];
/** connect() calls per latency figure (after 200 to warm up). */
let CONNECTS = 2000;
const ENDPOINTS = 10;
/** Nodes the endpoints are spread over (this node being one): what a node of a big cluster sees. */
const NODES = 100;
const DELTAS = 15;
/** Read-back resyncs per size and listing. */
const RESYNCS = 3;
/** Beyond these sizes a mode is not run (measured: minutes, see PLATFORM-NOTES). */
// kube-proxy-nft at 10,000 takes ~4 min in all (full sync 78 s, partial syncs 5–9 s each).
const LIMIT: Record<string, number> = { addon: Infinity, nft: Infinity, 'kube-proxy-nft': 10000, 'iptables-nft': 1000, 'iptables-legacy': 10000 };
const NOT_RUN: Record<string, string> = { 'kube-proxy-nft': 'not run (quadratic in the kernel: full sync 0.84 s at 1,000, 76 s at 10,000)' };
/** The ServiceCIDR the bench's ClusterIPs (svcIP) come from; kube-proxy drops unallocated IPs in it. */
const SERVICE_CIDR = '10.96.0.0/12';
const cfg: ProxyConfig = { nodeName: 'bench', clusterCIDR: '10.128.0.0/9' };

const ip = (base: number, i: number) => `${base}.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
const svcIP = (i: number) => `10.${96 + ((i >> 16) & 15)}.${(i >> 8) & 255}.${i & 255}`;

function plan(s: number, generation = 0): ServicePortPlan {
  const id = `bench/svc-${s}:http/tcp`;
  // The node is one of NODES: an endpoint is on it one time in NODES (the slice says which).
  const at = (k: number): EndpointTarget => (k % NODES === 0 ? { ip: '', port: 8080 } : { ip: '', port: 8080, remote: true });
  const eps = Array.from({ length: ENDPOINTS }, (_, e) => ({ ...at(s * ENDPOINTS + e), ip: ip(11, s * ENDPOINTS + e) }));
  // Another generation of a service has its fourth endpoint replaced by another address.
  if (generation) eps[3] = { ...at(s + generation), ip: ip(12, s * 16 + generation) };
  return { id, hash: shortHash(id), protocol: 'tcp', clusterIPs: [svcIP(s)], port: 80, clusterEndpoints: eps, nodePortEndpoints: eps, hasEndpoints: true, externalLocal: false };
}

const plans = (n: number): ServicePortPlan[] => Array.from({ length: n }, (_, s) => plan(s));

/** The addon, with its change notifications switched on or off: the resync after another
 *  table's commit measured both ways on the same backend and table. Off, a drain reports the
 *  notifications lost, so the backend reads the table back and diffs it as main does (main
 *  has no notifications and reads back whenever the ruleset generation moved). */
class SwitchableNotifications implements NftDriver {
  readonly name = 'addon';
  notifications = true;
  private readonly addon = new AddonNft();
  apply(netns: string | null, t: TableRef, ops: NftOp[]) { return this.addon.apply(netns, t, ops); }
  list(netns: string | null, t: TableRef) { return this.addon.list(netns, t); }
  listColumns(netns: string | null, t: TableRef) { return this.addon.listColumns(netns, t); }
  generation(netns: string | null) { return this.addon.generation(netns); }
  monitor(netns: string | null, t: TableRef): TableMonitor {
    const m = this.addon.monitor(netns, t);
    return { drain: async () => (this.notifications ? m.drain() : { ...(await m.drain()), lost: true }), close: () => m.close() };
  }
}

function backend(mode: string, ns: BenchNamespace, driver?: NftDriver): ProxyBackend {
  switch (mode) {
    case 'addon': return new NftBackend(driver ?? createNftDriver('addon'), cfg, ns.path);
    case 'nft': return new NftBackend(new NftCommand({ timeoutMs: 600_000 }), cfg, ns.path);
    case 'kube-proxy-nft': return new KubeProxyNftBackend(ns.path, { clusterCIDR: cfg.clusterCIDR, serviceCIDRs: [SERVICE_CIDR] });
    case 'iptables-nft': return new IptablesBackend(cfg, ns.path, { restore: 'iptables-nft-restore', save: 'iptables-nft-save', iptables: 'iptables-nft' });
    case 'iptables-legacy': return new IptablesBackend(cfg, ns.path, { restore: 'iptables-legacy-restore', save: 'iptables-legacy-save', iptables: 'iptables-legacy' });
  }
  throw new Error(`unknown mode ${mode}`);
}

interface Row {
  mode: string; services: number; full?: number; delta?: number; scale?: number; rules: number; elements: number; note?: string; deltas?: number[]; scales?: number[];
  /** Full syncs after another table's commit: with notifications (no read-back), and reading
   *  the table back as main does; after another writer deleted one element of our table (read
   *  back and repaired); the listing alone. */
  resyncs?: number[]; resyncsReadBack?: number[]; resyncsTouched?: number[]; listings?: number[];
}

async function measure(mode: string, n: number): Promise<Row> {
  const ns = await addNamespace('capstan-bproxy');
  try {
    const switchable = mode === 'addon' ? new SwitchableNotifications() : undefined;
    const b = backend(mode, ns, switchable);
    const base = plans(n);
    let t0 = performance.now();
    const r = await b.sync(base, { full: true });
    const full = performance.now() - t0;
    const breakdown = (label: string) => {
      if (b instanceof KubeProxyNftBackend) {
        const l = b.last;
        console.error(`  ${mode} ${n} ${label}: nft -f ${fmtMs(l.applyMs)} (${l.lines} lines, ${(l.bytes / 1e6).toFixed(1)} MB), list chains+sets ${fmtMs(l.listMs)}, stale-chain delete ${fmtMs(l.staleMs)}`);
      }
    };
    breakdown('full');
    // One endpoint replaced, each time in another service; the JS side (desired state and
    // diff) is included, as in the proxy.
    // The proxier hands unchanged service ports over as the same objects and names the
    // changed one, as after an EndpointSlice update.
    const deltas: number[] = [];
    const current = [...base];
    for (let g = 1; g <= DELTAS; g++) {
      const k = Math.floor((g * n) / (DELTAS + 1));
      current[k] = plan(k, g);
      t0 = performance.now();
      await b.sync(current, { full: false, changed: { plans: [current[k]!], removed: [] } });
      deltas.push(performance.now() - t0);
      if (g === DELTAS) breakdown(`1 endpoint (#${g})`);
    }
    // One endpoint removed (10 → 9: the service moves to another load-balancing chain).
    const scales: number[] = [];
    for (let g = 1; g <= 5; g++) {
      const k = Math.floor((g * n) / 7) + 1;
      const p = current[k]!;
      current[k] = { ...p, clusterEndpoints: p.clusterEndpoints.slice(1), nodePortEndpoints: p.clusterEndpoints.slice(1) };
      t0 = performance.now();
      await b.sync(current, { full: false, changed: { plans: [current[k]!], removed: [] } });
      scales.push(performance.now() - t0);
    }
    // The periodic full sync after someone else committed (here: a scratch table in the same
    // namespace): with notifications it sees our table untouched; without (main), the ruleset
    // generation moved and the table is read back and diffed. Then another writer deletes one
    // of our elements: read back and repaired either way.
    const resyncs: number[] = [], resyncsReadBack: number[] = [], resyncsTouched: number[] = [], listings: number[] = [];
    if (b instanceof NftBackend && switchable) {
      const scratch = new NftTable(b.table.driver, { family: 'ip', name: 'capstan-bproxy-scratch' }, ns.path);
      const other = new NftTable(new AddonNft(), b.table.table, ns.path);
      const readBacks = n >= 30000 ? 1 : RESYNCS;
      for (let i = 0; i < RESYNCS; i++) {
        for (const notifications of i < readBacks ? [true, false] : [true]) {
          switchable.notifications = notifications;
          await scratch.remove();
          t0 = performance.now();
          const rs = await b.sync(current, { full: true });
          (notifications ? resyncs : resyncsReadBack).push(performance.now() - t0);
          if (rs.operations) console.error(`  ${mode} ${n} resync repaired ${rs.operations} operations (expected none)`);
        }
        switchable.notifications = true;
        if (i < readBacks) {
          await other.apply([{ op: 'deleteElements', set: 'cluster-ips', keyType: ['ipv4_addr'], elements: [{ key: [svcIP(i)] }] }]);
          t0 = performance.now();
          const rs = await b.sync(current, { full: true });
          resyncsTouched.push(performance.now() - t0);
          if (rs.operations !== 2) console.error(`  ${mode} ${n} resync after a foreign delete repaired ${rs.operations} operations (expected 2: \`add table\` and the element)`);
          t0 = performance.now();
          await switchable.listColumns(ns.path, b.table.table);
          listings.push(performance.now() - t0);
        }
      }
      console.error(`  ${mode} ${n} resync p50: notifications ${fmtMs(percentile(resyncs, 50))}, read-back (main) ${fmtMs(percentile(resyncsReadBack, 50))}, our table touched ${fmtMs(percentile(resyncsTouched, 50))}, listing alone ${fmtMs(percentile(listings, 50))}`);
    }
    return { mode, services: n, full, delta: percentile(deltas, 50), scale: percentile(scales, 50), rules: r.rules, elements: r.elements, deltas, scales, resyncs, resyncsReadBack, resyncsTouched, listings };
  } finally {
    await removeNamespace(ns);
  }
}

/** Wall time of the pure part (plans → desired table → diff) at size n, for the report. */

// ---- data path: connect() latency through the rules ----

const CLIENT = `
import socket, sys, time, json
host, port, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
ts = []
for i in range(n):
    t0 = time.perf_counter()
    c = socket.create_connection((host, port), timeout=2)
    ts.append((time.perf_counter() - t0) * 1e6)
    c.close()
print(json.dumps(ts))
`;
const SERVER = `
import socket
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(('0.0.0.0', 8080)); s.listen(512)
while True:
    c, _ = s.accept(); c.close()
`;

interface LatRow { mode: string; services: number; target: string; p50: number; p99: number; samples: number[] }

async function latency(mode: string, n: number): Promise<LatRow[]> {
  const nl = createNetlink('addon');
  const node = await addNamespace('capstan-bproxy'), client = await addNamespace('capstan-bproxy'), pod = await addNamespace('capstan-bproxy');
  const server = execa('nsenter', [`--net=${pod.path}`, 'python3', '-c', SERVER], { reject: false });
  try {
    await nl.apply(node.path, [
      { op: 'linkAddVeth', name: 'vc', peerName: 'eth0', peerNetns: client.path },
      { op: 'linkAddVeth', name: 'vp', peerName: 'eth0', peerNetns: pod.path },
      { op: 'linkSet', name: 'vc', up: true }, { op: 'linkSet', name: 'vp', up: true },
      { op: 'addrAdd', dev: 'vc', address: '10.10.0.1/24' }, { op: 'addrAdd', dev: 'vp', address: '10.20.0.1/24' },
      { op: 'sysctlWrite', path: 'net/ipv4/ip_forward', value: '1' },
    ]);
    for (const [ns, addr, gw] of [[client, '10.10.0.2/24', '10.10.0.1'], [pod, '10.20.0.2/24', '10.20.0.1']] as const) {
      await execa('ip', ['-n', ns.name, 'link', 'set', 'lo', 'up']);
      await nl.apply(ns.path, [{ op: 'linkSet', name: 'eth0', up: true }, { op: 'addrAdd', dev: 'eth0', address: addr }, { op: 'routeAdd', dst: 'default', via: gw, dev: 'eth0' }]);
    }
    const ps = plans(n);
    // The first and the last Service lead to the real server; the rest to addresses nobody has.
    for (const k of [0, n - 1]) ps[k] = { ...ps[k]!, clusterEndpoints: [{ ip: '10.20.0.2', port: 8080 }], nodePortEndpoints: [{ ip: '10.20.0.2', port: 8080 }] };
    const b = backend(mode, node);
    await b.sync(ps, { full: true });
    for (let i = 0; ; i++) { // the server is up when the node reaches it directly
      const r = await execa('nsenter', [`--net=${node.path}`, 'python3', '-c', CLIENT, '10.20.0.2', '8080', '1'], { reject: false });
      if (r.exitCode === 0) break;
      if (i > 100) throw new Error('latency server did not start');
      await new Promise((res) => setTimeout(res, 100));
    }
    const rows: LatRow[] = [];
    for (const [target, k] of [['direct', -1], ['first', 0], ['last', n - 1]] as const) {
      const host = k < 0 ? '10.20.0.2' : svcIP(k);
      const port = k < 0 ? 8080 : 80;
      await execa('nsenter', [`--net=${client.path}`, 'python3', '-c', CLIENT, host, String(port), '200']); // warm up
      const r = await execa('nsenter', [`--net=${client.path}`, 'python3', '-c', CLIENT, host, String(port), String(CONNECTS)]);
      const ts = JSON.parse(r.stdout) as number[];
      rows.push({ mode, services: n, target, p50: percentile(ts, 50), p99: percentile(ts, 99), samples: ts });
    }
    return rows;
  } finally {
    server.kill('SIGKILL');
    await server.catch(() => undefined);
    for (const ns of [node, client, pod]) await removeNamespace(ns);
  }
}

async function main(progress: Progress) {
  const rows: Row[] = [];
  for (const n of SIZES) {
    for (const mode of MODES) {
      if (n > LIMIT[mode]!) { rows.push({ mode, services: n, rules: 0, elements: 0, note: NOT_RUN[mode] ?? 'not run (see PLATFORM-NOTES)' }); continue; }
      progress(`sync: ${mode} at ${n} Services`);
      const row = await measure(mode, n);
      console.error(`${mode} ${n}: full ${fmtMs(row.full!)}, delta p50 ${fmtMs(row.delta!)}, scale p50 ${fmtMs(row.scale!)}`);
      rows.push(row);
    }
  }
  const lat: LatRow[] = [];
  report(rows, lat); // written now too, so the sync figures survive a failure in the latency part
  for (const n of LATENCY_SIZES) for (const mode of ['addon', 'iptables-legacy']) {
    if (MODES.includes(mode)) { progress(`connect latency: ${mode} at ${n} Services`); lat.push(...await latency(mode, n)); }
  }
  return emit(rows, lat, report(rows, lat));
}

function emit(rows: Row[], lat: LatRow[], file: string) {
  const rec = new Recorder();
  const figures: [string, (r: Row) => number[] | undefined][] = [
    ['full sync', (r) => (r.full === undefined ? undefined : [r.full])], ['1 endpoint replaced', (r) => r.deltas], ['10→9 endpoints', (r) => r.scales],
    ['resync after another table\'s commit', (r) => (r.resyncs?.length ? r.resyncs : undefined)]];
  for (const [figure, samples] of figures) {
    for (const r of rows) {
      const s = samples(r);
      if (s) rec.metric({ figure, system: r.mode, baseline: r.mode !== 'addon', unit: 'ms', samples: s, x: { name: 'services', value: r.services } });
    }
    for (const a of rec.metrics.filter((m) => m.figure === figure && m.system === 'addon')) {
      for (const b of rec.metrics.filter((m) => m.figure === figure && m.baseline && m.x!.value === a.x!.value)) rec.ratio(a, b, 'p50');
    }
  }
  for (const r of rows) {
    if (!r.resyncs?.length || !r.resyncsReadBack?.length) continue;
    const x = { name: 'services', value: r.services };
    const fig = 'resync after another table\'s commit: notifications vs read-back (main)';
    const quiet = rec.metric({ figure: fig, system: 'addon (notifications)', unit: 'ms', samples: r.resyncs, x });
    const main = rec.metric({ figure: fig, system: 'addon (read-back, main)', baseline: true, unit: 'ms', samples: r.resyncsReadBack, x });
    rec.ratio(quiet, main, 'p50');
    rec.metric({ figure: 'resync after another writer deleted one of our elements (read back, repaired)', system: 'addon', unit: 'ms', samples: r.resyncsTouched!, x });
    rec.metric({ figure: 'read-back: the kernel dump and addon listing alone', system: 'addon (columns)', unit: 'ms', samples: r.listings!, x });
  }
  for (const l of lat) rec.metric({ figure: `connect() to ${l.target}`, system: l.mode, baseline: l.mode !== 'addon', unit: 'µs', samples: l.samples, x: { name: 'services', value: l.services } });
  for (const a of rec.metrics.filter((m) => m.unit === 'µs' && !m.baseline)) {
    for (const b of rec.metrics.filter((m) => m.unit === 'µs' && m.baseline && m.figure === a.figure && m.x!.value === a.x!.value)) { rec.ratio(a, b, 'p50'); rec.ratio(a, b, 'p99'); }
  }
  return rec.output(file);
}

/** The side-by-side columns: mode and label, compared with the addon. */
const SIDE: [string, string][] = [['nft', 'nft -f'], ['kube-proxy-nft', 'kube-proxy nft'], ['iptables-nft', 'iptables-nft'], ['iptables-legacy', 'iptables-legacy']];

function report(rows: Row[], lat: LatRow[]): string {
  const cell = (r: Row, v?: number) => (r.note ? r.note : fmtMs(v!));
  const byKey = new Map(rows.map((r) => [`${r.mode}@${r.services}`, r]));
  const ratio = (a?: Row, b?: Row, k: 'full' | 'delta' = 'full') => (a?.[k] && b?.[k] ? `${(b[k]! / a[k]!).toFixed(1)}×` : '–');
  const body = [
    'Each Service has 10 ready endpoints and a ClusterIP; the endpoints are spread over 100 nodes, this one included (the slices name each endpoint\'s node); syncs go through the proxy\'s own backends (desired state, diff and apply, JS included). *full* = first sync into an empty namespace; *1 endpoint* = one endpoint of one Service replaced (p50 of 15, a different Service each time); *10→9* = one endpoint removed (p50 of 5; the Service moves to another load-balancing chain, so the kernel re-validates jumps).',
    '',
    '*kube-proxy-nft* is kube-proxy\'s nftables proxier reproduced in bench/kube-proxy-nft.ts: its table (`ip kube-proxy`, a chain per service port with `numgen random mod N vmap { … }`, a chain per endpoint), its names, and its sync protocol, one `nft -f -` per transaction as knftables sends it. A full sync re-adds and flushes every chain; a partial sync rewrites the chains of the changed Service (the service chain and all its endpoint chains) and flushes unused ones, which a sync at least 1 s later deletes in a transaction of its own; every sync also lists the chains and sets (`nft -j list chains ip`, `nft -j list sets ip`), and those are timed as part of the sync. Its *set elements* are those of the named sets and maps (the anonymous numgen maps are not counted).',
    '',
    '### Sync time',
    '',
    table(['mode', 'services', 'full sync', '1 endpoint', '10→9 endpoints', 'rules', 'set elements'], rows.map((r) => [r.mode, r.services, cell(r, r.full), cell(r, r.delta), cell(r, r.scale), r.rules || '–', r.elements || '–'])),
    '',
    '### Resync (the periodic full sync) after another table\'s commit, and after a change to ours',
    '',
    `p50 of ${RESYNCS} each (of 1 where the read-back is slow), alternating on the same backend and table. *notifications*: nftables' change notifications show the commit did not touch the proxy's table, so nothing is read back. *read-back (main)*: the same sync reading the table back and diffing it, as main does whenever the ruleset generation moved. *ours touched*: another writer deleted one element of the proxy's table; it is read back and the element re-added. *listing alone* = the kernel's dump and the addon's column listing, no JS diff.`,
    '',
    table(['mode', 'services', 'set elements', 'notifications', 'read-back (main)', 'main / notifications', 'ours touched', 'listing alone'], rows.filter((r) => r.resyncs?.length).map((r) => [
      r.mode, r.services, r.elements,
      fmtMs(percentile(r.resyncs!, 50)), r.resyncsReadBack?.length ? fmtMs(percentile(r.resyncsReadBack, 50)) : '–',
      r.resyncsReadBack?.length ? `${(percentile(r.resyncsReadBack, 50) / percentile(r.resyncs!, 50)).toFixed(1)}×` : '–',
      r.resyncsTouched?.length ? fmtMs(percentile(r.resyncsTouched, 50)) : '–',
      r.listings?.length ? fmtMs(percentile(r.listings, 50)) : '–'])),
    '',
    '### Side by side (how many times slower than capstan nftables through the addon)',
    '',
    table(['services', ...SIDE.map(([, label]) => `${label} full`), ...SIDE.map(([, label]) => `${label} 1 ep`)], SIZES.map((n) => {
      const a = byKey.get(`addon@${n}`);
      return [n, ...SIDE.map(([mode]) => ratio(a, byKey.get(`${mode}@${n}`))), ...SIDE.map(([mode]) => ratio(a, byKey.get(`${mode}@${n}`), 'delta'))];
    })),
    '',
    `### New-connection latency (connect() from a client namespace through the node namespace to a server, ${CONNECTS} connections)`,
    '',
    table(['mode', 'services installed', 'target', 'p50', 'p99'], lat.map((l) => [l.mode, l.services, l.target, `${l.p50.toFixed(0)} µs`, `${l.p99.toFixed(0)} µs`])),
  ].join('\n');
  return writeReport('proxy', 'Service proxy: sync cost and data path', body);
}

const list = (arg: string | undefined, def: string) => (arg ?? def).split(',').filter(Boolean);

export const suite = defineSuite({
  name: 'proxy',
  title: 'Service proxy: sync cost and data path',
  params: {
    full: { sizes: SIZES, modes: ALL_MODES, latencySizes: LATENCY_SIZES, connects: CONNECTS },
    quick: { sizes: [10, 100], modes: ALL_MODES, latencySizes: [10], connects: 50 },
  },
  requires: [root, command('python3', 'python3'), command('nsenter', 'util-linux'),
    (p) => (p.modes.some((m) => m.startsWith('iptables')) ? command('iptables-legacy-restore', 'iptables')(p) : undefined)],
  fromArgv: (argv, full) => ({ sizes: list(argv[0], full.sizes.join(',')).map(Number), modes: list(argv[1], full.modes.join(',')), latencySizes: list(argv[2], full.latencySizes.join(',')).map(Number), connects: full.connects }),
  run: (p, progress) => {
    [SIZES, MODES, LATENCY_SIZES, CONNECTS] = [p.sizes, p.modes, p.latencySizes, p.connects];
    return main(progress);
  },
});
runIfMain(import.meta.url, suite);
