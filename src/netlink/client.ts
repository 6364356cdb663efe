import { throwOnFailure } from './errors.js';
import type { AddrInfo, BatchOptions, LinkInfo, NeighInfo, NetlinkDriver, NetlinkOp, NetnsPath, OpResult, RouteInfo } from './types.js';

/**
 * Typed calls over any driver. `apply` is the workhorse (one round trip, throws
 * NetlinkError naming the failing op); the list helpers are single-op batches.
 */
export class Netlink {
  constructor(readonly driver: NetlinkDriver) {}

  /** Per-operation results; never throws for kernel errors. */
  batch(netns: NetnsPath, ops: NetlinkOp[], options?: BatchOptions): Promise<OpResult[]> {
    return this.driver.batch(netns, ops, options);
  }

  /** All-or-stop: runs ops in order and throws NetlinkError at the first failure. */
  async apply(netns: NetnsPath, ops: NetlinkOp[]): Promise<OpResult[]> {
    const results = await this.driver.batch(netns, ops);
    throwOnFailure(ops, results);
    return results;
  }

  private async one(netns: NetnsPath, op: NetlinkOp): Promise<OpResult & { status: 'ok' }> {
    const [r] = await this.apply(netns, [op]);
    return r as OpResult & { status: 'ok' };
  }

  async links(netns: NetnsPath): Promise<LinkInfo[]> {
    return (await this.one(netns, { op: 'linkList' })).links ?? [];
  }

  async addrs(netns: NetnsPath, family?: 4 | 6): Promise<AddrInfo[]> {
    return (await this.one(netns, { op: 'addrList', family })).addrs ?? [];
  }

  /** Routes of every table; filter by `table`/`protocol` to find only capstan's own. */
  async routes(netns: NetnsPath, family: 4 | 6 = 4, filter: { table?: number; protocol?: number } = {}): Promise<RouteInfo[]> {
    const all = (await this.one(netns, { op: 'routeList', family })).routes ?? [];
    return all.filter((r) => (filter.table === undefined || r.table === filter.table) && (filter.protocol === undefined || r.protocol === filter.protocol));
  }

  async neighbours(netns: NetnsPath, family?: 4 | 6): Promise<NeighInfo[]> {
    return (await this.one(netns, { op: 'neighList', family })).neighs ?? [];
  }

  async fdb(netns: NetnsPath): Promise<NeighInfo[]> {
    return (await this.one(netns, { op: 'fdbList' })).neighs ?? [];
  }

  async sysctl(netns: NetnsPath, path: string): Promise<string> {
    return (await this.one(netns, { op: 'sysctlRead', path })).value ?? '';
  }
}
