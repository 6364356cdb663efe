// The pure layers without root: desired state from Nodes (table-driven, order-independent)
// and the diff against kernel lists (minimal ops, only capstan's entries touched).
import t from 'tap';
import { node } from './cluster.js';
import { parseCidr } from '../../src/network/cidr.js';
import type { KubeObject } from '../../src/api/object.js';
import {
  ANNOTATION_ENCAPSULATION, ANNOTATION_TUNNEL_ADDR, ANNOTATION_TUNNEL_MAC, ROUTE_PROTOCOL, VXLAN_DEVICE,
  desiredRoutes, diffState, vtepMac, type DesiredState, type EncapsulationMode, type KernelState, type Uplink,
} from '../../src/network/routes/index.js';

const vtep = (name: string, addr: string) => ({ [ANNOTATION_TUNNEL_MAC]: vtepMac(name), [ANNOTATION_TUNNEL_ADDR]: addr });

const uplink: Uplink = { name: 'eth0', address: '10.0.1.11', prefixLen: 24, mtu: 1500 };
const n1 = node('n1', '10.0.1.11', '10.244.1.0/24', vtep('n1', '10.244.1.1'));
const n2 = node('n2', '10.0.1.12', '10.244.2.0/24', vtep('n2', '10.244.2.1'));
const n3 = node('n3', '10.0.2.13', '10.244.3.0/24', vtep('n3', '10.244.3.1'));

const direct = (dst: string, via: string, node: string) => ({ dst, via, dev: 'eth0', onlink: false, node });
const tunnel = (dst: string, via: string, node: string) => ({ dst, via, dev: VXLAN_DEVICE, onlink: true, node });

const cases: { name: string; nodes: KubeObject[]; mode?: EncapsulationMode; routes: unknown[]; neighbours?: unknown[]; fdb?: unknown[]; device: boolean; skipped?: unknown[] }[] = [
  {
    name: 'CrossSubnet: same subnet direct, other subnet through the tunnel',
    nodes: [n1, n2, n3],
    routes: [direct('10.244.2.0/24', '10.0.1.12', 'n2'), tunnel('10.244.3.0/24', '10.244.3.1', 'n3')],
    neighbours: [{ address: '10.244.3.1', lladdr: vtepMac('n3') }],
    fdb: [{ lladdr: vtepMac('n3'), dst: '10.0.2.13' }],
    device: true,
  },
  {
    name: 'Always: every node through the tunnel',
    nodes: [n1, n2, n3], mode: 'Always',
    routes: [tunnel('10.244.2.0/24', '10.244.2.1', 'n2'), tunnel('10.244.3.0/24', '10.244.3.1', 'n3')],
    neighbours: [{ address: '10.244.2.1', lladdr: vtepMac('n2') }, { address: '10.244.3.1', lladdr: vtepMac('n3') }],
    device: true,
  },
  {
    name: 'Never: direct on the subnet, nothing across, no device',
    nodes: [n1, n2, n3], mode: 'Never',
    routes: [direct('10.244.2.0/24', '10.0.1.12', 'n2')], neighbours: [], fdb: [],
    device: false, skipped: [{ node: 'n3', reason: 'Never: not on this L2 subnet' }],
  },
  {
    name: 'a remote node annotated Always is tunnelled to even from a CrossSubnet node',
    nodes: [n1, node('n2', '10.0.1.12', '10.244.2.0/24', { ...vtep('n2', '10.244.2.1'), [ANNOTATION_ENCAPSULATION]: 'Always' })],
    routes: [tunnel('10.244.2.0/24', '10.244.2.1', 'n2')], device: true,
  },
  {
    name: 'the own annotation overrides the flag (Never flag, self Always)',
    nodes: [node('n1', '10.0.1.11', '10.244.1.0/24', { [ANNOTATION_ENCAPSULATION]: 'Always' }), n2], mode: 'Never',
    routes: [tunnel('10.244.2.0/24', '10.244.2.1', 'n2')], device: true,
  },
  {
    name: 'missing podCIDR or InternalIP: skipped',
    nodes: [n1, node('n2', '10.0.1.12', undefined), node('n3', undefined, '10.244.3.0/24')],
    routes: [], device: true,
    skipped: [{ node: 'n2', reason: 'no podCIDR' }, { node: 'n3', reason: 'no InternalIP' }],
  },
  {
    name: 'missing VTEP annotations: no tunnel route until they appear',
    nodes: [n1, node('n3', '10.0.2.13', '10.244.3.0/24')],
    routes: [], neighbours: [], fdb: [], device: true,
    skipped: [{ node: 'n3', reason: 'no VXLAN tunnel annotations yet' }],
  },
  {
    name: 'two nodes claiming one block: the first by name wins',
    nodes: [n1, n2, node('n0', '10.0.1.10', '10.244.2.0/24')],
    routes: [direct('10.244.2.0/24', '10.0.1.10', 'n0')], device: true,
    skipped: [{ node: 'n2', reason: 'podCIDR 10.244.2.0/24 already routed to n0' }],
  },
  {
    name: 'self excluded, and an unknown self yields nothing',
    nodes: [n2, n3], routes: [], device: false,
  },
];

