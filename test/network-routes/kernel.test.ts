// Routes between nodes in real namespaces: a router joining two L2 segments (a bridge for
// segment A holding n1 and n2, a direct veth to n3 on segment B), a Calico-style fake pod on
// every node, one RoutesManager per node over the addon against the same Node objects.
// Shows the path the kernel picks, pings across both paths, VXLAN seen on the router only
// for the cross-subnet pair, node deletion/addition, and drift repaired at the resync.
// The host may have br_netfilter loaded (bridged frames then also pass the ip family's
// forward hook), so the router's "routed" counter only counts packets to or from segment B.
import t from 'tap';
import { execa } from 'execa';
import { realClock } from '../../src/client/index.js';
import { createNetlink, RTN } from '../../src/netlink/index.js';
import { nodeNetworkOps, podNetworkOps, randomPodMac } from '../../src/network/index.js';
import { ROUTE_PROTOCOL, VXLAN_DEVICE, vtepMac } from '../../src/network/routes/index.js';
import { inNs, isRoot, newNamespace, ping, type Namespace } from '../native/fixtures/netns.js';
import { node, startCluster } from './cluster.js';

const nl = createNetlink('addon');
const RESYNC_MS = 1500;

const ip = (ns: Namespace, ...args: string[]) => execa('ip', ['-n', ns.name, ...args]);

