// One worker per pod: syncs of a pod never overlap; a wake-up during a sync makes exactly
// one more sync afterwards; after each sync the next one is scheduled (the requested delay,
// else the resync period) on the injected clock. Different pods sync concurrently.
import type { Clock } from '../client/index.js';
import type { Logger } from '../log/index.js';

export interface WorkerResult { requeueAfterMs?: number; done?: boolean }

interface Entry {
  running: boolean;
  dirty: boolean;
  timer?: unknown;
  dueAt?: number;
}

export class PodWorkers {
  private entries = new Map<string, Entry>();
  private inflight = new Set<Promise<void>>();
  private stopped = false;

  constructor(
    private syncFn: (uid: string) => Promise<WorkerResult>,
    private clock: Clock,
    private log: Logger,
    private resyncMs: number,
    private errorRetryMs = 2_000,
  ) {}

  /** Wakes the pod's worker now, or after `delayMs` (an earlier wake-up wins). */
  enqueue(uid: string, delayMs = 0): void {
    if (this.stopped) return;
    let e = this.entries.get(uid);
    if (!e) {
      e = { running: false, dirty: false };
      this.entries.set(uid, e);
    }
    if (delayMs > 0) {
      const at = this.clock.now() + delayMs;
      if (e.dueAt !== undefined && e.dueAt <= at) return;
      if (e.timer !== undefined) this.clock.clearTimeout(e.timer);
      e.dueAt = at;
      e.timer = this.clock.setTimeout(() => {
        e!.timer = undefined;
        e!.dueAt = undefined;
        this.enqueue(uid);
      }, delayMs);
      return;
    }
    if (e.running) {
      e.dirty = true;
      return;
    }
    if (e.timer !== undefined) {
      this.clock.clearTimeout(e.timer);
      e.timer = undefined;
      e.dueAt = undefined;
    }
    const p = this.run(uid, e).finally(() => this.inflight.delete(p));
    this.inflight.add(p);
  }

  private async run(uid: string, e: Entry): Promise<void> {
    e.running = true;
    let result: WorkerResult = {};
    do {
      e.dirty = false;
      try {
        result = await this.syncFn(uid);
      } catch (err) {
        this.log.warn('pod sync failed', { uid, error: (err as Error).message });
        result = { requeueAfterMs: this.errorRetryMs };
      }
    } while ((e.dirty || result.requeueAfterMs === 0) && !result.done && !this.stopped);
    e.running = false;
    if (this.stopped) return;
    if (result.done) {
      if (this.entries.get(uid) === e) this.entries.delete(uid);
      if (e.dirty) this.enqueue(uid);
      return;
    }
    this.enqueue(uid, result.requeueAfterMs ?? this.resyncMs);
  }

  has(uid: string): boolean {
    return this.entries.has(uid);
  }

  uids(): string[] {
    return [...this.entries.keys()];
  }

  /** Resolves when no sync is running (tests). */
  async settle(): Promise<void> {
    while (this.inflight.size) await Promise.all([...this.inflight]);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const e of this.entries.values()) if (e.timer !== undefined) this.clock.clearTimeout(e.timer);
    await Promise.allSettled([...this.inflight]);
  }
}
