// Whether this kernel lets a re-added set element take a new expiry (Linux 6.12 and later;
// before, the re-add is accepted and silently ignored). Found out once, in a scratch table,
// because partial syncs retire elements that way and must not trust it blindly.
import { reAddUpdatesExpiry, type NftDriver } from '../../nft/index.js';
import type { RetireMode } from './incremental.js';
import { fallbacks } from '../../log/fallback.js';

export const PROBE_TABLE = 'capstan-proxy-probe';

const fallback = fallbacks('proxy');

export async function probeRetireMode(driver: NftDriver, netns: string | null): Promise<RetireMode> {
  const expiry = await reAddUpdatesExpiry(driver, netns, PROBE_TABLE, (e) => fallback('probe-table-not-removed', { error: e }));
  return expiry ? 'expiry' : 'delete';
}
