// Layer 1: what the kernel should hold, as a pure function of the Nodes this agent sees.
// No I/O, no clock: the same Nodes in any order give the same state.
import { cidrOf } from '../../util/index.js';
import { cidrContains, formatCidr, nodeReservedAddress, parseCidr, parseIPv4, type Cidr } from '../cidr.js';
import {
  ANNOTATION_ENCAPSULATION, ANNOTATION_TUNNEL_ADDR, ANNOTATION_TUNNEL_MAC, VXLAN_DEVICE, VXLAN_OVERHEAD, VXLAN_PORT, VXLAN_VNI,
  parseMode, vtepMac, type DesiredFdb, type DesiredNeighbour, type DesiredRoute, type DesiredState, type DesiredUnreachable, type EncapsulationMode, type Uplink,
} from './model.js';
import type { Node } from '../../api/kinds.js';

/** The fields of a Node that routing depends on. */
export interface NodeFacts {
  name: string;
  internalIP?: string;
  podCIDR?: Cidr;
  /** From `capstan.io/encapsulation`, when valid. */
  mode?: EncapsulationMode;
  tunnelMac?: string;
  tunnelAddr?: string;
}

const MAC = /^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/;

export function nodeFacts(node: Node): NodeFacts {
  const ann = node.metadata.annotations ?? {};
  const addresses: { type?: string; address?: string }[] = node.status?.addresses ?? [];
  const internal = addresses.find((a) => a.type === 'InternalIP' && a.address && parseIPv4(a.address) !== undefined)?.address;
  const rawCidr = node.spec?.podCIDR as string | undefined;
  const mac = ann[ANNOTATION_TUNNEL_MAC]?.toLowerCase();
  const addr = ann[ANNOTATION_TUNNEL_ADDR];
  return {
    name: node.metadata.name!,
    internalIP: internal,
    podCIDR: rawCidr ? parseCidr(rawCidr) : undefined,
    mode: parseMode(ann[ANNOTATION_ENCAPSULATION]),
    tunnelMac: mac && MAC.test(mac) ? mac : undefined,
    tunnelAddr: addr && parseIPv4(addr) !== undefined ? addr : undefined,
  };
}

function encapsulates(mode: EncapsulationMode, sameSubnet: boolean): boolean {
  return mode === 'Always' || (mode === 'CrossSubnet' && !sameSubnet);
}

function sameSubnet(uplink: Uplink, ip: string): boolean {
  return cidrContains(cidrOf(parseIPv4(uplink.address)!, uplink.prefixLen), parseIPv4(ip)!);
}

/** The tunnel address a node uses and publishes: the first host address of its own block. */
export function tunnelAddress(self: NodeFacts): string | undefined {
  return self.podCIDR ? nodeReservedAddress(self.podCIDR) : undefined;
}

/**
 * Desired routes, neighbours and FDB entries for `selfName`, given every Node.
 *
 * A pair of nodes encapsulates when either side's mode asks for it (a node's mode is its
 * `capstan.io/encapsulation` annotation, else `defaultMode`), so both ends agree on the
 * path. `Never` across subnets yields no route: the kernel has no on-link next hop for it,
 * and a router that knows pod blocks (BGP) is out of scope.
 */
