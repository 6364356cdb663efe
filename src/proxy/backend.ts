import type { ServicePortPlan } from './model.js';

export interface SyncResult {
  /** Operations (elements count one each) sent to the kernel; 0 when nothing changed. */
  operations: number;
  /** The table was replaced whole because the incremental change failed. */
  rebuilt: boolean;
  rules: number;
  elements: number;
  chains: number;
}

/** Turns plans into kernel state: nftables (addon or nft -f) or iptables-restore. */
export interface ProxyBackend {
  readonly mode: string;
  /** full: read the kernel's state back first and repair any drift. */
  sync(plans: readonly ServicePortPlan[], opts: { full: boolean }): Promise<SyncResult>;
  /** Removes everything this backend installed. */
  cleanup(): Promise<void>;
  /** Chains and sets left behind by partial syncs, to be removed by collect() a little later
   *  (nftables: once the kernel has freed the lapsed elements that still point at them). */
  readonly pendingCollect?: boolean;
  collect?(): Promise<boolean>;
}
