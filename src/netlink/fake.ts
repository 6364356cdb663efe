import { RTN, type AddrInfo, type BatchOptions, type LinkInfo, type NeighInfo, type NetlinkDriver, type NetlinkOp, type NetnsPath, type OpResult, type RouteInfo } from './types.js';
import { errnoOf } from './errors.js';

interface FakeNamespace {
  links: Map<string, LinkInfo>;
  addrs: AddrInfo[];
  routes: RouteInfo[];
  neighs: NeighInfo[];
  fdb: NeighInfo[];
  sysctls: Map<string, string>;
}

class Failure extends Error {
  constructor(readonly code: string) {
    super(code);
  }
}

const SCOPES: Record<string, number> = { universe: 0, global: 0, site: 200, link: 253, host: 254, nowhere: 255 };

/**
 * An in-memory kernel for unit tests: namespaces keyed by path (null = "host"), links,
 * addresses, routes, neighbours, FDB entries and sysctls, with the kernel's error codes
 * for the common mistakes (EEXIST, ENODEV, ESRCH, ENOENT).
 */
export class FakeNetlink implements NetlinkDriver {
  readonly name = 'fake';
  private readonly namespaces = new Map<string, FakeNamespace>();
  private nextIndex = 2;
  /** Every op ever applied, for assertions on what a caller sent. */
  readonly log: { netns: NetnsPath; op: NetlinkOp }[] = [];

  /** Namespaces must exist before use, like `ip netns add`. The host one always exists. */
  addNamespace(path: string): void {
    this.namespaces.set(path, this.emptyNs());
  }

  removeNamespace(path: string): void {
    this.namespaces.delete(path);
  }

  async batch(netns: NetnsPath, ops: NetlinkOp[], options: BatchOptions = {}): Promise<OpResult[]> {
    const results: OpResult[] = [];
    let failed = false;
    for (const op of ops) {
      if (failed && !options.continueOnError) {
        results.push({ status: 'skipped' });
        continue;
      }
      try {
        this.log.push({ netns, op });
        results.push(this.apply(this.ns(netns), op));
      } catch (e) {
        if (!(e instanceof Failure)) throw e;
        failed = true;
        results.push({ status: 'error', code: e.code, errno: errnoOf(e.code), message: e.code });
      }
    }
    return results;
  }

  private emptyNs(): FakeNamespace {
    const lo: LinkInfo = { index: 1, name: 'lo', kind: '', mtu: 65536, flags: 0, up: false, operstate: 0, mac: '00:00:00:00:00:00' };
    return { links: new Map([['lo', lo]]), addrs: [], routes: [], neighs: [], fdb: [], sysctls: new Map() };
  }

  private ns(path: NetnsPath): FakeNamespace {
    const key = path ?? '';
    if (!this.namespaces.has(key)) {
      if (key) throw new Failure('ENOENT');
      this.namespaces.set('', this.emptyNs());
    }
    return this.namespaces.get(key)!;
  }

  private link(ns: FakeNamespace, name: string): LinkInfo {
    const l = ns.links.get(name);
    if (!l) throw new Failure('ENODEV');
    return l;
  }

  private newLink(ns: FakeNamespace, name: string, kind: string, mtu = 1500, mac?: string): LinkInfo {
    if (ns.links.has(name)) throw new Failure('EEXIST');
    const index = this.nextIndex++;
    const l: LinkInfo = { index, name, kind, mtu, flags: 0, up: false, operstate: 2, mac: mac ?? fakeMac(index) };
    ns.links.set(name, l);
    return l;
  }

