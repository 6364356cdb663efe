// The SQLite writer thread: every write and its fsync happen here, off the API server's event
// loop. Group commit: the writes that arrive while a transaction is being committed (and so
// fsynced) are queued by the message port and go into the next transaction together; a lone
// write is committed as soon as its message arrives.
// Revisions are handed out here, in commit order; the main thread only reads.
import { parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import { openDatabase } from './database.js';
import { prepareStatements, type StateRow } from './statements.js';
import type { FromWriter, ToWriter, WriteOutcome, WriteRequest, WriterData } from './writer-protocol.js';

const COMPACT_REVISION = 'compact_revision';
const HEALTH_PROBE = 'health_probe';

class Refused extends Error {
  constructor(readonly outcome: Extract<WriteOutcome, { ok: false }>) { super(outcome.error.name); }
}

const data = workerData as WriterData;
const port = parentPort!;
const db = openDatabase(data.path, { synchronous: data.synchronous, shared: true });
const stmts = prepareStatements(db);
let committedRev = data.revision;
let pending: WriteRequest[] = [];

const send = (msg: FromWriter) => port.postMessage(msg);

function live(key: string, expected?: number): StateRow {
  const latest = stmts.latest.get(key);
  if (!latest || latest.deleted) throw new Refused({ ok: false, error: { name: 'NotFoundError', key } });
  if (expected !== undefined && latest.id !== expected) {
    throw new Refused({ ok: false, error: { name: 'ConflictError', key, currentRevision: latest.id } });
  }
  return latest;
}

/** One write inside the open transaction; its checks come before its insert. */
function apply(req: WriteRequest, rev: number): WriteOutcome {
  if (req.op === 'create') {
    const latest = stmts.latest.get(req.key);
    if (latest && !latest.deleted) throw new Refused({ ok: false, error: { name: 'KeyExistsError', key: req.key } });
    stmts.insert.run(rev, req.key, rev, latest?.id ?? 0, 0, Buffer.from(req.value.buffer, req.value.byteOffset, req.value.byteLength), null);
    return { ok: true, revision: rev, createRevision: rev };
  }
  const latest = live(req.key, req.expected);
  const prev = { value: latest.value, modRevision: latest.id, createRevision: latest.create_revision };
  if (req.op === 'update') {
    stmts.insert.run(rev, req.key, latest.create_revision, latest.id, 0, Buffer.from(req.value.buffer, req.value.byteOffset, req.value.byteLength), latest.value);
  } else {
    // The deletion row keeps the last value, so a replayed DELETE event carries it.
    stmts.insert.run(rev, req.key, latest.create_revision, latest.id, 1, latest.value, latest.value);
  }
  return { ok: true, revision: rev, createRevision: latest.create_revision, prev };
}

/** Commits every queued write in one transaction. */
function flush(): void {
  const batch = pending;
  pending = [];
  if (batch.length === 0) return;
  let rev = committedRev;
  const outcomes: WriteOutcome[] = [];
  try {
    db.transaction(() => {
      for (const req of batch) {
        try {
          outcomes.push(apply(req, rev + 1));
          rev++;
        } catch (err) {
          if (!(err instanceof Refused)) throw err;
          outcomes.push(err.outcome);
        }
      }
    }).immediate();
  } catch (err) {
    send({ type: 'rolledBack', count: batch.length, message: (err as Error).message });
    return;
  }
  committedRev = rev;
  send({ type: 'committed', revision: rev, outcomes });
}

function answer(id: number, fn: () => void): void {
  flush();
  try {
    fn();
    send({ type: 'done', id });
  } catch (err) {
    send({ type: 'done', id, error: (err as Error).message });
  }
}

/** Handles one message; writes wait in `pending` for the flush that ends the drain. */
function handle(msg: ToWriter): void {
  switch (msg.type) {
    case 'writes':
      for (const req of msg.batch) pending.push(req);
      return;
    case 'compact':
      return answer(msg.id, () => db.transaction(() => {
        stmts.compact.run({ rev: msg.revision });
        stmts.setMeta.run(COMPACT_REVISION, msg.revision);
      }).immediate());
    case 'probe':
      return answer(msg.id, () => db.transaction(() => stmts.setMeta.run(HEALTH_PROBE, msg.at)).immediate());
    case 'close':
      flush();
      db.close();
      send({ type: 'closed' });
      port.close();
  }
}

// Whatever else is already queued on the port (sent while the last transaction committed)
// is taken synchronously and joins this transaction; nothing waits for another turn of this
// thread's event loop, so a lone write commits as soon as it arrives.
port.on('message', (first: ToWriter) => {
  handle(first);
  if (first.type === 'close') return;
  for (let next = receiveMessageOnPort(port); next; next = receiveMessageOnPort(port)) {
    const msg = next.message as ToWriter;
    handle(msg);
    if (msg.type === 'close') return;
  }
  flush();
});
