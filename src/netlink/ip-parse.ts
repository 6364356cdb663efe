// Turning `ip -j` / `bridge -j` output and iproute2 error text into the driver-neutral types.
import type { AddrInfo, LinkInfo, NeighInfo, RouteInfo } from './types.js';
import { errnoOf } from './errors.js';

const OPERSTATE: Record<string, number> = { UNKNOWN: 0, NOTPRESENT: 1, DOWN: 2, LOWERLAYERDOWN: 3, TESTING: 4, DORMANT: 5, UP: 6 };
const PROTO: Record<string, number> = { unspec: 0, redirect: 1, kernel: 2, boot: 3, static: 4, ra: 9, dhcp: 16 };
const TABLE: Record<string, number> = { default: 253, main: 254, local: 255 };
const SCOPE: Record<string, number> = { global: 0, universe: 0, site: 200, link: 253, host: 254, nowhere: 255 };
const RTYPE: Record<string, number> = { unicast: 1, local: 2, broadcast: 3, anycast: 4, multicast: 5, blackhole: 6, unreachable: 7, prohibit: 8 };
const NUD: Record<string, number> = { INCOMPLETE: 1, REACHABLE: 2, STALE: 4, DELAY: 8, PROBE: 0x10, FAILED: 0x20, NOARP: 0x40, PERMANENT: 0x80 };

const named = (table: Record<string, number>, v: unknown, fallback = 0): number =>
  typeof v === 'number' ? v : v === undefined ? fallback : (table[String(v)] ?? (Number(v) || fallback));

// What `ip -j` prints, as far as the parsers read it (iproute2's JSON output).
interface IpLinkJson {
  ifindex: number; ifname: string; mtu: number; flags?: string[]; operstate: string; address?: string;
  link_index?: number; link_netnsid?: number;
  linkinfo?: { info_kind?: string; info_data?: { id: number; port: number; local: string; learning: boolean } };
}
interface IpAddrJson {
  ifindex: number; ifname: string;
  addr_info?: { family: string; local: string; prefixlen: number; scope?: string | number }[];
}
interface IpRouteJson {
  dst: string; table?: string | number; protocol?: string | number; scope?: string | number; type?: string | number;
  flags?: string[]; gateway?: string; dev?: string; prefsrc?: string; metric?: number;
}
interface IpNeighJson { dev?: string; ifname?: string; dst: string; lladdr?: string; mac?: string; state?: string | string[]; flags?: string[] }

export function parseLinks(json: IpLinkJson[]): LinkInfo[] {
  return json.map((l) => {
    const flags: string[] = l.flags ?? [];
    const info: LinkInfo = {
      index: l.ifindex,
      name: l.ifname,
      kind: l.linkinfo?.info_kind ?? '',
      mtu: l.mtu,
      flags: flags.includes('UP') ? 1 : 0,
      up: flags.includes('UP'),
      operstate: OPERSTATE[l.operstate] ?? 0,
      mac: l.address ?? '',
    };
    if (l.link_index !== undefined) info.link = l.link_index;
    if (l.link_netnsid !== undefined) info.linkNetnsId = l.link_netnsid;
    const d = l.linkinfo?.info_data;
    if (info.kind === 'vxlan' && d) info.vxlan = { vni: d.id, port: d.port, local: d.local, learning: d.learning };
    return info;
  });
}

export function parseAddrs(json: IpAddrJson[]): AddrInfo[] {
  const out: AddrInfo[] = [];
  for (const l of json) {
    for (const a of l.addr_info ?? []) {
      out.push({
        dev: l.ifname, index: l.ifindex, family: a.family === 'inet6' ? 6 : 4, address: a.local,
        prefixLen: a.prefixlen, scope: named(SCOPE, a.scope), flags: 0,
      });
    }
  }
  return out;
}

export function parseRoutes(json: IpRouteJson[], family: 4 | 6): RouteInfo[] {
  return json.map((r) => {
    const full = family === 4 ? 32 : 128;
    const dst = r.dst === 'default' || String(r.dst).includes('/') ? r.dst : `${r.dst}/${full}`;
    const route: RouteInfo = {
      family, dst, table: named(TABLE, r.table, 254), protocol: named(PROTO, r.protocol, 3),
      scope: named(SCOPE, r.scope), type: named(RTYPE, r.type, 1), onlink: (r.flags ?? []).includes('onlink'),
    };
    if (r.gateway) route.via = r.gateway;
    if (r.dev) route.dev = r.dev;
    if (r.prefsrc) route.prefsrc = r.prefsrc;
    if (r.metric !== undefined) route.metric = r.metric;
    return route;
  });
}

export function parseNeighs(json: IpNeighJson[]): NeighInfo[] {
  return json.map((n) => ({
    dev: n.dev ?? n.ifname ?? '', index: 0, address: n.dst, lladdr: n.lladdr ?? n.mac,
    state: ([] as string[]).concat(n.state ?? []).reduce((s, x) => s | (NUD[String(x).toUpperCase()] ?? 0), 0),
    flags: (n.flags ?? []).includes('self') ? 2 : 0,
  }));
}

const MESSAGES: [RegExp, string][] = [
  [/File exists/i, 'EEXIST'], [/No such device|Cannot find device|does not exist/i, 'ENODEV'],
  [/No such process/i, 'ESRCH'], [/No such file or directory/i, 'ENOENT'], [/Invalid argument/i, 'EINVAL'],
  [/Operation not permitted/i, 'EPERM'], [/Network is unreachable/i, 'ENETUNREACH'],
  [/Device or resource busy/i, 'EBUSY'], [/Cannot assign requested address/i, 'EADDRNOTAVAIL'],
  [/Operation not supported|not supported/i, 'EOPNOTSUPP'], [/out of range/i, 'ERANGE'],
  [/Permission denied/i, 'EACCES'], [/Address family not supported/i, 'EAFNOSUPPORT'],
];

/** iproute2 prints strerror() text; map it back to the errno code. */
export function codeFromMessage(text: string): { code: string; errno: number } {
  for (const [re, code] of MESSAGES) if (re.test(text)) return { code, errno: errnoOf(code) };
  return { code: 'EINVAL', errno: errnoOf('EINVAL') };
}
