// The embedded backend: a revision log in one SQLite file (see ../DESIGN.md). Reads and writes
// run synchronously on the calling thread (better-sqlite3), which is what makes a write's
// check-then-insert atomic and lets watch() switch from log replay to the live feed without a gap.
import type Database from 'better-sqlite3';
import { EventQueue } from '../event-queue.js';
import { prefixEndString } from '../prefix.js';
import {
  CompactedError,
  ConflictError,
  FutureRevisionError,
  KeyExistsError,
  NotFoundError,
  StoreError,
  type KeyValue,
  type ListOptions,
  type ListResult,
  type Store,
  type WatchEvent,
  type Watcher,
} from '../store.js';
import { openDatabase, type SqliteOptions } from './database.js';
import { GroupCommit } from './group-commit.js';
import { prepareStatements, type Row, type StateRow, type Statements } from './statements.js';
import { WatchFeed } from './watch-feed.js';

const COMPACT_REVISION = 'compact_revision';
const HEALTH_PROBE = 'health_probe';
/** How long a failed write keeps the store unhealthy when no write has succeeded since. */
const WRITE_FAILURE_MEMORY_MS = 10_000;

export class SqliteStore implements Store {
  /** Newest committed revision. */
  private rev: number;
  /** Revision handed out to the batch being written; back to `rev` if it rolls back. */
  private nextRev: number;
  private compactRev: number;
  private closed = false;
  private readonly stmts: Statements;
  private readonly feed = new WatchFeed();
  private readonly commits: GroupCommit;
  /** The last batch that failed as a whole, until a later batch commits. */
  private writeFailure?: { error: Error; at: number };

  private constructor(private readonly db: Database.Database) {
    this.stmts = prepareStatements(db);
    this.compactRev = this.stmts.getMeta.get(COMPACT_REVISION)?.value ?? 0;
    // Compaction may have deleted the newest rows (deletions), never the revisions they used.
    this.rev = Math.max(this.stmts.maxId.get()?.rev ?? 0, this.compactRev);
    this.nextRev = this.rev;
    this.commits = new GroupCommit(db, {
      committed: (events) => {
        this.rev = this.nextRev;
        this.writeFailure = undefined;
        this.feed.publish(events);
      },
      rolledBack: (err) => {
        this.nextRev = this.rev;
        this.writeFailure = { error: err as Error, at: Date.now() };
      },
    });
  }

  static open(path: string, opts: SqliteOptions = {}): SqliteStore {
    return new SqliteStore(openDatabase(path, opts));
  }

  async get(key: string): Promise<KeyValue | null> {
    this.assertOpen();
    const row = this.stmts.latest.get(key);
    return row && !row.deleted ? toKeyValue(row) : null;
  }

  async list(prefix: string, opts: ListOptions = {}): Promise<ListResult> {
    this.assertOpen();
    const rev = opts.revision && opts.revision > 0 ? opts.revision : this.rev;
    if (rev > this.rev) throw new FutureRevisionError(rev, this.rev);
    if (rev < this.compactRev) throw new CompactedError(rev, this.compactRev);
    const after = opts.startAfter ?? '';
    const limit = opts.limit && opts.limit > 0 ? opts.limit : 0;
    const params = {
      // Start at startAfter when it is inside the range; the statement skips that key itself.
      lo: after > prefix ? after : prefix,
      after,
      rev,
      limit: limit > 0 ? limit + 1 : -1,
    };
    const hi = prefixEndString(prefix);
    const rows = hi === null ? this.stmts.listAtUnbounded.all(params) : this.stmts.listAt.all({ ...params, hi });
    const more = limit > 0 && rows.length > limit;
    if (more) rows.length = limit;
    const result: ListResult = { items: rows.map(toKeyValue), revision: rev, more };
    // Only a cut-off page needs a second scan; any other page is the rest of the range.
    if (opts.count) result.count = more ? this.countFrom(params.lo, after, rev, hi) : rows.length;
    return result;
  }

  private countFrom(lo: string, after: string, rev: number, hi: string | null): number {
    const row = hi === null ? this.stmts.countAtUnbounded.get({ lo, after, rev }) : this.stmts.countAt.get({ lo, after, rev, hi });
    return row?.n ?? 0;
  }

  create(key: string, value: Buffer): Promise<number> {
    return this.write((events) => {
      const latest = this.stmts.latest.get(key);
      if (latest && !latest.deleted) throw new KeyExistsError(key);
      const rev = ++this.nextRev;
      this.stmts.insert.run(rev, key, rev, latest?.id ?? 0, 0, value, null);
      events.push({ type: 'PUT', key, value, revision: rev, createRevision: rev });
      return rev;
    });
  }