async function eventually<T>(fn: () => Promise<T | undefined | false>, ms: number, what: string): Promise<{ value: T; elapsedMs: number }> {
  const start = Date.now();
  for (;;) {
    const v = await fn();
    if (v) return { value: v, elapsedMs: Date.now() - start };
    if (Date.now() - start > ms) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function counter(ns: Namespace, family: string, name: string): Promise<number> {
  const r = await inNs(ns, 'nft', ['list', 'counter', family, 'capstan_routes_test', name]);
  return Number(/packets (\d+)/.exec(r.stdout)?.[1] ?? NaN);
}

const routeGet = async (ns: Namespace, dst: string) => (await ip(ns, 'route', 'get', dst)).stdout;

t.test('CrossSubnet between three nodes on two segments', { skip: !isRoot && 'needs root' }, async (t) => {
  const router = await newNamespace(t, 'rtr');
  const segments = { n1: 'A', n2: 'A', n3: 'B' } as const;
  const nodeIP = { n1: '10.0.1.11', n2: '10.0.1.12', n3: '10.0.2.13' } as const;
  const names = ['n1', 'n2', 'n3'] as const;
  const ns: Record<string, Namespace> = {};
  const pods: Record<string, Namespace> = {};

  await ip(router, 'link', 'add', 'brA', 'type', 'bridge');
  await ip(router, 'addr', 'add', '10.0.1.1/24', 'dev', 'brA');
  await ip(router, 'link', 'set', 'brA', 'up');
  await nl.apply(router.path, [{ op: 'sysctlWrite', path: 'net/ipv4/ip_forward', value: '1' }]);
  for (const n of names) {
    ns[n] = await newNamespace(t, n);
    const side = `r-${n}`;
    await ip(router, 'link', 'add', side, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', ns[n]!.name);
    if (segments[n] === 'A') await ip(router, 'link', 'set', side, 'master', 'brA');
    else await ip(router, 'addr', 'add', '10.0.2.1/24', 'dev', side);
    await ip(router, 'link', 'set', side, 'up');
    await ip(ns[n]!, 'addr', 'add', `${nodeIP[n]}/24`, 'dev', 'eth0');
    await ip(ns[n]!, 'link', 'set', 'eth0', 'up');
    await ip(ns[n]!, 'route', 'add', 'default', 'via', segments[n] === 'A' ? '10.0.1.1' : '10.0.2.1');
    // A fake pod shaped like the CNI plugin's (/32, 169.254.1.1 on-link, proxy ARP).
    pods[n] = await newNamespace(t, `p${n}`);
    const p = podNetworkOps({ podIP: podIP(n), hostVeth: `cap${n}`, ifName: 'eth0', netns: pods[n]!.path, podMac: randomPodMac(), mtu: 1500 });
    await nl.apply(ns[n]!.path, [...nodeNetworkOps(), ...p.host]);
    await nl.apply(pods[n]!.path, p.pod);
  }
  await execa('nsenter', [`--net=${router.path}`, 'nft', '-f', '-'], { input: COUNTERS });
  t.notOk(await ping(pods.n1!, podIP('n2')), 'no pod route before the managers run');

  const nodes = names.map((n) => node(n, nodeIP[n], `10.244.${n.slice(1)}.0/24`));
  const started = Date.now();
  const c = await startCluster(t, { nodes, netns: Object.fromEntries(names.map((n) => [n, ns[n]!.path])), netlink: nl, clock: realClock, resyncMs: RESYNC_MS });
  const converged = async () => {
    for (const n of names) if ((await nl.routes(ns[n]!.path, 4, { protocol: ROUTE_PROTOCOL })).filter((r) => r.type === RTN.unicast).length !== 2) return false;
    return true;
  };
  await eventually(converged, 5000, 'routes on every node');
  t.comment(`all routes in place ${Date.now() - started} ms after the managers started`);
  // Steady state on the real kernel: the next full resync of every node changes nothing
  // (what the addon reads back matches what was asked for, so a restart churns nothing).
  const at = Object.fromEntries(names.map((n) => [n, c.by(n).manager.last?.at]));
  await eventually(async () => names.every((n) => c.by(n).manager.last?.at !== at[n]), RESYNC_MS + 2000, 'a resync everywhere');
  for (const n of names) t.same(c.by(n).manager.last?.ops, [], `${n}: a resync in steady state applies nothing`);

  t.match(await routeGet(ns.n1!, podIP('n2')), /via 10\.0\.1\.12 dev eth0/, 'n1 → n2 block: direct on the shared segment');
  t.match(await routeGet(ns.n2!, podIP('n1')), /via 10\.0\.1\.11 dev eth0/, 'n2 → n1 block: direct');
  t.match(await routeGet(ns.n1!, podIP('n3')), new RegExp(`via 10\\.244\\.3\\.1 dev ${VXLAN_DEVICE.replace('.', '\\.')}`), 'n1 → n3 block: through the tunnel');
  t.match(await routeGet(ns.n3!, podIP('n2')), new RegExp(`via 10\\.244\\.2\\.1 dev ${VXLAN_DEVICE.replace('.', '\\.')}`), 'n3 → n2 block: through the tunnel');
  const vx = (await nl.links(ns.n1!.path)).find((l) => l.name === VXLAN_DEVICE);
  t.match(vx, { kind: 'vxlan', mtu: 1450, mac: vtepMac('n1'), up: true, vxlan: { vni: 4096, port: 4789, local: '10.0.1.11', learning: false } }, 'the VTEP device');
  t.match((await nl.fdb(ns.n1!.path)).filter((f) => f.dev === VXLAN_DEVICE), [{ lladdr: vtepMac('n3'), address: '10.0.2.13' }], 'FDB: n3 VTEP MAC → n3 IP, nothing else');
  t.match((await nl.neighbours(ns.n1!.path, 4)).filter((f) => f.dev === VXLAN_DEVICE), [{ address: '10.244.3.1', lladdr: vtepMac('n3'), state: 0x80 }], 'permanent neighbour for the n3 VTEP');

  await inNs(router, 'nft', ['reset', 'counters', 'table', 'bridge', 'capstan_routes_test']);
  await inNs(router, 'nft', ['reset', 'counters', 'table', 'ip', 'capstan_routes_test']);
  t.ok(await ping(pods.n1!, podIP('n2')), 'pod on n1 pings pod on n2');
  t.ok(await ping(pods.n2!, podIP('n1')), 'pod on n2 pings pod on n1');
  t.ok(await counter(router, 'bridge', 'cnt_icmp') >= 4, 'the pings crossed segment A in clear');
  t.equal(await counter(router, 'bridge', 'cnt_vxlan'), 0, 'no VXLAN on segment A for the same-subnet pair');
  t.equal(await counter(router, 'ip', 'cnt_vxlan'), 0, 'nothing routed by the router for the same-subnet pair');

  t.ok(await ping(pods.n1!, podIP('n3')), 'pod on n1 pings pod on n3');
  t.ok(await ping(pods.n3!, podIP('n2')), 'pod on n3 pings pod on n2');
  t.ok(await counter(router, 'ip', 'cnt_vxlan') >= 8, 'the cross-subnet pings crossed the router as UDP 4789');
  t.ok(await ping(ns.n1!, podIP('n3')), 'node n1 itself reaches the pod on n3 (source: its tunnel address)');

  // Drift: a route and an FDB entry removed by hand come back at the next full resync.
  // (Right after a sync, so the resync is a whole period away.)
  const syncedAt = c.by('n1').manager.last!.at;
  await eventually(async () => c.by('n1').manager.last!.at !== syncedAt, RESYNC_MS + 1000, 'a resync');
  await ip(ns.n1!, 'route', 'del', '10.244.3.0/24');
  await ip(ns.n2!, 'route', 'del', '10.244.1.0/24');
  await execa('nsenter', [`--net=${ns.n1!.path}`, 'bridge', 'fdb', 'del', vtepMac('n3'), 'dev', VXLAN_DEVICE, 'dst', '10.0.2.13']);
  t.notMatch(await routeGet(ns.n1!, podIP('n3')), new RegExp(VXLAN_DEVICE.replace('.', '\\.')), 'broken by hand: n1 sends n3 pods to its default route');
  const healed = await eventually(async () => (await converged()) && (await nl.fdb(ns.n1!.path)).some((f) => f.dev === VXLAN_DEVICE && f.lladdr === vtepMac('n3')), RESYNC_MS + 3000, 'drift repaired');
  t.ok(healed.elapsedMs <= RESYNC_MS + 1000, `repaired within one resync period (${healed.elapsedMs} ms)`);
  t.ok(await ping(pods.n1!, podIP('n3')), 'pod on n1 pings pod on n3 again');

  // Node deleted → its routes go from the others; added again → back everywhere.
  await c.nodesAPI.delete(undefined, 'n3');
  const gone = await eventually(async () => {
    for (const n of ['n1', 'n2']) {
      if ((await nl.routes(ns[n]!.path, 4, { protocol: ROUTE_PROTOCOL })).some((r) => r.dst === '10.244.3.0/24')) return false;
      if ((await nl.fdb(ns[n]!.path)).some((f) => f.dev === VXLAN_DEVICE)) return false;
      if ((await nl.neighbours(ns[n]!.path, 4)).some((f) => f.dev === VXLAN_DEVICE)) return false;
    }
    return true;
  }, 3000, 'routes to n3 removed');
  t.ok(gone.elapsedMs < 1000, `n3's route, neighbour and FDB entries gone from n1 and n2 in ${gone.elapsedMs} ms`);
  t.match(await routeGet(ns.n1!, podIP('n2')), /via 10\.0\.1\.12 dev eth0/, 'the other route stays');
  t.notOk(await ping(pods.n1!, podIP('n3')), 'n3 pods unreachable');

  await c.nodesAPI.create(undefined, node('n3', nodeIP.n3, '10.244.3.0/24'));
  const back = await eventually(converged, 3000, 'routes to n3 back');
  t.ok(back.elapsedMs < 1000, `a Node added (with its VTEP published by its own agent) is routed everywhere in ${back.elapsedMs} ms`);
  t.ok((await c.nodesAPI.get(undefined, 'n3')).metadata.annotations?.['capstan.io/vxlan-tunnel-mac'], 'n3 republished its VTEP');
  t.ok(await ping(pods.n1!, podIP('n3')), 'pod on n1 pings pod on n3 after the re-add');
  t.ok(await ping(pods.n3!, podIP('n1')), 'and back');

  // n2 annotated Always: the n1–n2 pair now goes through the tunnel on both ends, seen as
  // UDP 4789 on segment A's bridge and still never routed by the router.
  await c.nodesAPI.patch(undefined, 'n2', 'merge', { metadata: { annotations: { 'capstan.io/encapsulation': 'Always' } } });
  await eventually(async () => /vxlan\.capstan/.test(await routeGet(ns.n1!, podIP('n2'))) && /vxlan\.capstan/.test(await routeGet(ns.n2!, podIP('n1'))), 3000, 'n1–n2 through the tunnel');
  await inNs(router, 'nft', ['reset', 'counters', 'table', 'bridge', 'capstan_routes_test']);
  await inNs(router, 'nft', ['reset', 'counters', 'table', 'ip', 'capstan_routes_test']);
  t.ok(await ping(pods.n1!, podIP('n2')), 'Always: pod on n1 pings pod on n2');
  t.ok(await counter(router, 'bridge', 'cnt_vxlan') >= 4, 'Always: UDP 4789 on segment A');
  t.equal(await counter(router, 'bridge', 'cnt_icmp'), 0, 'Always: no ICMP in clear on segment A');
  t.equal(await counter(router, 'ip', 'cnt_vxlan'), 0, 'Always: still nothing routed by the router');
});

function podIP(n: string): string {
  return `10.244.${n.slice(1)}.10`;
}

const COUNTERS = `
table bridge capstan_routes_test {
  counter cnt_vxlan {}
  counter cnt_icmp {}
  chain forward_count {
    type filter hook forward priority 0; policy accept;
    udp dport 4789 counter name "cnt_vxlan"
    ip protocol icmp counter name "cnt_icmp"
  }
}
table ip capstan_routes_test {
  counter cnt_vxlan {}
  chain forward_count {
    type filter hook forward priority 0; policy accept;
    iifname "r-n3" udp dport 4789 counter name "cnt_vxlan"
    oifname "r-n3" udp dport 4789 counter name "cnt_vxlan"
  }
}
`;
