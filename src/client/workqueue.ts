// A work queue of keys, after client-go's workqueue: a key waiting is stored once however
// often it is added (dirty set), a key being processed is never handed to a second worker
// (processing set; re-adds wait until done), retries back off exponentially per key, and
// shutdown lets workers drain what is in flight. Given a registry and a name, it reports
// upstream's workqueue_* metrics there (workqueue-metrics.ts).
import type { Registry } from 'prom-client';
import { KeyedBackoff } from '../util/index.js';
import { realClock, type Clock } from './clock.js';
import { QueueMetrics } from './workqueue-metrics.js';

export interface RateLimiter {
  /** How long to wait before retrying `key` this time. */
  when(key: string): number;
  forget(key: string): void;
  retries(key: string): number;
}

/** Per-key exponential backoff: base × 2^failures, capped. */
export class ExponentialRateLimiter implements RateLimiter {
  private readonly backoff: KeyedBackoff;
  constructor(baseMs = 5, maxMs = 1000 * 1000) {
    this.backoff = new KeyedBackoff({ initialMs: baseMs, maxMs });
  }
  when(key: string): number {
    return this.backoff.next(key);
  }
  forget(key: string): void {
    this.backoff.forget(key);
  }
  retries(key: string): number {
    return this.backoff.failures(key);
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
  private metrics?: QueueMetrics;

  constructor(private clock: Clock = realClock, readonly rateLimiter: RateLimiter = new ExponentialRateLimiter(), metrics?: { name: string; registry: Registry }) {
    if (metrics) this.metrics = new QueueMetrics(metrics.name, metrics.registry, clock, () => this.dirty.size);
  }

  add(key: string): void {
    if (this.shuttingDown || this.dirty.has(key)) return;
    this.dirty.add(key);
    this.metrics?.added(key);
    if (this.processing.has(key)) return;
    const w = this.waiters.shift();
    if (w) {
      this.dirty.delete(key);
      this.processing.add(key);
      this.metrics?.started(key);
      w(key);
    } else {
      this.queue.push(key);
    }
  }

  /** Adds `key` after `ms`; an earlier pending delayed add for the same key wins. */
  addAfter(key: string, ms: number): void {
    if (this.shuttingDown) return;
    this.metrics?.retried();
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
      this.metrics?.started(key);
      return Promise.resolve(key);
    }
    if (this.shuttingDown) return Promise.resolve(undefined);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Marks `key` finished; if it was added meanwhile it goes back in line. */
  done(key: string): void {
    this.metrics?.finished(key);
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
    this.metrics?.started(key);
    w(key);
  }

  get length(): number {
    return this.queue.length;
  }

  /** Nothing waiting and nothing being processed (delayed adds not yet due do not count). */
  get idle(): boolean {
    return this.queue.length === 0 && this.processing.size === 0;
  }

  /** Stops accepting keys; waiting workers get undefined; resolves when in-flight work is done. */
  shutDown(): Promise<void> {
    this.shuttingDown = true;
    this.metrics?.close();
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
