// Layer 2: the minimal netlink ops that turn what the kernel has into what is desired.
// Pure: kernel state comes in as the lists the addon returns. Only capstan's own entries are
// considered — routes tagged ROUTE_PROTOCOL in the main table, and neighbour/FDB entries on
// vxlan.capstan (a device capstan owns outright) — so nothing else is ever deleted.
import { NUD_PERMANENT, RTN, type AddrInfo, type LinkInfo, type NeighInfo, type NetlinkOp, type RouteInfo } from '../../netlink/index.js';
import { MAIN_TABLE, ROUTE_PROTOCOL, VXLAN_DEVICE, type DesiredState, type VxlanDevice } from './model.js';

export interface KernelState {
  links: LinkInfo[];
  addrs: AddrInfo[];
  routes: RouteInfo[];
  neighs: NeighInfo[];
  fdb: NeighInfo[];
}

/**
 * Ops in an order the kernel accepts in one batch: stale routes out, the device
 * (re)created and up, its address, neighbour/FDB entries, then the unreachable routes and
 * the routes to other nodes (an on-link route needs its device up). A route of the wrong
 * type for its destination is replaced like one with the wrong next hop. A device whose identity (VNI, port, local, underlay, learning)
 * differs cannot be changed in place: it is deleted and recreated with everything on it.
 */
export function diffState(desired: DesiredState, kernel: KernelState): NetlinkOp[] {
  const ops: NetlinkOp[] = [];
  const current = kernel.links.find((l) => l.name === VXLAN_DEVICE);
  const want = desired.vxlanDevice;
  const recreate = !!current && (!want || !sameIdentity(current, want, kernel.links));
  const deviceGone = !current || recreate;
  // Routes on a device that is going away vanish with it; no delete for those.
  const ours = kernel.routes.filter((r) => r.protocol === ROUTE_PROTOCOL && r.table === MAIN_TABLE && r.family === 4 && !(deviceGone && r.dev === VXLAN_DEVICE));
  const wanted = new Set([...desired.routes.map((r) => r.dst), ...desired.unreachable.map((u) => u.dst)]);
  for (const r of ours) {
    if (!wanted.has(r.dst)) ops.push({ op: 'routeDel', dst: r.dst, table: MAIN_TABLE, protocol: ROUTE_PROTOCOL, ...(r.metric !== undefined ? { metric: r.metric } : {}) });
  }
  if (recreate) ops.push({ op: 'linkDel', name: VXLAN_DEVICE });
  if (want) {
    if (deviceGone) {
      ops.push(
        { op: 'linkAddVxlan', name: want.name, vni: want.vni, port: want.port, local: want.local, dev: want.dev, learning: false, mtu: want.mtu, mac: want.mac },
        { op: 'linkSet', name: want.name, up: true },
      );
    } else {
      const fix: { mtu?: number; mac?: string; up?: boolean } = {};
      if (current!.mtu !== want.mtu) fix.mtu = want.mtu;
      if (current!.mac.toLowerCase() !== want.mac) fix.mac = want.mac;
      if (!current!.up) fix.up = true;
      if (Object.keys(fix).length) ops.push({ op: 'linkSet', name: want.name, ...fix });
    }
    ops.push(...addressOps(want, deviceGone ? [] : kernel.addrs.filter((a) => a.dev === VXLAN_DEVICE && a.family === 4)));
    ops.push(...entryOps(desired, deviceGone ? { neighs: [], fdb: [] } : kernel));
  }
  const have = new Map(ours.map((r) => [r.dst, r]));
  for (const u of desired.unreachable) {
    if (have.get(u.dst)?.type === RTN.unreachable) continue;
    ops.push({ op: 'routeReplace', dst: u.dst, type: 'unreachable', table: MAIN_TABLE, protocol: ROUTE_PROTOCOL });
  }
  for (const r of desired.routes) {
    const h = have.get(r.dst);
    if (h && h.type === RTN.unicast && h.via === r.via && h.dev === r.dev && h.onlink === r.onlink) continue;
    ops.push({ op: 'routeReplace', dst: r.dst, via: r.via, dev: r.dev, ...(r.onlink ? { onlink: true } : {}), table: MAIN_TABLE, protocol: ROUTE_PROTOCOL });
  }
  return ops;
}

function sameIdentity(l: LinkInfo, want: VxlanDevice, links: LinkInfo[]): boolean {
  const underlay = links.find((x) => x.name === want.dev)?.index;
  const v = l.vxlan;
  return l.kind === 'vxlan' && !!v && v.vni === want.vni && v.port === want.port && v.local === want.local
    // The underlay is compared only when reported (the netlink fake does not report it).
    && (underlay === undefined || v.link === undefined || v.link === underlay) && !v.learning;
}

function addressOps(want: VxlanDevice, have: AddrInfo[]): NetlinkOp[] {
  const ops: NetlinkOp[] = [];
  const target = want.address;
  for (const a of have) {
    if (`${a.address}/${a.prefixLen}` !== target) ops.push({ op: 'addrDel', dev: VXLAN_DEVICE, address: `${a.address}/${a.prefixLen}` });
  }
  if (target && !have.some((a) => `${a.address}/${a.prefixLen}` === target)) ops.push({ op: 'addrAdd', dev: VXLAN_DEVICE, address: target });
  return ops;
}

function entryOps(desired: DesiredState, kernel: Pick<KernelState, 'neighs' | 'fdb'>): NetlinkOp[] {
  const dels: NetlinkOp[] = [];
  const adds: NetlinkOp[] = [];
  const mac = (s?: string) => s?.toLowerCase();
  const neighs = kernel.neighs.filter((n) => n.dev === VXLAN_DEVICE && (n.state & NUD_PERMANENT) !== 0 && n.address);
  const wantNeigh = new Map(desired.neighbours.map((n) => [n.address, n.lladdr]));
  for (const n of neighs) {
    if (!wantNeigh.has(n.address!)) dels.push({ op: 'neighDel', dev: VXLAN_DEVICE, address: n.address! });
  }
  for (const n of desired.neighbours) {
    if (!neighs.some((h) => h.address === n.address && mac(h.lladdr) === n.lladdr)) adds.push({ op: 'neighReplace', dev: VXLAN_DEVICE, address: n.address, lladdr: n.lladdr });
  }
  const fdb = kernel.fdb.filter((f) => f.dev === VXLAN_DEVICE && f.lladdr);
  const wantFdb = new Set(desired.fdb.map((f) => `${f.lladdr}>${f.dst}`));
  for (const f of fdb) {
    if (!wantFdb.has(`${mac(f.lladdr)}>${f.address}`)) dels.push({ op: 'fdbDel', dev: VXLAN_DEVICE, lladdr: mac(f.lladdr)!, ...(f.address ? { dst: f.address } : {}) });
  }
  for (const f of desired.fdb) {
    if (!fdb.some((h) => mac(h.lladdr) === f.lladdr && h.address === f.dst)) adds.push({ op: 'fdbReplace', dev: VXLAN_DEVICE, lladdr: f.lladdr, dst: f.dst });
  }
  return [...dels, ...adds];
}
