// The coalescing loop behind every level-based syncer (proxy rules, node routes, DNS
// endpoints, pod workers): callers only say "sync soon"; passes never overlap, and any
// number of requests fold into one pass.
import { realClock, type Clock } from './clock.js';

/** A delay in ms, or a function computing it when the request is scheduled (for a request
 *  made during a pass: when that pass ends, so it can count from the pass's outcome). */
export type Delay = number | (() => number);

export interface SyncRunnerOptions {
  clock?: Clock;
  /** A request without delay starts the pass in the caller's turn instead of on a zero
   *  timer. Default false: requests made in one turn then fold into one pass. */
  startNow?: boolean;
  /** A pass that throws lands here and the runner goes on. A pass should own its errors (log,
   *  then `request` or `retry`); without this option a throw is a bug and is printed as a
   *  process warning — never silently, and never by crashing the process it runs in. */
  onError?: (e: unknown) => void;
}

/**
 * Runs `pass` on request. Contract:
 * - at most one pass runs at a time;
 * - `request(d)` asks for a pass `d` ms from now; with one already pending, the earlier wins;
 * - requests made while a pass runs make exactly one more pass after it, after the smallest
 *   of their delays counted from its end;
 * - `retry(ms)`, called by a failing pass, schedules the next pass `ms` after it ends and
 *   drops the requests made during it (a backoff is not cut short by events that arrived
 *   meanwhile; a request after the pass still is honoured as usual);
 * - after `stop()` nothing new runs until `resume()`; it resolves once the running pass is done.
 */
export class SyncRunner {
  private readonly clock: Clock;
  private timer: unknown;
  private dueAt?: number;
  private current?: Promise<void>;
  private pending: Delay[] = [];
  private retryMs?: number;
  private stopped = false;

  constructor(private readonly pass: () => Promise<void>, private readonly opts: SyncRunnerOptions = {}) {
    this.clock = opts.clock ?? realClock;
  }

  request(delay: Delay = 0): void {
    if (this.stopped) return;
    if (this.current) {
      this.pending.push(delay);
      return;
    }
    const ms = Math.max(0, typeof delay === 'function' ? delay() : delay);
    if (ms === 0 && this.opts.startNow) {
      this.cancelTimer();
      this.start();
      return;
    }
    const at = this.clock.now() + ms;
    if (this.timer !== undefined) {
      if (this.dueAt! <= at) return;
      this.clock.clearTimeout(this.timer);
    }
    this.dueAt = at;
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      this.dueAt = undefined;
      this.start();
    }, ms);
  }

  /** From inside a failing pass: the next pass runs `ms` after this one ends, not sooner. */
  retry(ms: number): void {
    if (this.current) this.retryMs = Math.min(this.retryMs ?? Infinity, ms);
    else this.request(ms);
  }

  /** Whether a pass is running. */
  get running(): boolean {
    return this.current !== undefined;
  }

  /** Inside a pass: whether requests arrived since it started (it will run again). */
  get requestedAgain(): boolean {
    return this.pending.length > 0;
  }

  /** Whether a pass is waiting on its timer. */
  get scheduled(): boolean {
    return this.timer !== undefined;
  }

  /** Resolves when no pass runs (also none started right after by a pending request). */
  async idle(): Promise<void> {
    while (this.current) await this.current;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.cancelTimer();
    this.pending = [];
    await this.idle();
  }

  resume(): void {
    this.stopped = false;
  }

  private cancelTimer(): void {
    if (this.timer === undefined) return;
    this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.dueAt = undefined;
  }

  private start(): void {
    if (this.stopped) return;
    const run = async () => {
      try {
        await this.pass();
      } catch (e) {
        if (this.opts.onError) this.opts.onError(e);
        else process.emitWarning(e instanceof Error ? e : new Error(String(e)), 'SyncRunnerPassFailed');
      }
    };
    this.current = run().finally(() => {
      this.current = undefined;
      const pending = this.pending;
      const retry = this.retryMs;
      this.pending = [];
      this.retryMs = undefined;
      if (retry !== undefined) this.request(retry);
      else if (pending.length) this.request(Math.min(...pending.map((d) => Math.max(0, typeof d === 'function' ? d() : d))));
    });
  }
}
