// A work queue of keys, after client-go's workqueue: a key waiting is stored once however
// often it is added (dirty set), a key being processed is never handed to a second worker
// (processing set; re-adds wait until done), retries back off exponentially per key, and
// shutdown lets workers drain what is in flight.
import { realClock, type Clock } from './clock.js';

export interface RateLimiter {
  /** How long to wait before retrying `key` this time. */
  when(key: string): number;
  forget(key: string): void;
  retries(key: string): number;
}

/** Per-key exponential backoff: base × 2^failures, capped. */
export class ExponentialRateLimiter implements RateLimiter {
  private failures = new Map<string, number>();
  constructor(private baseMs = 5, private maxMs = 1000 * 1000) {}
  when(key: string): number {
    const n = this.failures.get(key) ?? 0;
    this.failures.set(key, n + 1);
    return Math.min(this.baseMs * 2 ** n, this.maxMs);
  }
  forget(key: string): void {
    this.failures.delete(key);
  }
  retries(key: string): number {
    return this.failures.get(key) ?? 0;
  }
}

export class WorkQueue {
  private queue: string[] = [];
  private dirty = new Set<string>();
  private processing = new Set<string>();
  private waiters: ((key: string | undefined) => void)[] = [];
  private timers = new Map<string, { at: number; handle: unknown }>();
  private shuttingDown = false;
  private drainWaiters: (() => void)[] = [];

  constructor(private clock: Clock = realClock, readonly rateLimiter: RateLimiter = new ExponentialRateLimiter()) {}

  add(key: string): void {
    if (this.shuttingDown || this.dirty.has(key)) return;
    this.dirty.add(key);
    if (this.processing.has(key)) return;
    const w = this.waiters.shift();
    if (w) {
      this.dirty.delete(key);
      this.processing.add(key);
      w(key);
    } else {
      this.queue.push(key);
    }
  }

  /** Adds `key` after `ms`; an earlier pending delayed add for the same key wins. */
  addAfter(key: string, ms: number): void {
    if (this.shuttingDown) return;
    if (ms <= 0) return this.add(key);
    const at = this.clock.now() + ms;
    const existing = this.timers.get(key);
    if (existing && existing.at <= at) return;
    if (existing) this.clock.clearTimeout(existing.handle);
    const handle = this.clock.setTimeout(() => {
      this.timers.delete(key);
      this.add(key);
    }, ms);
    this.timers.set(key, { at, handle });
  }

  addRateLimited(key: string): void {
    this.addAfter(key, this.rateLimiter.when(key));
  }

  forget(key: string): void {
    this.rateLimiter.forget(key);
  }

  /** The next key, or undefined once the queue is shut down and empty. */
  get(): Promise<string | undefined> {
    const key = this.queue.shift();
    if (key !== undefined) {
      this.dirty.delete(key);
      this.processing.add(key);
      return Promise.resolve(key);
    }
    if (this.shuttingDown) return Promise.resolve(undefined);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Marks `key` finished; if it was added meanwhile it goes back in line. */
  done(key: string): void {
    this.processing.delete(key);
    if (this.dirty.has(key) && !this.shuttingDown) {
      this.queue.push(key);
      this.wakeOne();
    } else this.dirty.delete(key);
    if (this.shuttingDown && this.processing.size === 0) for (const d of this.drainWaiters.splice(0)) d();
  }

  private wakeOne(): void {
    const w = this.waiters.shift();
    if (!w) return;
    const key = this.queue.shift()!;
    this.dirty.delete(key);
    this.processing.add(key);
    w(key);
  }

  get length(): number {
    return this.queue.length;
  }

  /** Stops accepting keys; waiting workers get undefined; resolves when in-flight work is done. */
  shutDown(): Promise<void> {
    this.shuttingDown = true;
    for (const { handle } of this.timers.values()) this.clock.clearTimeout(handle);
    this.timers.clear();
    this.queue = [];
    this.dirty.clear();
    for (const w of this.waiters.splice(0)) w(undefined);
    if (this.processing.size === 0) return Promise.resolve();
    return new Promise((r) => this.drainWaiters.push(r));
  }

  get isShuttingDown(): boolean {
    return this.shuttingDown;
  }
}
