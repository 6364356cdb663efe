// Messages between the SqliteStore (main thread) and its writer thread (writer-worker.ts).
// Writes go over in the order they were issued; outcomes come back in the same order, one
// `committed` message per transaction, so the main thread can publish watch events in commit
// order and resolve each write after its transaction is durable.

export type WriteRequest =
  | { op: 'create'; key: string; value: Uint8Array }
  | { op: 'update'; key: string; value: Uint8Array; expected: number }
  | { op: 'delete'; key: string; expected?: number };

/** The row a write superseded (update, delete). */
export interface PrevRow {
  value: Uint8Array;
  modRevision: number;
  createRevision: number;
}

export type WriteOutcome =
  | { ok: true; revision: number; createRevision: number; prev?: PrevRow }
  | { ok: false; error: { name: 'KeyExistsError' | 'NotFoundError' | 'ConflictError'; key: string; currentRevision?: number } };

export type ToWriter =
  | { type: 'writes'; batch: WriteRequest[] }
  /** Runs after every write sent before it has committed. */
  | { type: 'compact'; id: number; revision: number }
  | { type: 'probe'; id: number; at: number }
  | { type: 'close' };

export type FromWriter =
  /** One transaction: the outcomes of the oldest `outcomes.length` writes not yet answered. */
  | { type: 'committed'; revision: number; outcomes: WriteOutcome[] }
  /** The transaction of the oldest `count` unanswered writes failed as a whole. */
  | { type: 'rolledBack'; count: number; message: string }
  | { type: 'done'; id: number; error?: string }
  | { type: 'closed' };

export interface WriterData {
  path: string;
  synchronous: 'FULL' | 'NORMAL';
  /** The newest committed revision; the writer hands out the ones after it. */
  revision: number;
}