function permutations<T>(xs: T[]): T[][] {
  if (xs.length <= 1) return [xs];
  return xs.flatMap((x, i) => permutations([...xs.slice(0, i), ...xs.slice(i + 1)]).map((p) => [x, ...p]));
}

for (const c of cases) {
  t.test(`desired: ${c.name}`, async (t) => {
    const results = permutations(c.nodes).map((p) => desiredRoutes('n1', p, c.mode ?? 'CrossSubnet', uplink));
    const first = results[0]!;
    t.same(first.routes, c.routes);
    if (c.neighbours) t.same(first.neighbours, c.neighbours);
    if (c.fdb) t.same(first.fdb, c.fdb);
    if (c.skipped) t.same(first.skipped, c.skipped);
    t.equal(!!first.vxlanDevice, c.device);
    for (const r of results) t.same(r, first, 'same result whatever the order');
  });
}

t.test('desired: the device follows the uplink and the own block', async (t) => {
  const s = desiredRoutes('n1', [n1, n3], 'CrossSubnet', { ...uplink, mtu: 9000 });
  t.same(s.vxlanDevice, { name: VXLAN_DEVICE, vni: 4096, port: 4789, local: '10.0.1.11', dev: 'eth0', mtu: 8950, mac: vtepMac('n1'), address: '10.244.1.1/32' });
  t.match(vtepMac('n1'), /^[0-9a-f][26ae](:[0-9a-f]{2}){5}$/, 'locally administered unicast');
  t.not(vtepMac('n1'), vtepMac('n2'));
});

// Kernel state as the addon reports it, built from what a previous apply produced.
function kernelFrom(s: DesiredState, extra: Partial<KernelState> = {}): KernelState {
  const links: KernelState['links'] = [{ index: 2, name: 'eth0', kind: 'veth', mtu: 1500, flags: 1, up: true, operstate: 6, mac: '02:00:00:00:00:02' }];
  const addrs: KernelState['addrs'] = [{ dev: 'eth0', index: 2, family: 4, address: '10.0.1.11', prefixLen: 24, scope: 0, flags: 0 }];
  const d = s.vxlanDevice;
  if (d) {
    links.push({ index: 3, name: d.name, kind: 'vxlan', mtu: d.mtu, flags: 1, up: true, operstate: 0, mac: d.mac, vxlan: { vni: d.vni, port: d.port, local: d.local, link: 2, learning: false } });
    if (d.address) addrs.push({ dev: d.name, index: 3, family: 4, address: d.address.split('/')[0]!, prefixLen: 32, scope: 0, flags: 0 });
  }
  return {
    links, addrs,
    routes: [
      // As the kernel reports a reject route: type 7, no device, no gateway.
      ...s.unreachable.map((u) => ({ family: 4 as const, dst: u.dst, table: 254, protocol: ROUTE_PROTOCOL, scope: 0, type: 7, onlink: false })),
      ...s.routes.map((r) => ({ family: 4 as const, dst: r.dst, via: r.via, dev: r.dev, table: 254, protocol: ROUTE_PROTOCOL, scope: 0, type: 1, onlink: r.onlink })),
    ],
    neighs: s.neighbours.map((n) => ({ dev: VXLAN_DEVICE, index: 3, address: n.address, lladdr: n.lladdr, state: 0x80, flags: 0 })),
    fdb: s.fdb.map((f) => ({ dev: VXLAN_DEVICE, index: 3, address: f.dst, lladdr: f.lladdr, state: 0x80, flags: 2 })),
    ...extra,
  };
}

const full = desiredRoutes('n1', [n1, n2, n3], 'CrossSubnet', uplink);

t.test('diff: from nothing, device first, routes last', async (t) => {
  const ops = diffState(full, kernelFrom({ routes: [], unreachable: [], neighbours: [], fdb: [], skipped: [] }));
  t.same(ops.map((o) => o.op), ['linkAddVxlan', 'linkSet', 'addrAdd', 'neighReplace', 'fdbReplace', 'routeReplace', 'routeReplace', 'routeReplace']);
  t.match(ops[0], { op: 'linkAddVxlan', vni: 4096, port: 4789, local: '10.0.1.11', dev: 'eth0', learning: false, mtu: 1450 });
  t.same(ops[5], { op: 'routeReplace', dst: '10.244.1.0/24', type: 'unreachable', table: 254, protocol: ROUTE_PROTOCOL });
  t.match(ops[7], { dst: '10.244.3.0/24', via: '10.244.3.1', dev: VXLAN_DEVICE, onlink: true, protocol: ROUTE_PROTOCOL });
});

