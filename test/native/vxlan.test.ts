// Two node namespaces on different subnets joined by a router namespace, a VXLAN device on
// each (learning off) with static FDB and neighbour entries, carrying a ping between the
// nodes' pod-network addresses.
import t from 'tap';
import { createNetlink, type NetlinkOp } from '../../src/netlink/index.js';
import { isRoot, newNamespace, ping, type Namespace } from './fixtures/netns.js';

interface Node { ns: Namespace; uplink: string; ip: string; gw: string; vtepMac: string; tunnelIp: string; block: string }

function wire(node: Node, routerSide: string): { router: NetlinkOp[]; node: NetlinkOp[] } {
  return {
    router: [
      { op: 'linkAddVeth', name: routerSide, peerName: node.uplink, peerNetns: node.ns.path },
      { op: 'linkSet', name: routerSide, up: true },
      { op: 'addrAdd', dev: routerSide, address: `${node.gw}/24` },
    ],
    node: [
      { op: 'linkSet', name: node.uplink, up: true },
      { op: 'addrAdd', dev: node.uplink, address: `${node.ip}/24` },
      { op: 'routeAdd', dst: 'default', via: node.gw, dev: node.uplink },
    ],
  };
}

function vxlan(self: Node, peer: Node): NetlinkOp[] {
  return [
    { op: 'linkAddVxlan', name: 'vxlan.calico', vni: 4096, port: 4789, local: self.ip, dev: self.uplink, learning: false, mac: self.vtepMac, mtu: 1450 },
    { op: 'linkSet', name: 'vxlan.calico', up: true },
    { op: 'addrAdd', dev: 'vxlan.calico', address: `${self.tunnelIp}/32` },
    { op: 'neighReplace', dev: 'vxlan.calico', address: peer.tunnelIp, lladdr: peer.vtepMac },
    { op: 'fdbReplace', dev: 'vxlan.calico', lladdr: peer.vtepMac, dst: peer.ip },
    { op: 'routeReplace', dst: peer.block, via: peer.tunnelIp, dev: 'vxlan.calico', onlink: true, protocol: 80 },
  ];
}

for (const impl of ['addon', 'ip'] as const) {
  t.test(`vxlan between two nodes through a router with ${impl}`, { skip: !isRoot && 'needs root' }, async (t) => {
    const nl = createNetlink(impl);
    const router = await newNamespace(t, 'rtr');
    const a: Node = { ns: await newNamespace(t, 'na'), uplink: 'eth1', ip: '10.10.1.2', gw: '10.10.1.1', vtepMac: '66:aa:00:00:00:01', tunnelIp: '10.244.1.0', block: '10.244.1.0/24' };
    const b: Node = { ns: await newNamespace(t, 'nb'), uplink: 'eth1', ip: '10.10.2.2', gw: '10.10.2.1', vtepMac: '66:bb:00:00:00:02', tunnelIp: '10.244.2.0', block: '10.244.2.0/24' };
    const wa = wire(a, 'ra'), wb = wire(b, 'rb');
    await nl.apply(router.path, [...wa.router, ...wb.router, { op: 'sysctlWrite', path: 'net/ipv4/ip_forward', value: '1' }]);
    await nl.apply(a.ns.path, wa.node);
    await nl.apply(b.ns.path, wb.node);
    t.ok(await ping(a.ns, b.ip), 'underlay: node a reaches node b through the router');

    await nl.apply(a.ns.path, vxlan(a, b));
    await nl.apply(b.ns.path, vxlan(b, a));

    const dev = (await nl.links(a.ns.path)).find((l) => l.name === 'vxlan.calico');
    t.match(dev, { kind: 'vxlan', mtu: 1450, mac: a.vtepMac, vxlan: { vni: 4096, port: 4789, local: a.ip, learning: false } }, 'vxlan attributes read back');
    const fdb = await nl.fdb(a.ns.path);
    t.ok(fdb.some((f) => f.dev === 'vxlan.calico' && f.lladdr === b.vtepMac && f.address === b.ip), 'FDB entry points at the peer VTEP');
    const neigh = await nl.neighbours(a.ns.path, 4);
    t.ok(neigh.some((n) => n.dev === 'vxlan.calico' && n.address === b.tunnelIp && n.lladdr === b.vtepMac && n.state === 0x80), 'permanent neighbour entry');
    const routes = await nl.routes(a.ns.path, 4, { protocol: 80 });
    t.match(routes, [{ dst: b.block, via: b.tunnelIp, dev: 'vxlan.calico', onlink: true }], 'onlink route to the peer block');

    t.ok(await ping(a.ns, b.tunnelIp), 'ping crosses the VXLAN tunnel');
  });
}
