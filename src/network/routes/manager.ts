// Layer 3: the driver. Reads the kernel in one batch, computes desired state from the Node
// cache, applies the diff in one batch, publishes this node's VTEP on its Node object.
//
//   Node informer ──(relevant change)──► kick() ──► sync(): one at a time, folded
//   sync failed ──► retry after backoff (200 ms … 10 s)      every resyncMs ──► sync()
import { realClock, resources, type ClientsetAPI, type Clock, type SharedInformer } from '../../client/index.js';
import type { Logger } from '../../log/index.js';
import { Backoff, SyncRunner } from '../../util/index.js';
import type { Cidr } from '../cidr.js';
import type { Netlink, NetlinkOp, NetnsPath, OpResult } from '../../netlink/index.js';
import { desiredRoutes, nodeFacts } from './desired.js';
import { diffState, type KernelState } from './diff.js';
import { ANNOTATION_DEFAULT_ENCAPSULATION, ANNOTATION_TUNNEL_ADDR, ANNOTATION_TUNNEL_MAC, ANNOTATION_UPLINK, type DesiredState, type EncapsulationMode, type Uplink } from './model.js';
import type { Node } from '../../api/kinds.js';

export interface RoutesManagerOptions {
  netlink: Netlink;
  /** The node's network namespace (null: the caller's own). */
  netns: NetnsPath;
  nodeName: string;
  /** An informer over all Nodes; the manager adds a handler, the owner starts it. */
  nodes: SharedInformer<Node>;
  /** Publishes this node's VTEP annotations; without it they must be set by someone else. */
  clients?: ClientsetAPI;
  /** `--encapsulation`; a Node's `capstan.io/encapsulation` annotation overrides it for that node. */
  mode?: EncapsulationMode;
  /** `--cluster-cidr`: made unreachable, so blocks of nodes without a route never leave the node. */
  clusterCIDR?: Cidr;
  clock?: Clock;
  /** Full resync period (drift repair). Default 30 s. */
  resyncMs?: number;
  backoffInitialMs?: number;
  backoffMaxMs?: number;
  log: Logger;
}

export interface SyncResult {
  ops: NetlinkOp[];
  failed: { op: NetlinkOp; code: string }[];
  desired?: DesiredState;
  /** Nothing done: the Node cache has not synced, or the own Node or its InternalIP is missing. */
  waiting?: boolean;
}

/**
 * Keeps routes to every other node's block in `netns`. Contract: `start()` after the
 * informer is started; syncs never overlap; nothing is changed until the informer has
 * synced and the own Node is known (an empty cache must not wipe a working node's routes).
 */
export class RoutesManager {
  private readonly clock: Clock;
  private readonly mode: EncapsulationMode;
  private readonly runner: SyncRunner;
  private readonly backoff: Backoff;
  private started = false;
  private stopped = false;
  private lastSkipped = '[]';
  /** The last completed sync (for tests and health). */
  last?: SyncResult & { at: number; error?: string };

  constructor(private readonly o: RoutesManagerOptions) {
    this.clock = o.clock ?? realClock;
    this.mode = o.mode ?? 'CrossSubnet';
    this.runner = new SyncRunner(() => this.pass(), { clock: this.clock });
    this.backoff = new Backoff({ initialMs: o.backoffInitialMs ?? 200, maxMs: o.backoffMaxMs ?? 10_000 });
    o.nodes.addEventHandler({
      onAdd: () => this.kick(),
      onUpdate: (a, b) => { if (relevant(a) !== relevant(b)) this.kick(); },
      onDelete: () => this.kick(),
    });
  }

  start(): void {
    this.started = true;
    this.kick();
  }

  /** Asks for a sync soon; folds with one already pending or running. */
  kick(): void {
    if (!this.started || this.stopped) return;
    this.runner.request(0);
  }

  private async pass(): Promise<void> {
    await this.syncOnce().then((r) => this.afterSync(r), (e: Error) => this.afterSync(undefined, e));
  }

  private afterSync(r: SyncResult | undefined, e?: Error): void {
    const error = e?.message ?? (r && r.failed.length ? r.failed.map((f) => `${f.op.op} ${f.code}`).join(', ') : undefined);
    this.last = { ops: r?.ops ?? [], failed: r?.failed ?? [], desired: r?.desired, at: this.clock.now(), error };
    if (this.stopped) return;
    if (error) {
      const delay = this.backoff.next();
      this.o.log.warn('route sync failed; will retry', { error, retryInMs: delay });
      this.runner.retry(delay);
    } else {
      this.backoff.reset();
      this.runner.request(r?.waiting ? 1000 : this.o.resyncMs ?? 30_000);
    }
  }

