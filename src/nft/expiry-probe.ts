// Whether this kernel lets a re-added set element take a new expiry (Linux 6.12 and later;
// before, the re-add is accepted and silently ignored). Retiring an element by re-adding it
// with a short expiry — a change without a delete, so without an RCU grace period — is only
// sound where it does; found out once, in a scratch table of the caller's naming.
import { NftTable } from './client.js';
import type { NftDriver } from './types.js';

const LONG_MS = 3650 * 86_400_000;
const DAY_MS = 86_400_000;

/** `onCleanupError`: the scratch table would not go (the answer still stands). */
export async function reAddUpdatesExpiry(driver: NftDriver, netns: string | null, scratchTable: string, onCleanupError: (e: unknown) => void): Promise<boolean> {
  const table = new NftTable(driver, { family: 'ip', name: scratchTable }, netns);
  const el = (expiresMs: number) => ({
    op: 'addElements' as const, set: 'probe', keyType: ['ipv4_addr' as const], elements: [{ key: ['192.0.2.1'] }], timeoutMs: LONG_MS, expiresMs,
  });
  try {
    await table.apply([{ op: 'addTable' }, { op: 'addSet', set: { name: 'probe', keyType: ['ipv4_addr'], flags: ['timeout'] } }, el(LONG_MS)]);
    await table.apply([el(60_000)]);
    const left = (await table.list()).sets.find((s) => s.name === 'probe')?.elements[0]?.expiresMs;
    return left !== undefined && left < DAY_MS;
  } finally {
    await table.remove().catch(onCleanupError);
  }
}
