// Kubernetes' container restart backoff (flowcontrol.Backoff as the kubelet uses it): the
// first restart is immediate and starts a 10 s window; each restart inside a window
// doubles it up to 5 min; an entry untouched for twice the maximum (10 min of running)
// starts over.
export class Backoff {
  private entries = new Map<string, { durationMs: number; lastUpdate: number }>();

  constructor(private now: () => number, readonly initialMs = 10_000, readonly maxMs = 300_000) {}

  private fresh(key: string, now: number) {
    const e = this.entries.get(key);
    if (!e) return undefined;
    if (now - e.lastUpdate > 2 * this.maxMs) {
      this.entries.delete(key);
      return undefined;
    }
    return e;
  }

  /** Whether a restart for `key` must still wait, counting from `since` (the exit time). */
  inBackOffSince(key: string, since: number): boolean {
    const now = this.now();
    const e = this.fresh(key, now);
    return !!e && now - since < e.durationMs;
  }

  /** Records a restart: the next window is the initial one or double the last. */
  next(key: string): void {
    const now = this.now();
    const e = this.fresh(key, now);
    this.entries.set(key, { durationMs: e ? Math.min(e.durationMs * 2, this.maxMs) : this.initialMs, lastUpdate: now });
  }

  /** The current window for `key` in ms (0 when none). */
  get(key: string): number {
    return this.fresh(key, this.now())?.durationMs ?? 0;
  }

  /** When a restart may happen, counting from `since`. */
  readyAt(key: string, since: number): number {
    return since + this.get(key);
  }

  forgetPrefix(prefix: string): void {
    for (const k of this.entries.keys()) if (k.startsWith(prefix)) this.entries.delete(k);
  }
}

/** "10s", "1m20s", "5m0s" as Go's time.Duration prints whole seconds. */
export function goDuration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  return `${m}m${s % 60}s`;
}
