// How often a node's failed daemon pod is killed and replaced, after upstream's
// failedPodsBackoff (flowcontrol.Backoff, 1 s doubling to 15 min): a pod that fails at once
// again on the same node waits out the window before the next kill, instead of a hot loop.
import type { Clock } from '../../client/index.js';
import { KeyedBackoff } from '../../util/index.js';

export class FailedPodBackoff {
  private readonly windows: KeyedBackoff;
  private readonly lastKill = new Map<string, number>();

  constructor(private clock: Clock, initialMs = 1000, maxMs = 15 * 60_000) {
    this.windows = new KeyedBackoff({ initialMs, maxMs, resetAfterMs: 2 * maxMs }, () => clock.now());
  }

  /** Milliseconds before the failed pod of `ds` on `node` may be killed; 0 when it may be now. */
  wait(ds: string, node: string): number {
    const key = `${ds}/${node}`;
    const last = this.lastKill.get(key);
    if (last === undefined) return 0;
    return Math.max(0, last + this.windows.get(key) - this.clock.now());
  }

  /** Records a kill: the next window is the initial one or double the last. */
  killed(ds: string, node: string): void {
    const key = `${ds}/${node}`;
    this.windows.next(key);
    this.lastKill.set(key, this.clock.now());
  }

  forget(ds: string): void {
    this.windows.forgetPrefix(`${ds}/`);
    for (const k of this.lastKill.keys()) if (k.startsWith(`${ds}/`)) this.lastKill.delete(k);
  }
}
