// A hollow node's service proxy: the real Proxier and nftables backend (plans, partial and
// full syncs, incremental state) syncing into the in-memory nftables driver, with the node's
// own informers, as each real node's proxy watches Services and EndpointSlices itself.
// Nothing is dialled and no kernel is touched: endpoints only land in the fake's sets.
import { FakeNft, type Applied, type NftDriver, type NftOp, type TableRef, type TableState } from '../nft/index.js';
import { resources, SharedInformerFactory, type ClientsetAPI } from '../client/index.js';
import type { Logger } from '../log/index.js';
import { Proxier } from './proxier.js';
import { NftBackend } from './nft/backend.js';
import type { ProxyConfig } from './model.js';

/** Called after each committed transaction, with when it committed (performance.now()). */
export type AppliedListener = (ops: readonly NftOp[], at: number) => void;

/** The in-memory driver, telling a listener what each committed transaction contained. */
class ObservedNft implements NftDriver {
  readonly name = 'fake';
  private readonly inner = new FakeNft();
  constructor(private readonly onApplied?: AppliedListener) {}
  async apply(netns: string | null, table: TableRef, ops: NftOp[]): Promise<Applied> {
    const r = await this.inner.apply(netns, table, ops);
    this.onApplied?.(ops, performance.now());
    return r;
  }
  list(netns: string | null, table: TableRef): Promise<TableState> {
    return this.inner.list(netns, table);
  }
  generation(): Promise<number> {
    return this.inner.generation();
  }
}

export interface HollowProxyOptions {
  nodeName: string;
  /** This node's own client (its watches are its own, as a real node's). */
  clients: ClientsetAPI;
  log: Logger;
  clusterCIDR?: string;
  minSyncPeriodMs?: number;
  syncPeriodMs?: number;
  onApplied?: AppliedListener;
}

export class HollowProxy {
  readonly proxier: Proxier;
  private readonly informers: SharedInformerFactory;

  constructor(private readonly o: HollowProxyOptions) {
    const cfg: ProxyConfig = { nodeName: o.nodeName, ...(o.clusterCIDR ? { clusterCIDR: o.clusterCIDR } : {}) };
    const log = o.log.with({ node: o.nodeName });
    this.informers = new SharedInformerFactory(o.clients, { log, resyncMs: 0 });
    // The expiry mode is what current kernels do (Linux ≥ 6.12); the fake follows it, and
    // probing a fake kernel per node would only add three transactions each.
    const backend = new NftBackend(new ObservedNft(o.onApplied), cfg, null, undefined, { retire: 'expiry' });
    this.proxier = new Proxier({
      services: this.informers.informerFor(resources.services),
      slices: this.informers.informerFor(resources.endpointslices),
      backend, config: cfg, log,
      ...(o.minSyncPeriodMs !== undefined ? { minSyncPeriodMs: o.minSyncPeriodMs } : {}),
      ...(o.syncPeriodMs !== undefined ? { syncPeriodMs: o.syncPeriodMs } : {}),
    });
  }

  /** Starts watching and syncing; resolves after the first sync. */
  async start(): Promise<void> {
    this.informers.start();
    await this.informers.waitForCacheSync();
    const first = this.proxier.nextSync();
    this.proxier.start();
    await first;
  }

  async stop(): Promise<void> {
    await this.proxier.stop();
    await this.informers.stop();
    this.o.clients.close?.();
  }
}
