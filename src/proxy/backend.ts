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

export interface SyncOptions {
  /** Read the kernel's state back first and repair any drift. */
  full: boolean;
  /** What changed since the last sync, when the caller knows: the plans of the services
   *  that changed (new or updated) and the ids of service ports that went away. Every plan
   *  not named is the same object as last time. Lets a partial sync cost what changed even
   *  when there are 30,000 plans to skip. */
  changed?: { plans: readonly ServicePortPlan[]; removed: readonly string[] };
}

/** Turns plans into kernel state: nftables (addon or nft -f) or iptables-restore. */
export interface ProxyBackend {
  readonly mode: string;
  /** full: read the kernel's state back first and repair any drift. */
  sync(plans: readonly ServicePortPlan[], opts: SyncOptions): Promise<SyncResult>;
  /** Removes everything this backend installed. */
  cleanup(): Promise<void>;
  /** Chains and sets left behind by partial syncs, to be removed by collect() a little later
   *  (nftables: once the kernel has freed the lapsed elements that still point at them). */
  readonly pendingCollect?: boolean;
  /** How long after a sync the old rules may still take new flows (nftables: until retired
   *  elements lapse). Conntrack entries of removed endpoints are deleted only after that. */
  readonly settleMs?: number;
  collect?(): Promise<boolean>;
  /** Releases what the backend holds open between syncs (a later sync opens it again). */
  close?(): void;
}
