// The pod's network as netlink operations: a pure function of the pod's address and names,
// so the shape (Calico's: /32, on-link 169.254.1.1, proxy ARP, no bridge) is unit-tested
// without root and the agent only decides when to apply it.
import { createHash, randomBytes } from 'node:crypto';
import type { NetlinkOp } from '../netlink/index.js';

/** rtm_protocol of the host's /32 routes to pods; capstan finds and cleans its own by it. */
export const POD_ROUTE_PROTOCOL = 80;
/** rtm_protocol reserved for routes to other nodes' blocks (kept apart from pod routes). */
export const NODE_ROUTE_PROTOCOL = 81;
/** The pod's next hop: a link-local address nobody has, answered by the host's proxy ARP. */
export const POD_GATEWAY = '169.254.1.1';
/** Every host-side veth has this MAC; the pod only ever talks to it through proxy ARP. */
export const HOST_VETH_MAC = 'ee:ee:ee:ee:ee:ee';
export const HOST_VETH_PREFIX = 'cap';

/**
 * "cap" + 11 hex digits of the pod's identity (namespace.name, as Calico hashes it; the
 * container ID when the runtime gives no pod name): stable per pod, within IFNAMSIZ.
 */
export function hostVethName(pod: { namespace?: string; name?: string }, containerID: string): string {
  const id = pod.namespace && pod.name ? `${pod.namespace}.${pod.name}` : containerID;
  return HOST_VETH_PREFIX + createHash('sha1').update(id).digest('hex').slice(0, 11);
}

/** A random locally administered unicast MAC, chosen up front so the result needs no read-back. */
export function randomPodMac(): string {
  const b = randomBytes(6);
  b[0] = (b[0]! & 0xfe) | 0x02;
  return [...b].map((x) => x.toString(16).padStart(2, '0')).join(':');
}

export interface PodNetwork {
  podIP: string;
  hostVeth: string;
  ifName: string;
  /** The pod's netns as the agent can open it. */
  netns: string;
  podMac: string;
  mtu: number;
}

/**
 * Node side first (it creates the pair with the pod end already named ifName inside the
 * pod's namespace), then the pod side. Order within each list matters: a route needs its
 * device up.
 */
export function podNetworkOps(p: PodNetwork): { host: NetlinkOp[]; pod: NetlinkOp[] } {
  return {
    host: [
      { op: 'linkAddVeth', name: p.hostVeth, peerName: p.ifName, peerNetns: p.netns, mac: HOST_VETH_MAC, peerMac: p.podMac, mtu: p.mtu, peerMtu: p.mtu },
      { op: 'sysctlWrite', path: `net/ipv4/conf/${p.hostVeth}/proxy_arp`, value: '1' },
      { op: 'sysctlWrite', path: `net/ipv4/neigh/${p.hostVeth}/proxy_delay`, value: '0' },
      { op: 'sysctlWrite', path: `net/ipv4/conf/${p.hostVeth}/forwarding`, value: '1' },
      { op: 'linkSet', name: p.hostVeth, up: true },
      { op: 'routeReplace', dst: `${p.podIP}/32`, dev: p.hostVeth, scope: 'link', protocol: POD_ROUTE_PROTOCOL },
    ],
    pod: [
      { op: 'linkSet', name: p.ifName, up: true },
      { op: 'addrAdd', dev: p.ifName, address: `${p.podIP}/32` },
      { op: 'routeAdd', dst: `${POD_GATEWAY}/32`, dev: p.ifName, scope: 'link' },
      { op: 'routeAdd', dst: 'default', via: POD_GATEWAY, dev: p.ifName },
    ],
  };
}

/** Node-wide settings the pod routes rely on, applied once when the agent starts. */
export function nodeNetworkOps(): NetlinkOp[] {
  return [{ op: 'sysctlWrite', path: 'net/ipv4/ip_forward', value: '1' }];
}
