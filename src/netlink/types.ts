// The rtnetlink operations capstan needs, as plain data. Every driver (addon, `ip`
// commands, in-memory fake) takes the same ops and returns the same results.

/** A network namespace as a path (`/run/netns/NAME` or `/proc/PID/ns/net`); null = the caller's. */
export type NetnsPath = string | null;

export type NetlinkOp =
  | { op: 'linkAddVeth'; name: string; peerName: string; peerNetns?: string; mtu?: number; peerMtu?: number; mac?: string; peerMac?: string }
  | { op: 'linkAddVxlan'; name: string; vni: number; port?: number; local?: string; dev?: string; learning?: boolean; mtu?: number; mac?: string }
  | { op: 'linkSet'; name: string; up?: boolean; mtu?: number; mac?: string; newName?: string; netns?: string }
  | { op: 'linkDel'; name: string }
  | { op: 'linkList' }
  | { op: 'addrAdd' | 'addrDel'; dev: string; address: string; nodad?: boolean; scope?: RouteScope }
  | { op: 'addrList'; family?: 4 | 6 }
  | RouteOp
  | { op: 'routeList'; family?: 4 | 6 }
  | { op: 'neighAdd' | 'neighReplace'; dev: string; address: string; lladdr: string }
  | { op: 'neighDel'; dev: string; address: string; lladdr?: string }
  | { op: 'neighList'; family?: 4 | 6 }
  | { op: 'fdbAdd' | 'fdbReplace' | 'fdbDel'; dev: string; lladdr: string; dst?: string }
  | { op: 'fdbList' }
  | { op: 'sysctlWrite'; path: string; value: string }
  | { op: 'sysctlRead'; path: string };

export type RouteScope = 'universe' | 'global' | 'site' | 'link' | 'host' | 'nowhere' | number;

export interface RouteOp {
  op: 'routeAdd' | 'routeReplace' | 'routeDel';
  /** CIDR, a bare address (full-length prefix) or 'default'. */
  dst: string;
  /** Needed only for 'default' without `via`. */
  family?: 4 | 6;
  via?: string;
  dev?: string;
  onlink?: boolean;
  scope?: RouteScope;
  metric?: number;
  table?: number;
  /** rtm_protocol tag; capstan marks its own routes with one so it can find and clean them. */
  protocol?: number;
  /**
   * rtm_type (default 'unicast'). The reject types take neither `via` nor `dev`: traffic
   * matching them is dropped ('blackhole') or refused with ICMP host ('unreachable') or
   * admin ('prohibit') unreachable, a local sender getting EHOSTUNREACH / EACCES at once.
   * On routeDel it narrows the match; absent, any type matches.
   */
  type?: RouteType;
}

export type RouteType = 'unicast' | 'blackhole' | 'unreachable' | 'prohibit';

export interface LinkInfo {
  index: number;
  name: string;
  kind: string;
  mtu: number;
  flags: number;
  up: boolean;
  operstate: number;
  mac: string;
  link?: number;
  master?: number;
  linkNetnsId?: number;
  vxlan?: { vni?: number; port?: number; local?: string; link?: number; learning?: boolean };
}

export interface AddrInfo {
  dev: string;
  index: number;
  family: 4 | 6;
  address: string;
  prefixLen: number;
  scope: number;
  flags: number;
}

export interface RouteInfo {
  family: 4 | 6;
  /** 'default' or CIDR. */
  dst: string;
  via?: string;
  dev?: string;
  prefsrc?: string;
  table: number;
  protocol: number;
  scope: number;
  type: number;
  onlink: boolean;
  metric?: number;
}

export interface NeighInfo {
  dev: string;
  index: number;
  address?: string;
  lladdr?: string;
  state: number;
  flags: number;
  master?: number;
}

export type OpResult =
  | {
      status: 'ok';
      links?: LinkInfo[];
      addrs?: AddrInfo[];
      routes?: RouteInfo[];
      neighs?: NeighInfo[];
      value?: string;
    }
  | { status: 'error'; errno: number; code: string; message: string }
  | { status: 'skipped' };

export interface BatchOptions {
  /** Keep going after a failed operation instead of skipping the rest. */
  continueOnError?: boolean;
}

/**
 * A way to run rtnetlink operations in a namespace. Operations run in order; each gets a
 * result. Without continueOnError, everything after the first failure is 'skipped'.
 * Drivers never retry and never diff: callers own policy.
 */
export interface NetlinkDriver {
  readonly name: string;
  batch(netns: NetnsPath, ops: NetlinkOp[], options?: BatchOptions): Promise<OpResult[]>;
}

export const NUD_PERMANENT = 0x80;
export const RT_SCOPE = { universe: 0, site: 200, link: 253, host: 254, nowhere: 255 } as const;
export const RTPROT = { kernel: 2, boot: 3, static: 4 } as const;
/** `RouteInfo.type` numbers (RTN_*) of the route types `RouteOp.type` names. */
export const RTN: Record<RouteType, number> = { unicast: 1, blackhole: 6, unreachable: 7, prohibit: 8 };