t.test('diff: in sync → no ops; foreign routes and other protocols are left alone', async (t) => {
  const k = kernelFrom(full);
  k.routes.push({ family: 4, dst: '10.99.0.0/16', via: '10.0.1.1', dev: 'eth0', table: 254, protocol: 4, scope: 0, type: 1, onlink: false });
  k.routes.push({ family: 4, dst: '10.244.1.7/32', dev: 'cap0', table: 254, protocol: 80, scope: 253, type: 1, onlink: false });
  k.neighs.push({ dev: 'eth0', index: 2, address: '10.0.1.1', lladdr: '02:00:00:00:00:09', state: 0x80, flags: 0 });
  t.same(diffState(full, k), []);
});

t.test('diff: a node gone → its route, neighbour and FDB entry deleted; nothing else', async (t) => {
  const without = desiredRoutes('n1', [n1, n2], 'CrossSubnet', uplink);
  const ops = diffState(without, kernelFrom(full));
  t.same(ops, [
    { op: 'routeDel', dst: '10.244.3.0/24', table: 254, protocol: ROUTE_PROTOCOL },
    { op: 'neighDel', dev: VXLAN_DEVICE, address: '10.244.3.1' },
    { op: 'fdbDel', dev: VXLAN_DEVICE, lladdr: vtepMac('n3'), dst: '10.0.2.13' },
  ]);
});

t.test('diff: a route deleted by hand comes back alone; a changed path is replaced', async (t) => {
  const k = kernelFrom(full);
  k.routes = k.routes.filter((r) => r.dst !== '10.244.2.0/24');
  t.same(diffState(full, k).map((o) => [o.op, (o as { dst?: string }).dst]), [['routeReplace', '10.244.2.0/24']]);
  const always = desiredRoutes('n1', [n1, n2, n3], 'Always', uplink);
  t.same(diffState(always, kernelFrom(full)).map((o) => o.op), ['neighReplace', 'fdbReplace', 'routeReplace']);
});

t.test('diff: device with the wrong identity is recreated with everything on it; MTU fixed in place', async (t) => {
  const k = kernelFrom(full);
  k.links[1]!.vxlan!.local = '10.0.1.99';
  t.same(diffState(full, k).map((o) => o.op), ['linkDel', 'linkAddVxlan', 'linkSet', 'addrAdd', 'neighReplace', 'fdbReplace', 'routeReplace']);
  const k2 = kernelFrom(full);
  k2.links[1]!.mtu = 1400;
  k2.links[1]!.up = false;
  t.same(diffState(full, k2), [{ op: 'linkSet', name: VXLAN_DEVICE, mtu: 1450, up: true }]);
});

t.test('diff: a remote VTEP MAC change replaces neighbour and FDB, drops the old FDB entry', async (t) => {
  const moved = desiredRoutes('n1', [n1, n2, node('n3', '10.0.2.13', '10.244.3.0/24', { [ANNOTATION_TUNNEL_MAC]: '02:aa:bb:cc:dd:ee', [ANNOTATION_TUNNEL_ADDR]: '10.244.3.1' })], 'CrossSubnet', uplink);
  t.same(diffState(moved, kernelFrom(full)), [
    { op: 'fdbDel', dev: VXLAN_DEVICE, lladdr: vtepMac('n3'), dst: '10.0.2.13' },
    { op: 'neighReplace', dev: VXLAN_DEVICE, address: '10.244.3.1', lladdr: '02:aa:bb:cc:dd:ee' },
    { op: 'fdbReplace', dev: VXLAN_DEVICE, lladdr: '02:aa:bb:cc:dd:ee', dst: '10.0.2.13' },
  ]);
});

t.test('diff: Never → the device goes (its routes with it), direct routes stay', async (t) => {
  const never = desiredRoutes('n1', [n1, n2, n3], 'Never', uplink);
  t.same(diffState(never, kernelFrom(full)), [{ op: 'linkDel', name: VXLAN_DEVICE }]);
});

// Unreachable routes: the own block (an address without a pod) and the cluster CIDR (blocks
// of nodes without a route) must not follow the default route out of the node.
const cluster = parseCidr('10.244.0.0/16')!;