  /** One level-based pass: read kernel, compute, apply, publish. Throws on read errors. */
  async syncOnce(): Promise<SyncResult> {
    const self = this.o.nodes.hasSynced() ? this.o.nodes.lister.get(undefined, this.o.nodeName) : undefined;
    const ownIP = self && nodeFacts(self).internalIP;
    if (!self || !ownIP) return { ops: [], failed: [], waiting: true };
    const kernel = await this.readKernel();
    const uplink = findUplink(kernel, ownIP);
    if (!uplink) throw new Error(`no interface holds this node's InternalIP ${ownIP}`);
    const desired = desiredRoutes(this.o.nodeName, this.o.nodes.lister.list(), this.mode, uplink, this.o.clusterCIDR);
    const skipped = JSON.stringify(desired.skipped);
    if (skipped !== this.lastSkipped) {
      this.lastSkipped = skipped;
      if (desired.skipped.length) this.o.log.info('nodes without a route', { nodes: desired.skipped });
    }
    const ops = diffState(desired, kernel);
    const failed: SyncResult['failed'] = [];
    if (ops.length) {
      const results = await this.o.netlink.batch(this.o.netns, ops, { continueOnError: true });
      results.forEach((res, i) => { if (res.status === 'error') failed.push({ op: ops[i]!, code: res.code }); });
      this.o.log.info('applied route changes', { ops: ops.length, failed: failed.length, routes: desired.routes.length, unreachable: desired.unreachable.map((u) => u.dst) });
    }
    await this.publish(self, desired, uplink);
    return { ops, failed, desired };
  }

  private async readKernel(): Promise<KernelState> {
    const r = await this.o.netlink.batch(this.o.netns, [
      { op: 'linkList' }, { op: 'addrList', family: 4 }, { op: 'routeList', family: 4 }, { op: 'neighList', family: 4 }, { op: 'fdbList' },
    ]);
    const ok = (x: OpResult | undefined) => {
      if (x?.status !== 'ok') throw new Error(`reading kernel state: ${x?.status === 'error' ? x.code : 'skipped'}`);
      return x;
    };
    return { links: ok(r[0]).links ?? [], addrs: ok(r[1]).addrs ?? [], routes: ok(r[2]).routes ?? [], neighs: ok(r[3]).neighs ?? [], fdb: ok(r[4]).neighs ?? [] };
  }

  /** The own VTEP on the own Node, so other nodes can build FDB/neighbour entries for it; and
   *  the uplink and default mode, so a viewer can tell which pairs of nodes tunnel. */
  private async publish(self: Node, desired: DesiredState, uplink: Uplink): Promise<void> {
    if (!this.o.clients) return;
    const dev = desired.vxlanDevice;
    const want = {
      [ANNOTATION_TUNNEL_MAC]: dev?.address ? dev.mac : null, [ANNOTATION_TUNNEL_ADDR]: dev?.address ? dev.address.split('/')[0]! : null,
      [ANNOTATION_UPLINK]: `${uplink.address}/${uplink.prefixLen}`, [ANNOTATION_DEFAULT_ENCAPSULATION]: this.mode,
    };
    const have = self.metadata.annotations ?? {};
    if (Object.entries(want).every(([k, v]) => (have[k] ?? null) === v)) return;
    await this.o.clients.resource(resources.nodes).patch(undefined, this.o.nodeName, 'merge', { metadata: { annotations: want } });
    this.o.log.info('published the VXLAN tunnel endpoint and uplink', { mac: want[ANNOTATION_TUNNEL_MAC], address: want[ANNOTATION_TUNNEL_ADDR], uplink: want[ANNOTATION_UPLINK] });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.runner.stop();
  }
}

function findUplink(k: KernelState, ip: string | undefined): Uplink | undefined {
  const a = ip ? k.addrs.find((x) => x.family === 4 && x.address === ip) : undefined;
  const link = a && k.links.find((l) => l.name === a.dev);
  return a && link ? { name: a.dev, address: a.address, prefixLen: a.prefixLen, mtu: link.mtu } : undefined;
}

/** What of a Node routing reads; heartbeats (status conditions) change none of it. */
function relevant(n: Node): string {
  const f = nodeFacts(n);
  return JSON.stringify([f.internalIP, n.spec?.podCIDR, f.mode, f.tunnelMac, f.tunnelAddr]);
}
