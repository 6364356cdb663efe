// Kubernetes' container restart backoff (flowcontrol.Backoff as the kubelet uses it): the
// first restart is immediate and starts a 10 s window; each restart inside a window
// doubles it up to 5 min; an entry untouched for twice the maximum (10 min of running)
// starts over.
import { KeyedBackoff } from '../util/index.js';

export class Backoff {
  private readonly keyed: KeyedBackoff;

  constructor(private now: () => number, readonly initialMs = 10_000, readonly maxMs = 300_000) {
    this.keyed = new KeyedBackoff({ initialMs, maxMs, resetAfterMs: 2 * maxMs }, now);
  }

  /** Whether a restart for `key` must still wait, counting from `since` (the exit time). */
  inBackOffSince(key: string, since: number): boolean {
    return this.now() - since < this.keyed.get(key);
  }

  /** Records a restart: the next window is the initial one or double the last. */
  next(key: string): void {
    this.keyed.next(key);
  }

  /** The current window for `key` in ms (0 when none). */
  get(key: string): number {
    return this.keyed.get(key);
  }

  /** When a restart may happen, counting from `since`. */
  readyAt(key: string, since: number): number {
    return since + this.get(key);
  }

  forgetPrefix(prefix: string): void {
    this.keyed.forgetPrefix(prefix);
  }
}
