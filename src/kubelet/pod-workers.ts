// One worker per pod: syncs of a pod never overlap; a wake-up during a sync makes exactly
// one more sync afterwards; after each sync the next one is scheduled (the requested delay,
// else the resync period) on the injected clock. Different pods sync concurrently.
import type { Clock } from '../client/index.js';
import type { Logger } from '../log/index.js';
import { SyncRunner } from '../util/index.js';
import type { SyncOperation } from './metrics.js';

export interface WorkerResult { requeueAfterMs?: number; done?: boolean }

/** Told of every finished sync: what it was for and how long it took. */
export type SyncObserver = (operation: SyncOperation, seconds: number) => void;

export class PodWorkers {
  private entries = new Map<string, SyncRunner>();
  /** Pods synced at least once by this process: a later sync is not a 'create'. */
  private synced = new Set<string>();
  /** Pods whose spec or metadata changed since their last sync. */
  private changed = new Set<string>();
  private stopped = false;

  constructor(
    private syncFn: (uid: string) => Promise<WorkerResult>,
    private clock: Clock,
    private log: Logger,
    private resyncMs: number,
    private errorRetryMs = 2_000,
    private observe: SyncObserver = () => undefined,
  ) {}

  /** Wakes the pod's worker now, or after `delayMs` (an earlier wake-up wins); `changed`: the pod itself changed. */
  enqueue(uid: string, delayMs = 0, changed = false): void {
    if (this.stopped) return;
    if (changed) this.changed.add(uid);
    let w = this.entries.get(uid);
    if (!w) {
      const runner: SyncRunner = new SyncRunner(() => this.run(uid, runner), { clock: this.clock, startNow: true });
      this.entries.set(uid, runner);
      w = runner;
    }
    w.request(delayMs);
  }

  private async run(uid: string, w: SyncRunner): Promise<void> {
    const operation: SyncOperation = !this.synced.has(uid) ? 'create' : this.changed.has(uid) ? 'update' : 'sync';
    this.changed.delete(uid);
    const started = this.clock.now();
    let result: WorkerResult;
    try {
      result = await this.syncFn(uid);
    } catch (err) {
      this.log.warn('pod sync failed', { uid, error: (err as Error).message });
      result = { requeueAfterMs: this.errorRetryMs };
    }
    this.synced.add(uid);
    this.observe(operation, (this.clock.now() - started) / 1000);
    if (this.stopped) return;
    if (result.done) {
      // Finished for good, unless woken meanwhile: then the same worker syncs once more.
      if (!w.requestedAgain && this.entries.get(uid) === w) {
        this.entries.delete(uid);
        this.synced.delete(uid);
        this.changed.delete(uid);
      }
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
