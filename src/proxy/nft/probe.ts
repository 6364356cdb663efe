// Whether this kernel lets a re-added set element take a new expiry (Linux 6.12 and later;
// before, the re-add is accepted and silently ignored). Found out once, in a scratch table,
// because partial syncs retire elements that way and must not trust it blindly.
import { NftTable, type NftDriver } from '../../nft/index.js';
import { DYING_MS, LIVE_MS } from './ruleset.js';
import type { RetireMode } from './incremental.js';
import { fallbacks } from '../../log/fallback.js';

export const PROBE_TABLE = 'capstan-proxy-probe';

const fallback = fallbacks('proxy');

export async function probeRetireMode(driver: NftDriver, netns: string | null): Promise<RetireMode> {
  const table = new NftTable(driver, { family: 'ip', name: PROBE_TABLE }, netns);
  const el = (expiresMs: number) => ({
    op: 'addElements' as const, set: 'probe', keyType: ['ipv4_addr' as const], elements: [{ key: ['192.0.2.1'] }], timeoutMs: LIVE_MS, expiresMs,
  });
  try {
    await table.apply([{ op: 'addTable' }, { op: 'addSet', set: { name: 'probe', keyType: ['ipv4_addr'], flags: ['timeout'] } }, el(LIVE_MS)]);
    await table.apply([el(60_000)]);
    const left = (await table.list()).sets.find((s) => s.name === 'probe')?.elements[0]?.expiresMs;
    return left !== undefined && left < DYING_MS ? 'expiry' : 'delete';
  } finally {
    await table.remove().catch((e: unknown) => fallback('probe-table-not-removed', { error: e }));
  }
}