t.test('desired: the own block is unreachable; with a cluster CIDR, that too, in any order of Nodes', async (t) => {
  t.same(full.unreachable, [{ dst: '10.244.1.0/24', why: 'own block' }]);
  const hollow = node('h1', '127.0.0.2', '10.244.9.0/24');
  const results = permutations([n1, n2, n3, hollow]).map((p) => desiredRoutes('n1', p, 'CrossSubnet', uplink, cluster));
  for (const r of results) t.same(r, results[0], 'same result whatever the order');
  const s = results[0]!;
  t.same(s.unreachable, [{ dst: '10.244.1.0/24', why: 'own block' }, { dst: '10.244.0.0/16', why: 'cluster CIDR' }]);
  t.same(s.routes.map((r) => r.dst), ['10.244.2.0/24', '10.244.3.0/24'], 'routed blocks are more specific than the cluster CIDR');
  t.match(s.skipped, [{ node: 'h1', reason: /loopback/ }], 'the hollow node\'s block is left to the unreachable cluster CIDR');
});

t.test('desired: no own block → only the cluster CIDR; no own Node → nothing', async (t) => {
  const s = desiredRoutes('n1', [node('n1', '10.0.1.11', undefined), n2], 'CrossSubnet', uplink, cluster);
  t.same(s.unreachable, [{ dst: '10.244.0.0/16', why: 'cluster CIDR' }]);
  t.same(desiredRoutes('n1', [n2], 'CrossSubnet', uplink, cluster).unreachable, []);
});

t.test('desired: a cluster CIDR equal to the own block or to a routed block is not rejected twice or over the route', async (t) => {
  const whole = node('n1', '10.0.1.11', '10.244.0.0/16');
  t.same(desiredRoutes('n1', [whole], 'CrossSubnet', uplink, cluster).unreachable, [{ dst: '10.244.0.0/16', why: 'own block' }]);
  const s = desiredRoutes('n1', [node('n1', '10.0.1.11', '10.245.0.0/24'), node('n2', '10.0.1.12', '10.244.0.0/16')], 'CrossSubnet', uplink, cluster);
  t.same(s.routes.map((r) => r.dst), ['10.244.0.0/16']);
  t.same(s.unreachable, [{ dst: '10.245.0.0/24', why: 'own block' }]);
});

t.test('desired: a cluster CIDR holding the node\'s own InternalIP is skipped, not made unreachable', async (t) => {
  const s = desiredRoutes('n1', [n1, n2], 'CrossSubnet', uplink, parseCidr('10.0.0.0/8')!);
  t.same(s.unreachable, [{ dst: '10.244.1.0/24', why: 'own block' }]);
  t.match(s.skipped, [{ node: 'n1', reason: /cluster CIDR 10\.0\.0\.0\/8 holds this node's InternalIP/ }]);
});

t.test('diff: unreachable routes as the kernel reports them are adopted; a moved block or cluster CIDR is replaced', async (t) => {
  const s = desiredRoutes('n1', [n1, n2, n3], 'CrossSubnet', uplink, cluster);
  const k = kernelFrom(s);
  k.routes.push({ family: 4, dst: '10.244.1.0/24', table: 255, protocol: 2, scope: 0, type: 7, onlink: false });
  t.same(diffState(s, k), [], 'in sync: no ops');
  const moved = desiredRoutes('n1', [node('n1', '10.0.1.11', '10.244.7.0/24', vtep('n1', '10.244.7.1')), n2, n3], 'CrossSubnet', uplink);
  t.same(diffState(moved, kernelFrom(s)).filter((o) => o.op.startsWith('route')), [
    { op: 'routeDel', dst: '10.244.1.0/24', table: 254, protocol: ROUTE_PROTOCOL },
    { op: 'routeDel', dst: '10.244.0.0/16', table: 254, protocol: ROUTE_PROTOCOL },
    { op: 'routeReplace', dst: '10.244.7.0/24', type: 'unreachable', table: 254, protocol: ROUTE_PROTOCOL },
  ]);
});

t.test('diff: a route of the wrong type is replaced both ways', async (t) => {
  const s = desiredRoutes('n1', [n1, n2, n3], 'CrossSubnet', uplink, cluster);
  const k = kernelFrom(s);
  // The kernel has a node route where an unreachable one belongs, and the reverse.
  for (const r of k.routes) {
    if (r.dst === '10.244.0.0/16') Object.assign(r, { type: 1, via: '10.0.1.12', dev: 'eth0' });
    if (r.dst === '10.244.2.0/24') { Object.assign(r, { type: 7 }); delete r.via; delete r.dev; }
  }
  t.same(diffState(s, k), [
    { op: 'routeReplace', dst: '10.244.0.0/16', type: 'unreachable', table: 254, protocol: ROUTE_PROTOCOL },
    { op: 'routeReplace', dst: '10.244.2.0/24', via: '10.0.1.12', dev: 'eth0', table: 254, protocol: ROUTE_PROTOCOL },
  ]);
});
