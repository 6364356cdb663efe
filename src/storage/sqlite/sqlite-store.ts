// The embedded backend: a revision log in one SQLite file (see ../DESIGN.md). Writes and their
// fsync run on a writer thread (writer-worker.ts) with group commit; this thread reads through
// its own connection on the WAL, never past the newest revision the writer has announced, which
// is what lets watch() switch from log replay to the live feed without a gap.
import type Database from 'better-sqlite3';
import { EventQueue } from '../event-queue.js';
import { prefixEndString } from '../prefix.js';
import {
  CompactedError,
  FutureRevisionError,
  StoreError,
  type KeyValue,
  type ListOptions,
  type ListResult,
  type Store,
  type WatchEvent,
  type Watcher,
} from '../store.js';
import { lockOwner, openDatabase, type SqliteOptions } from './database.js';
import { prepareStatements, type Row, type StateRow, type Statements } from './statements.js';
import { WatchFeed } from './watch-feed.js';
import { WriterThread, type Written } from './writer.js';
import type { WriteRequest } from './writer-protocol.js';

const COMPACT_REVISION = 'compact_revision';
/** How long a failed write keeps the store unhealthy when no write has succeeded since. */
const WRITE_FAILURE_MEMORY_MS = 10_000;

export class SqliteStore implements Store {
  /** Newest revision committed and announced by the writer thread. */
  private rev: number;
  private compactRev: number;
  private closed = false;
  private readonly stmts: Statements;
  private readonly feed = new WatchFeed();
  private readonly writer: WriterThread;
  /** The last batch that failed as a whole, until a later batch commits. */
  private writeFailure?: { error: Error; at: number };

  private constructor(private readonly db: Database.Database, private readonly lock: Database.Database, path: string, opts: SqliteOptions) {
    this.stmts = prepareStatements(db);
    this.compactRev = this.stmts.getMeta.get(COMPACT_REVISION)?.value ?? 0;
    // Compaction may have deleted the newest rows (deletions), never the revisions they used.
    this.rev = Math.max(this.stmts.maxId.get()?.rev ?? 0, this.compactRev);
    this.writer = new WriterThread({ path, synchronous: opts.synchronous ?? 'FULL', revision: this.rev }, {
      committed: (revision, done) => {
        this.rev = revision;
        this.writeFailure = undefined;
        this.feed.publish(done.map(({ req, written }) => toWrittenEvent(req, written)));
      },
      rolledBack: (err) => {
        this.writeFailure = { error: err, at: Date.now() };
      },
    });
  }

  static open(path: string, opts: SqliteOptions = {}): SqliteStore {
    const lock = lockOwner(path);
    try {
      return new SqliteStore(openDatabase(path, { ...opts, shared: true }), lock, path, opts);
    } catch (err) {
      lock.close();
      throw err;
    }
  }

  async get(key: string): Promise<KeyValue | null> {
    this.assertOpen();
    const row = this.stmts.latestAt.get(key, this.rev);
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

  async create(key: string, value: Buffer): Promise<number> {
    return (await this.write({ op: 'create', key, value })).revision;
  }

  async update(key: string, value: Buffer, expectedRevision: number): Promise<number> {
    return (await this.write({ op: 'update', key, value, expected: expectedRevision })).revision;
  }

  async delete(key: string, expectedRevision?: number): Promise<{ revision: number; prev: KeyValue }> {
    const { revision, prev } = await this.write({ op: 'delete', key, expected: expectedRevision });
    return { revision, prev: { key, value: prev!.value as Buffer, modRevision: prev!.modRevision, createRevision: prev!.createRevision } };
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

  localRevision(): number | undefined {
    return this.closed ? undefined : this.rev;
  }

  async compact(revision: number): Promise<void> {
    this.assertOpen();
    if (revision <= this.compactRev) return;
    if (revision > this.rev) throw new FutureRevisionError(revision, this.rev);
    await this.writer.call({ type: 'compact', revision });
    this.compactRev = Math.max(this.compactRev, revision);
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
      await this.writer.call({ type: 'probe', at: Date.now() });
    } catch (err) {
      throw new StoreError(`a probe write fails: ${(err as Error).message}`);
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.writer.close();
    this.feed.failAll(new StoreError('store is closed'));
    this.db.close();
    this.lock.close();
  }

  private write(req: WriteRequest): Promise<Written> {
    if (this.closed) return Promise.reject(new StoreError('store is closed'));
    return this.writer.write(req);
  }

  private assertOpen(): void {
    if (this.closed) throw new StoreError('store is closed');
  }
}

function toKeyValue(row: StateRow): KeyValue {
  return { key: row.key, value: row.value, modRevision: row.id, createRevision: row.create_revision };
}

/** The watch event of a committed write; a create's or update's value is the caller's own buffer. */
function toWrittenEvent(req: WriteRequest, w: Written): WatchEvent {
  const prevValue = w.prev?.value as Buffer | undefined;
  if (req.op === 'delete') {
    return { type: 'DELETE', key: req.key, value: prevValue!, prevValue, revision: w.revision, createRevision: w.createRevision };
  }
  const ev: WatchEvent = { type: 'PUT', key: req.key, value: req.value as Buffer, revision: w.revision, createRevision: w.createRevision };
  if (prevValue) ev.prevValue = prevValue;
  return ev;
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
