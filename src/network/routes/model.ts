// Names, numbers and shapes shared by the three layers (desired → diff → manager).
import { createHash } from 'node:crypto';

/** rtm_protocol of routes to other nodes' blocks (the agent reserves 81; pod /32s use 80). */
export { NODE_ROUTE_PROTOCOL as ROUTE_PROTOCOL } from '../podnet.js';
export const MAIN_TABLE = 254;

export const VXLAN_DEVICE = 'vxlan.capstan';
/** Calico's VXLAN VNI and the IANA VXLAN port (Linux defaults to 8472 unless told). */
export const VXLAN_VNI = 4096;
export const VXLAN_PORT = 4789;
/** Outer IPv4 (20) + UDP (8) + VXLAN (8) + inner Ethernet (14) = 50. */
export const VXLAN_OVERHEAD = 50;

export const ANNOTATION_TUNNEL_MAC = 'capstan.io/vxlan-tunnel-mac';
export const ANNOTATION_TUNNEL_ADDR = 'capstan.io/vxlan-tunnel-addr';
export const ANNOTATION_ENCAPSULATION = 'capstan.io/encapsulation';
/** The uplink's address with its prefix (`10.77.0.11/24`), published so others can tell which nodes share its L2 subnet. */
export const ANNOTATION_UPLINK = 'capstan.io/uplink';
/** The agent's `--encapsulation`, which applies to the node unless `capstan.io/encapsulation` overrides it. */
export const ANNOTATION_DEFAULT_ENCAPSULATION = 'capstan.io/default-encapsulation';

export type EncapsulationMode = 'CrossSubnet' | 'Always' | 'Never';
export const ENCAPSULATION_MODES: readonly EncapsulationMode[] = ['CrossSubnet', 'Always', 'Never'];

export function parseMode(s: string | undefined): EncapsulationMode | undefined {
  return ENCAPSULATION_MODES.find((m) => m === s);
}

/** The interface that holds the node's InternalIP, as the kernel reports it. */
export interface Uplink {
  name: string;
  address: string;
  prefixLen: number;
  mtu: number;
}

/** A route to a remote block: direct (`via` = node IP on the uplink) or through the tunnel. */
export interface DesiredRoute {
  dst: string;
  via: string;
  dev: string;
  onlink: boolean;
  /** Which node owns the block (for logs and tests; not a kernel field). */
  node: string;
}

export interface DesiredNeighbour {
  address: string;
  lladdr: string;
}

export interface DesiredFdb {
  lladdr: string;
  dst: string;
}

export interface VxlanDevice {
  name: string;
  vni: number;
  port: number;
  local: string;
  dev: string;
  mtu: number;
  mac: string;
  /** The node's tunnel address as a /32 (absent while the node has no block). */
  address?: string;
}

/**
 * A block whose traffic must not leave the node when no more specific route matches: the
 * own block (an address without a pod) and the cluster CIDR (blocks of nodes not routed to).
 * Installed as `unreachable <dst> proto 81`: a sender gets ICMP host-unreachable, a local
 * connect() EHOSTUNREACH at once, instead of a packet out through the default route.
 */
export interface DesiredUnreachable {
  dst: string;
  why: 'own block' | 'cluster CIDR';
}

export interface DesiredState {
  routes: DesiredRoute[];
  /** Reject routes; the routes above and pod /32s are more specific and win. */
  unreachable: DesiredUnreachable[];
  neighbours: DesiredNeighbour[];
  fdb: DesiredFdb[];
  vxlanDevice?: VxlanDevice;
  /** Nodes that get no route, and why (no podCIDR, no VTEP annotations, ...). */
  skipped: { node: string; reason: string }[];
}

/**
 * The node's VTEP MAC: locally administered, unicast, derived from the node name, so it
 * survives the device being recreated and is known before the device exists (Calico
 * stores a random one on its Node resource; a hash needs no storage).
 */
export function vtepMac(nodeName: string): string {
  const b = createHash('sha256').update(`capstan-vtep/${nodeName}`).digest();
  b[0] = (b[0]! & 0xfe) | 0x02;
  return [...b.subarray(0, 6)].map((x) => x.toString(16).padStart(2, '0')).join(':');
}