  update(key: string, value: Buffer, expectedRevision: number): Promise<number> {
    return this.write((events) => {
      const latest = this.currentRow(key, expectedRevision);
      const rev = ++this.nextRev;
      this.stmts.insert.run(rev, key, latest.create_revision, latest.id, 0, value, latest.value);
      events.push({
        type: 'PUT', key, value, prevValue: latest.value, revision: rev, createRevision: latest.create_revision,
      });
      return rev;
    });
  }

  delete(key: string, expectedRevision?: number): Promise<{ revision: number; prev: KeyValue }> {
    return this.write((events) => {
      const latest = this.currentRow(key, expectedRevision);
      const rev = ++this.nextRev;
      // The deletion row keeps the last value, so a replayed DELETE event carries it.
      this.stmts.insert.run(rev, key, latest.create_revision, latest.id, 1, latest.value, latest.value);
      events.push({
        type: 'DELETE', key, value: latest.value, prevValue: latest.value,
        revision: rev, createRevision: latest.create_revision,
      });
      return { revision: rev, prev: toKeyValue(latest) };
    });
  }

  async watch(
    prefix: string,
    afterRevision: number,
    onEvent: (ev: WatchEvent) => void,
    onError: (err: Error) => void,
  ): Promise<Watcher> {
    this.assertOpen();
    if (afterRevision < this.compactRev) throw new CompactedError(afterRevision, this.compactRev);
    const queue = new EventQueue(onEvent, onError);
    // Replay up to the committed revision and subscribe in the same synchronous step: no commit
    // can land in between, so the live feed continues exactly where the log replay ends.
    if (afterRevision < this.rev) {
      const rows = this.stmts.eventsAfter.all({
        lo: prefix, hi: prefixEndString(prefix), after: afterRevision, upto: this.rev,
      });
      queue.push(rows.map(toEvent));
    }
    this.feed.subscribe(prefix, afterRevision, queue);
    return queue;
  }

  async currentRevision(): Promise<number> {
    this.assertOpen();
    return this.rev;
  }

  async compact(revision: number): Promise<void> {
    this.assertOpen();
    if (revision <= this.compactRev) return;
    if (revision > this.rev) throw new FutureRevisionError(revision, this.rev);
    this.db.transaction(() => {
      this.stmts.compact.run({ rev: revision });
      this.stmts.setMeta.run(COMPACT_REVISION, revision);
    }).immediate();
    this.compactRev = revision;
  }

  /**
   * Healthy when a probe write commits and no batch of real writes failed recently without a
   * success since: a probe row may still fit in pages SQLite already holds while the objects
   * the API writes do not (a full disk).
   */
  async checkHealth(): Promise<void> {
    this.assertOpen();
    const failed = this.writeFailure;
    if (failed && Date.now() - failed.at < WRITE_FAILURE_MEMORY_MS) throw new StoreError(`writes fail: ${failed.error.message}`);
    try {
      this.db.transaction(() => this.stmts.setMeta.run(HEALTH_PROBE, Date.now())).immediate();
    } catch (err) {
      throw new StoreError(`a probe write fails: ${(err as Error).message}`);
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.commits.flush();
    this.closed = true;
    this.feed.failAll(new StoreError('store is closed'));
    this.db.close();
  }

  private write<T>(op: (events: WatchEvent[]) => T): Promise<T> {
    if (this.closed) return Promise.reject(new StoreError('store is closed'));
    return this.commits.run(op);
  }

  /** The key's live row, checked against the caller's expected revision. */
  private currentRow(key: string, expectedRevision?: number): StateRow {
    const latest = this.stmts.latest.get(key);
    if (!latest || latest.deleted) throw new NotFoundError(key);
    if (expectedRevision !== undefined && latest.id !== expectedRevision) {
      throw new ConflictError(key, latest.id);
    }
    return latest;
  }

  private assertOpen(): void {
    if (this.closed) throw new StoreError('store is closed');
  }
}

function toKeyValue(row: StateRow): KeyValue {
  return { key: row.key, value: row.value, modRevision: row.id, createRevision: row.create_revision };
}

function toEvent(row: Row): WatchEvent {
  const ev: WatchEvent = {
    type: row.deleted ? 'DELETE' : 'PUT',
    key: row.key,
    value: row.value,
    revision: row.id,
    createRevision: row.create_revision,
  };
  if (row.old_value) ev.prevValue = row.old_value;
  return ev;
}