export function desiredRoutes(
  selfName: string, nodes: readonly Node[], defaultMode: EncapsulationMode, uplink: Uplink, clusterCIDR?: Cidr,
): DesiredState {
  const all = nodes.map(nodeFacts).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const self = all.find((n) => n.name === selfName);
  const state: DesiredState = { routes: [], unreachable: [], neighbours: [], fdb: [], skipped: [] };
  if (!self?.internalIP) return state;
  const selfMode = self.mode ?? defaultMode;
  const claimed = new Map<string, string>();
  if (self.podCIDR) claimed.set(formatCidr(self.podCIDR), self.name);
  const routes: DesiredRoute[] = [];
  const neighbours: DesiredNeighbour[] = [];
  const fdb: DesiredFdb[] = [];
  const claimedVtep = new Map<string, string>([[vtepMac(self.name), self.name]]);
  const ownTunnel = tunnelAddress(self);
  if (ownTunnel) claimedVtep.set(ownTunnel, self.name);
  let tunnelNeeded = selfMode !== 'Never';
  for (const n of all) {
    if (n.name === selfName) continue;
    const skip = (reason: string) => state.skipped.push({ node: n.name, reason });
    if (!n.podCIDR) { skip('no podCIDR'); continue; }
    if (!n.internalIP) { skip('no InternalIP'); continue; }
    // A loopback InternalIP (hollow nodes' 127.1.x.y) is this machine's own loopback, not a
    // next hop for pod traffic; a route or VXLAN peer via it would go nowhere.
    if (isLoopback(n.internalIP)) { skip(`InternalIP ${n.internalIP} is a loopback address: no route via loopback`); continue; }
    const dst = formatCidr(n.podCIDR);
    const owner = claimed.get(dst);
    if (owner) { skip(`podCIDR ${dst} already routed to ${owner}`); continue; }
    const same = sameSubnet(uplink, n.internalIP);
    const encap = encapsulates(selfMode, same) || encapsulates(n.mode ?? defaultMode, same);
    if (!encap) {
      if (!same) { skip('Never: not on this L2 subnet'); continue; }
      claimed.set(dst, n.name);
      routes.push({ dst, via: n.internalIP, dev: uplink.name, onlink: false, node: n.name });
      continue;
    }
    tunnelNeeded = true;
    if (!n.tunnelMac || !n.tunnelAddr) { skip('no VXLAN tunnel annotations yet'); continue; }
    const vtepOwner = claimedVtep.get(n.tunnelAddr) ?? claimedVtep.get(n.tunnelMac);
    if (vtepOwner) { skip(`VXLAN tunnel address or MAC already used by ${vtepOwner}`); continue; }
    claimedVtep.set(n.tunnelAddr, n.name).set(n.tunnelMac, n.name);
    claimed.set(dst, n.name);
    routes.push({ dst, via: n.tunnelAddr, dev: VXLAN_DEVICE, onlink: true, node: n.name });
    neighbours.push({ address: n.tunnelAddr, lladdr: n.tunnelMac });
    fdb.push({ lladdr: n.tunnelMac, dst: n.internalIP });
  }
  if (tunnelNeeded) {
    const addr = ownTunnel;
    state.vxlanDevice = {
      name: VXLAN_DEVICE, vni: VXLAN_VNI, port: VXLAN_PORT, local: self.internalIP, dev: uplink.name,
      mtu: uplink.mtu - VXLAN_OVERHEAD, mac: vtepMac(self.name),
      ...(addr ? { address: `${addr}/32` } : {}),
    };
  }
  state.routes = routes.sort((a, b) => cmpIP(a.dst, b.dst));
  state.unreachable = unreachableBlocks(self, clusterCIDR, routes, uplink, state.skipped);
  state.neighbours = neighbours.sort((a, b) => cmpIP(a.address, b.address));
  state.fdb = fdb.sort((a, b) => (a.lladdr < b.lladdr ? -1 : 1));
  return state;
}

/**
 * The own block and the cluster CIDR as reject routes (Calico blackholes its own blocks).
 * A route to a node whose block is the whole cluster CIDR wins over the reject route; a
 * cluster CIDR holding the node's own InternalIP is not rejected (it would cut off the
 * uplink's subnet wherever the uplink's prefix is shorter), and is reported as skipped.
 */
function unreachableBlocks(
  self: NodeFacts, cluster: Cidr | undefined, routes: DesiredRoute[], uplink: Uplink, skipped: DesiredState['skipped'],
): DesiredUnreachable[] {
  const out: DesiredUnreachable[] = [];
  if (self.podCIDR) out.push({ dst: formatCidr(self.podCIDR), why: 'own block' });
  if (!cluster) return out;
  const dst = formatCidr(cluster);
  if (cidrContains(cluster, parseIPv4(uplink.address)!)) skipped.push({ node: self.name, reason: `cluster CIDR ${dst} holds this node's InternalIP: not made unreachable` });
  else if (!out.some((u) => u.dst === dst) && !routes.some((r) => r.dst === dst)) out.push({ dst, why: 'cluster CIDR' });
  return out;
}

const LOOPBACK = parseCidr('127.0.0.0/8')!;

function isLoopback(ip: string): boolean {
  return cidrContains(LOOPBACK, parseIPv4(ip)!);
}

function cmpIP(a: string, b: string): number {
  return parseIPv4(a.split('/')[0]!)! - parseIPv4(b.split('/')[0]!)!;
}
