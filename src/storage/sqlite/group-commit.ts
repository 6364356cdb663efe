// Group commit: writes issued in the same event-loop turn share one transaction, so one fsync
// acknowledges all of them. Each operation does its checks before it writes anything, so a
// StoreError (KeyExists, Conflict, ...) fails that operation alone; any other error rolls the
// whole batch back and fails every operation in it.
import type Database from 'better-sqlite3';
import { StoreError, type WatchEvent } from '../store.js';

export type WriteOp<T> = (events: WatchEvent[]) => T;

interface Pending {
  op: WriteOp<unknown>;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

export interface GroupCommitHooks {
  committed(events: WatchEvent[]): void;
  /** The batch's transaction failed as a whole (disk full, I/O error). */
  rolledBack(err: unknown): void;
}

export class GroupCommit {
  private pending: Pending[] = [];
  private scheduled = false;

  constructor(
    private readonly db: Database.Database,
    private readonly hooks: GroupCommitHooks,
  ) {}

  run<T>(op: WriteOp<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.pending.push({ op, resolve: resolve as (v: unknown) => void, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        // setImmediate rather than a microtask: it also gathers writes started by other I/O
        // callbacks of the same poll phase (concurrent HTTP requests).
        setImmediate(() => this.flush());
      }
    });
  }

  /** Commits whatever is queued now; used by close(). */
  flush(): void {
    this.scheduled = false;
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0) return;
    const outcomes: Array<{ ok: boolean; value: unknown }> = [];
    const events: WatchEvent[] = [];
    try {
      this.db.transaction(() => {
        for (const p of batch) {
          try {
            outcomes.push({ ok: true, value: p.op(events) });
          } catch (err) {
            if (!(err instanceof StoreError)) throw err;
            outcomes.push({ ok: false, value: err });
          }
        }
      }).immediate();
    } catch (err) {
      this.hooks.rolledBack(err);
      for (const p of batch) p.reject(err);
      return;
    }
    this.hooks.committed(events);
    batch.forEach((p, i) => (outcomes[i].ok ? p.resolve(outcomes[i].value) : p.reject(outcomes[i].value)));
  }
}
