// The baselines the API server is measured against: N creates of 1 KB values written straight
// to SQLite (the backend's own schema and pragmas, one row per transaction, as a create is) and
// straight to etcd (etcd3 puts), next to the same creates through a capstan Store.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Etcd3 } from 'etcd3';
import { openDatabase, type Synchronous } from '../../src/storage/sqlite/index.js';
import type { Store } from '../../src/storage/index.js';
import { timeOps, type BenchResult } from './latency.js';

export interface RawBenchOptions {
  /** Number of writes. */
  count: number;
  /** Value size in bytes; default 1024. */
  valueSize?: number;
  /** Writes in flight at once; default 1. */
  concurrency?: number;
}

const key = (i: number) => `/registry/configmaps/bench/cm-${String(i).padStart(8, '0')}`;

/**
 * Raw better-sqlite3 inserts into a fresh file (`dir` or a temp dir, removed afterwards).
 * SQLite is synchronous, so concurrency does not apply; `rowsPerTransaction` > 1 shows what
 * batching buys.
 */
export async function benchRawSqlite(opts: RawBenchOptions & {
  dir?: string;
  synchronous?: Synchronous;
  rowsPerTransaction?: number;
}): Promise<BenchResult> {
  const dir = opts.dir ?? mkdtempSync(join(tmpdir(), 'capstan-bench-sqlite-'));
  const db = openDatabase(join(dir, `raw-${process.pid}-${Date.now()}.db`), { synchronous: opts.synchronous });
  try {
    const insert = db.prepare(
      `INSERT INTO kv (id, key, create_revision, prev_revision, deleted, value, old_value)
       VALUES (?, ?, ?, 0, 0, ?, NULL)`,
    );
    const value = Buffer.alloc(opts.valueSize ?? 1024, 'v');
    const perTx = Math.max(1, opts.rowsPerTransaction ?? 1);
    const writeRows = db.transaction((first: number) => {
      for (let i = first; i < Math.min(first + perTx, opts.count); i++) insert.run(i + 1, key(i), i + 1, value);
    });
    const batches = Math.ceil(opts.count / perTx);
    const r = await timeOps(`sqlite raw (${opts.synchronous ?? 'FULL'}, ${perTx}/tx)`, batches, 1,
      (b) => writeRows.immediate(b * perTx));
    // Report per row, with latency per transaction.
    return { ...r, count: opts.count, opsPerSec: opts.count / r.seconds };
  } finally {
    db.close();
    if (!opts.dir) rmSync(dir, { recursive: true, force: true });
  }
}

/** Raw etcd3 puts of fresh keys under `keyPrefix` (default /capstan-bench-<pid>), deleted afterwards. */
export async function benchRawEtcd(opts: RawBenchOptions & { endpoints: string[]; keyPrefix?: string }): Promise<BenchResult> {
  const client = new Etcd3({ hosts: opts.endpoints });
  const prefix = opts.keyPrefix ?? `/capstan-bench-${process.pid}`;
  const value = Buffer.alloc(opts.valueSize ?? 1024, 'v');
  try {
    return await timeOps(`etcd raw put (${opts.endpoints.length} endpoint(s))`, opts.count, opts.concurrency ?? 1,
      (i) => client.put(prefix + key(i)).value(value).exec());
  } finally {
    await client.delete().prefix(prefix).exec().catch(() => {});
    client.close();
  }
}

/** The same creates through a capstan Store, to show what the backend adds over raw writes. */
export async function benchStoreCreates(store: Store, name: string, opts: RawBenchOptions & { keyPrefix?: string }) {
  const prefix = opts.keyPrefix ?? `/capstan-bench-${process.pid}-${Date.now()}`;
  const value = Buffer.alloc(opts.valueSize ?? 1024, 'v');
  return timeOps(name, opts.count, opts.concurrency ?? 1, (i) => store.create(prefix + key(i), value));
}