  private apply(ns: FakeNamespace, op: NetlinkOp): OpResult {
    switch (op.op) {
      case 'linkAddVeth': {
        const peerNs = op.peerNetns ? this.ns(op.peerNetns) : ns;
        if (ns.links.has(op.name) || peerNs.links.has(op.peerName)) throw new Failure('EEXIST');
        this.newLink(ns, op.name, 'veth', op.mtu, op.mac);
        this.newLink(peerNs, op.peerName, 'veth', op.peerMtu ?? op.mtu, op.peerMac);
        return { status: 'ok' };
      }
      case 'linkAddVxlan': {
        if (op.dev) this.link(ns, op.dev);
        const l = this.newLink(ns, op.name, 'vxlan', op.mtu ?? 1450, op.mac);
        l.vxlan = { vni: op.vni, port: op.port ?? 8472, local: op.local, learning: op.learning ?? false };
        return { status: 'ok' };
      }
      case 'linkSet': {
        const l = this.link(ns, op.name);
        if (op.up !== undefined) {
          l.up = op.up;
          l.flags = op.up ? 1 : 0;
        }
        if (op.mtu !== undefined) l.mtu = op.mtu;
        if (op.mac !== undefined) l.mac = op.mac;
        let target = ns;
        if (op.netns) target = this.ns(op.netns);
        const name = op.newName ?? l.name;
        if ((target !== ns || name !== l.name) && target.links.has(name)) throw new Failure('EEXIST');
        ns.links.delete(l.name);
        if (target !== ns) ns.addrs = ns.addrs.filter((a) => a.dev !== l.name);
        l.name = name;
        target.links.set(name, l);
        return { status: 'ok' };
      }
      case 'linkDel': {
        const l = this.link(ns, op.name);
        ns.links.delete(l.name);
        ns.addrs = ns.addrs.filter((a) => a.dev !== l.name);
        ns.routes = ns.routes.filter((r) => r.dev !== l.name);
        return { status: 'ok' };
      }
      case 'linkList': return { status: 'ok', links: [...ns.links.values()].map((l) => ({ ...l })) };
      case 'addrAdd':
      case 'addrDel': {
        const l = this.link(ns, op.dev);
        const [address, len] = splitCidr(op.address);
        const i = ns.addrs.findIndex((a) => a.dev === l.name && a.address === address);
        if (op.op === 'addrDel') {
          if (i < 0) throw new Failure('EADDRNOTAVAIL');
          ns.addrs.splice(i, 1);
        } else {
          if (i >= 0) throw new Failure('EEXIST');
          ns.addrs.push({ dev: l.name, index: l.index, family: familyOf(address), address, prefixLen: len, scope: 0, flags: 0 });
        }
        return { status: 'ok' };
      }
      case 'addrList': return { status: 'ok', addrs: ns.addrs.filter((a) => !op.family || a.family === op.family).map((a) => ({ ...a })) };
      case 'routeAdd':
      case 'routeReplace':
      case 'routeDel': {
        if (op.dev) this.link(ns, op.dev);
        const family = op.dst === 'default' ? (op.family ?? (op.via ? familyOf(op.via) : 4)) : familyOf(splitCidr(op.dst)[0]);
        const dst = op.dst === 'default' ? 'default' : splitCidr(op.dst).join('/');
        const table = op.table ?? 254;
        const type = RTN[op.type ?? 'unicast'];
        const i = ns.routes.findIndex((r) => r.dst === dst && r.table === table && r.family === family && (op.metric === undefined || r.metric === op.metric)
          && (op.op !== 'routeDel' || op.type === undefined || r.type === type));
        if (op.op === 'routeDel') {
          if (i < 0) throw new Failure('ESRCH');
          ns.routes.splice(i, 1);
          return { status: 'ok' };
        }
        if (i >= 0 && op.op === 'routeAdd') throw new Failure('EEXIST');
        // Like the kernel: a reject route has no next hop.
        if (type !== RTN.unicast && (op.via || op.dev)) throw new Failure('EINVAL');
        const scope = op.scope === undefined ? 0 : typeof op.scope === 'number' ? op.scope : SCOPES[op.scope]!;
        const route: RouteInfo = { family, dst, table, protocol: op.protocol ?? 3, scope, type, onlink: op.onlink ?? false };
        if (op.via) route.via = op.via;
        if (op.dev) route.dev = op.dev;
        if (op.metric !== undefined) route.metric = op.metric;
        if (i >= 0) ns.routes[i] = route;
        else ns.routes.push(route);
        return { status: 'ok' };
      }
      case 'routeList': return { status: 'ok', routes: ns.routes.filter((r) => !op.family || r.family === op.family).map((r) => ({ ...r })) };
      case 'neighAdd':
      case 'neighReplace':
      case 'neighDel':
        return this.modifyNeigh(ns, ns.neighs, op.op.slice(5).toLowerCase(), op.dev, op.address, op.lladdr);
      case 'fdbAdd':
      case 'fdbReplace':
      case 'fdbDel':
        return this.modifyNeigh(ns, ns.fdb, op.op.slice(3).toLowerCase(), op.dev, op.dst, op.lladdr);
      case 'neighList': return { status: 'ok', neighs: ns.neighs.map((n) => ({ ...n })) };
      case 'fdbList': return { status: 'ok', neighs: ns.fdb.map((n) => ({ ...n })) };
      case 'sysctlWrite':
        ns.sysctls.set(op.path, op.value);
        return { status: 'ok' };
      case 'sysctlRead': {
        const value = ns.sysctls.get(op.path);
        if (value === undefined) throw new Failure('ENOENT');
        return { status: 'ok', value };
      }
    }
  }

  private modifyNeigh(ns: FakeNamespace, list: NeighInfo[], verb: string, dev: string, address: string | undefined, lladdr: string | undefined): OpResult {
    const l = this.link(ns, dev);
    const same = (n: NeighInfo) => n.dev === dev && (list === ns.fdb ? n.lladdr === lladdr && n.address === address : n.address === address);
    const i = list.findIndex(same);
    if (verb === 'del') {
      if (i < 0) throw new Failure('ENOENT');
      list.splice(i, 1);
      return { status: 'ok' };
    }
    if (i >= 0 && verb === 'add') throw new Failure('EEXIST');
    const entry: NeighInfo = { dev, index: l.index, state: 0x80, flags: list === ns.fdb ? 2 : 0 };
    if (address) entry.address = address;
    if (lladdr) entry.lladdr = lladdr;
    if (i >= 0) list[i] = entry;
    else list.push(entry);
    return { status: 'ok' };
  }
}

function splitCidr(cidr: string): [string, number] {
  const [a, p] = cidr.split('/');
  return [a!, p === undefined ? (a!.includes(':') ? 128 : 32) : Number(p)];
}

const familyOf = (address: string): 4 | 6 => (address.includes(':') ? 6 : 4);
const fakeMac = (index: number) => `02:00:00:00:${((index >> 8) & 255).toString(16).padStart(2, '0')}:${(index & 255).toString(16).padStart(2, '0')}`;
