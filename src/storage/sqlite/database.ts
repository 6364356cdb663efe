// Opening the SQLite file: pragmas and the revision-log schema. The raw-insert benchmark opens
// its file through here too, so it measures exactly the settings the backend runs with.
import Database from 'better-sqlite3';
import { chmodSync, closeSync, existsSync, openSync } from 'node:fs';
import { StoreError } from '../store.js';

/**
 * FULL: each commit fsyncs the WAL, so an acknowledged write survives power loss as well as a
 * killed process. NORMAL: commits reach the OS but are fsynced only at checkpoints — survives
 * SIGKILL, may lose the newest writes on power loss or a kernel crash; ~2.5× the single-writer rate.
 */
export type Synchronous = 'FULL' | 'NORMAL';

export interface SqliteOptions {
  synchronous?: Synchronous;
  /**
   * Leave the file open to other connections of this process (the store's writer thread and
   * its readers share the WAL index); `lockOwner` keeps other processes out instead.
   */
  shared?: boolean;
}

// One row per write. `id` is the revision; the newest row of a key is its current state unless
// it is a deletion. `old_value` makes each row a self-contained watch event (prevValue) even
// after compaction has removed the row it superseded.
const SCHEMA = `
CREATE TABLE IF NOT EXISTS kv (
  id INTEGER PRIMARY KEY,
  key TEXT NOT NULL,
  create_revision INTEGER NOT NULL,
  prev_revision INTEGER NOT NULL,
  deleted INTEGER NOT NULL,
  value BLOB NOT NULL,
  old_value BLOB
);
CREATE INDEX IF NOT EXISTS kv_key_id ON kv (key, id);
CREATE TABLE IF NOT EXISTS meta (
  name TEXT PRIMARY KEY,
  value INTEGER NOT NULL
) WITHOUT ROWID;
`;

export function openDatabase(path: string, opts: SqliteOptions = {}): Database.Database {
  ownerOnly(path);
  const db = new Database(path);
  try {
    // Exclusive locking before WAL: no shared-memory index, and a second process opening the
    // file fails instead of writing behind this one's back — the watch feed relies on being
    // the only writer. A shared file relies on lockOwner for that.
    if (!opts.shared) db.pragma('locking_mode = EXCLUSIVE');
    db.pragma('journal_mode = WAL');
    db.pragma(`synchronous = ${opts.synchronous ?? 'FULL'}`);
    db.exec('BEGIN IMMEDIATE');
    db.exec(SCHEMA);
    db.exec('COMMIT');
  } catch (err) {
    db.close();
    if ((err as { code?: string }).code === 'SQLITE_BUSY') {
      throw new StoreError(`${path} is in use by another process`);
    }
    throw err;
  }
  return db;
}

/**
 * Makes this process the file's only user until the returned database is closed: a write to
 * `<path>-lock` in exclusive locking mode holds that file's lock for the connection's life, so
 * another process's lockOwner fails with "in use". The watch feed relies on one writer.
 */
export function lockOwner(path: string): Database.Database {
  const lock = new Database(`${path}-lock`);
  try {
    lock.pragma('locking_mode = EXCLUSIVE');
    lock.exec('CREATE TABLE IF NOT EXISTS owner (pid INTEGER NOT NULL)');
    lock.prepare('INSERT INTO owner (pid) VALUES (?)').run(process.pid);
    lock.exec('DELETE FROM owner');
  } catch (err) {
    lock.close();
    if ((err as { code?: string }).code === 'SQLITE_BUSY') throw new StoreError(`${path} is in use by another process`);
    throw err;
  }
  return lock;
}

/**
 * The file holds every Secret: owner only. SQLite gives its -wal and -shm files the main
 * file's mode, so creating the main file 0600 before SQLite does covers them too.
 */
function ownerOnly(path: string): void {
  if (path === ':memory:' || path === '') return;
  closeSync(openSync(path, 'a', 0o600));
  for (const p of [path, `${path}-wal`, `${path}-shm`]) if (existsSync(p)) chmodSync(p, 0o600);
}
