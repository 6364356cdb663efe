// Every statement the SQLite store runs, prepared once. Key ranges are [lo, hi), hi = null
// meaning unbounded.
import type Database from 'better-sqlite3';

export interface Row {
  id: number;
  key: string;
  create_revision: number;
  prev_revision: number;
  deleted: number;
  value: Buffer;
  old_value: Buffer | null;
}

interface ListParams {
  lo: string;
  after: string;
  rev: number;
  limit: number;
}

function listSql(upperBound: string): string {
  return `SELECT ${STATE_COLUMNS} ${rangeSql(upperBound)}
    ORDER BY k.key
    LIMIT :limit`;
}

/** The live keys of a range as of :rev, starting after :after. */
function rangeSql(upperBound: string): string {
  return `FROM kv AS k
    WHERE k.key >= :lo ${upperBound} AND k.key <> :after AND k.id <= :rev
      AND k.id = (SELECT MAX(n.id) FROM kv AS n WHERE n.key = k.key AND n.id <= :rev)
      AND k.deleted = 0`;
}

/** A key's state: what reads need, without `old_value` (a second blob to page in). */
export type StateRow = Pick<Row, 'id' | 'key' | 'create_revision' | 'deleted' | 'value'>;
const STATE_COLUMNS = 'id, key, create_revision, deleted, value';

export type Statements = ReturnType<typeof prepareStatements>;

export function prepareStatements(db: Database.Database) {
  return {
    latest: db.prepare<[string], StateRow>(
      `SELECT ${STATE_COLUMNS} FROM kv WHERE key = ? ORDER BY id DESC LIMIT 1`,
    ),
    // The key's newest row committed as of :rev: the writer thread may be a transaction ahead
    // of what this thread has announced.
    latestAt: db.prepare<[string, number], StateRow>(
      `SELECT ${STATE_COLUMNS} FROM kv WHERE key = ? AND id <= ? ORDER BY id DESC LIMIT 1`,
    ),
    insert: db.prepare<[number, string, number, number, number, Buffer, Buffer | null]>(
      `INSERT INTO kv (id, key, create_revision, prev_revision, deleted, value, old_value)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    ),
    // Walks the (key, id) index in key order, keeping a row only if it is its key's newest as
    // of :rev, so LIMIT stops the scan early. Only :lo and :hi bound the scan: a second lower
    // bound (`key > :after`) could be the one SQLite picks. Two variants because an optional
    // upper bound (`:hi IS NULL OR ...`) would keep SQLite from ending the scan at :hi.
    listAt: db.prepare<ListParams & { hi: string }, StateRow>(listSql('AND k.key < :hi')),
    listAtUnbounded: db.prepare<ListParams, StateRow>(listSql('')),
    countAt: db.prepare<Omit<ListParams, 'limit'> & { hi: string }, { n: number }>(`SELECT COUNT(*) AS n ${rangeSql('AND k.key < :hi')}`),
    countAtUnbounded: db.prepare<Omit<ListParams, 'limit'>, { n: number }>(`SELECT COUNT(*) AS n ${rangeSql('')}`),
    eventsAfter: db.prepare<{ lo: string; hi: string | null; after: number; upto: number }, Row>(
      `SELECT * FROM kv
       WHERE id > :after AND id <= :upto AND key >= :lo AND (:hi IS NULL OR key < :hi)
       ORDER BY id`,
    ),
    maxId: db.prepare<[], { rev: number | null }>('SELECT MAX(id) AS rev FROM kv'),
    getMeta: db.prepare<[string], { value: number }>('SELECT value FROM meta WHERE name = ?'),
    setMeta: db.prepare<[string, number]>(
      'INSERT INTO meta (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value',
    ),
    // Keeps each key's newest row as of :rev unless it is a deletion; rows after :rev stay.
    compact: db.prepare<{ rev: number }>(
      `DELETE FROM kv
       WHERE id <= :rev AND (deleted = 1 OR EXISTS (
         SELECT 1 FROM kv AS n WHERE n.key = kv.key AND n.id > kv.id AND n.id <= :rev))`,
    ),
  };
}
