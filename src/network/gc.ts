// Reclaims addresses whose sandbox the runtime no longer has: a DEL that never came (the
// runtime crashed or lost state) or an ADD the agent crashed in the middle of.
import type { Logger } from '../log/index.js';
import type { Netlink } from '../netlink/index.js';
import type { Allocation, IPAM } from './ipam.js';

/**
 * Allocations to reclaim: their container is not among the runtime's sandboxes and they are
 * older than the grace period. containerd lists a sandbox only after its network is set up,
 * so a young allocation may belong to an ADD still running.
 */
export function staleAllocations(allocations: Allocation[], liveSandboxIDs: ReadonlySet<string>, nowMs: number, graceMs: number): Allocation[] {
  return allocations.filter((a) => !liveSandboxIDs.has(a.containerID) && nowMs - a.createdMs >= graceMs);
}

export interface GCContext {
  ipam: IPAM;
  netlink: Netlink;
  hostNetns: string | null;
  log: Logger;
}

/** One pass; returns what was reclaimed. */
export async function collectGarbage(ctx: GCContext, listSandboxIDs: () => Promise<string[]>, nowMs: number, graceMs: number): Promise<Allocation[]> {
  const before = ctx.ipam.list();
  const live = new Set(await listSandboxIDs());
  const stale = staleAllocations(before, live, nowMs, graceMs);
  for (const a of stale) {
    if (a.hostVeth && ctx.ipam.othersWithVeth(a.hostVeth, a.containerID).every((o) => stale.includes(o))) {
      await ctx.netlink.batch(ctx.hostNetns, [{ op: 'linkDel', name: a.hostVeth }]);
    }
    ctx.ipam.releaseIP(a.ip);
    ctx.log.info('reclaimed the address of a sandbox the runtime no longer has', { ip: a.ip, containerID: a.containerID, pod: a.pod, reason: 'SandboxGone' });
  }
  return stale;
}
