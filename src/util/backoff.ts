// Exponential backoff, one implementation for every retry loop: a failure waits
// initial × factor^n (capped at max), optionally stretched by jitter; success resets.

/** The shape of a backoff. Jitter follows Kubernetes' wait.Jitter: a delay d becomes
 *  d + random × jitter × d, so 0 (the default) keeps delays exact and testable. */
export interface BackoffPolicy {
  initialMs: number;
  maxMs: number;
  /** Growth per failure; default 2. */
  factor?: number;
  /** 0..1; default 0 (no jitter). */
  jitter?: number;
  /** Keyed only: an entry untouched this long starts over (client-go flowcontrol's 2 × max). */
  resetAfterMs?: number;
}

/** The capped, unjittered delay after `failures` earlier failures (0 → initialMs). */
export function backoffDelay(p: BackoffPolicy, failures: number): number {
  return Math.min(p.maxMs, p.initialMs * (p.factor ?? 2) ** Math.min(failures, 1000));
}

function jittered(p: BackoffPolicy, ms: number, random: () => number): number {
  return p.jitter ? ms + random() * p.jitter * ms : ms;
}

/**
 * One retry loop's backoff. Contract: call `next()` after each failure and wait what it
 * returns (initial, then ×factor up to max); call `reset()` after a success. Not shared
 * between loops; `random` is injectable so jittered delays are reproducible in tests.
 */
export class Backoff {
  private n = 0;
  constructor(readonly policy: BackoffPolicy, private random: () => number = Math.random) {}

  /** Records a failure; returns how long to wait before the next attempt. */
  next(): number {
    return jittered(this.policy, backoffDelay(this.policy, this.n++), this.random);
  }

  /** Failures since the last reset. */
  get failures(): number {
    return this.n;
  }

  reset(): void {
    this.n = 0;
  }
}

interface Entry { failures: number; delayMs: number; lastUpdate: number }

/**
 * Backoff per key (work-queue items, containers, image pulls). `next(key)` records a
 * failure and returns that key's delay; `get(key)` reads the current delay without
 * recording one; `forget` resets. With `resetAfterMs`, a key not failed for that long
 * starts over, measured on `now` (the injected clock).
 */
export class KeyedBackoff {
  private entries = new Map<string, Entry>();
  constructor(readonly policy: BackoffPolicy, private now: () => number = Date.now, private random: () => number = Math.random) {}

  private fresh(key: string, now: number): Entry | undefined {
    const e = this.entries.get(key);
    if (e && this.policy.resetAfterMs !== undefined && now - e.lastUpdate > this.policy.resetAfterMs) {
      this.entries.delete(key);
      return undefined;
    }
    return e;
  }

  /** Records a failure of `key`; returns its delay (initial on the first, then ×factor, capped). */
  next(key: string): number {
    const now = this.now();
    const failures = this.fresh(key, now)?.failures ?? 0;
    const delayMs = jittered(this.policy, backoffDelay(this.policy, failures), this.random);
    this.entries.set(key, { failures: failures + 1, delayMs, lastUpdate: now });
    return delayMs;
  }

  /** The delay the last failure of `key` earned (0 when none, or reset). */
  get(key: string): number {
    return this.fresh(key, this.now())?.delayMs ?? 0;
  }

  /** Failures of `key` since it was last forgotten (or reset by age). */
  failures(key: string): number {
    return this.fresh(key, this.now())?.failures ?? 0;
  }

  forget(key: string): void {
    this.entries.delete(key);
  }

  forgetPrefix(prefix: string): void {
    for (const k of this.entries.keys()) if (k.startsWith(prefix)) this.entries.delete(k);
  }
}
