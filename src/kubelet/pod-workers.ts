// One worker per pod: syncs of a pod never overlap; a wake-up during a sync makes exactly
// one more sync afterwards; after each sync the next one is scheduled (the requested delay,
// else the resync period) on the injected clock. Different pods sync concurrently.
import type { Clock } from '../client/index.js';
import type { Logger } from '../log/index.js';
import { SyncRunner } from '../util/index.js';

export interface WorkerResult { requeueAfterMs?: number; done?: boolean }

export class PodWorkers {
  private entries = new Map<string, SyncRunner>();
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
    let w = this.entries.get(uid);
    if (!w) {
      const runner: SyncRunner = new SyncRunner(() => this.run(uid, runner), { clock: this.clock, startNow: true });
      this.entries.set(uid, runner);
      w = runner;
    }
    w.request(delayMs);
  }

  private async run(uid: string, w: SyncRunner): Promise<void> {
    let result: WorkerResult;
    try {
      result = await this.syncFn(uid);
    } catch (err) {
      this.log.warn('pod sync failed', { uid, error: (err as Error).message });
      result = { requeueAfterMs: this.errorRetryMs };
    }
    if (this.stopped) return;
    if (result.done) {
      // Finished for good, unless woken meanwhile: then the same worker syncs once more.
      if (!w.requestedAgain && this.entries.get(uid) === w) this.entries.delete(uid);
      return;
    }
    w.request(result.requeueAfterMs ?? this.resyncMs);
  }

  has(uid: string): boolean {
    return this.entries.has(uid);
  }

  uids(): string[] {
    return [...this.entries.keys()];
  }

  /** Resolves when no sync is running (tests). */
  async settle(): Promise<void> {
    while ([...this.entries.values()].some((w) => w.running)) await Promise.all([...this.entries.values()].map((w) => w.idle()));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.allSettled([...this.entries.values()].map((w) => w.stop()));
  }
}
