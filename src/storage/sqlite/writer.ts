// The main thread's side of the writer thread (writer-worker.ts): queues writes, sends each
// event-loop turn's writes in one message, and matches the outcomes that come back, in order,
// to the waiting callers. `committed` runs for each transaction before its callers resume,
// so watch events are published in commit order and after durability.
import { Worker } from 'node:worker_threads';
import { ConflictError, KeyExistsError, NotFoundError, StoreError } from '../store.js';
import type { FromWriter, PrevRow, ToWriter, WriteOutcome, WriteRequest, WriterData } from './writer-protocol.js';

export type Written = Extract<WriteOutcome, { ok: true }>;

interface Waiting {
  req: WriteRequest;
  resolve: (w: Written) => void;
  reject: (err: Error) => void;
}

export interface WriterHooks {
  /** A transaction committed (fsynced): `done` are its successful writes, in revision order. */
  committed(revision: number, done: Array<{ req: WriteRequest; written: Written }>): void;
  /** A transaction failed as a whole (disk full, I/O error); no revision was used. */
  rolledBack(err: Error): void;
}

export class WriterThread {
  private readonly worker: Worker;
  private queued: Waiting[] = [];
  private readonly inFlight: Waiting[] = [];
  private scheduled = false;
  private nextId = 0;
  private readonly calls = new Map<number, { resolve: () => void; reject: (err: Error) => void }>();
  private closing?: Promise<void>;
  private failure?: Error;

  constructor(data: WriterData, private readonly hooks: WriterHooks) {
    this.worker = new Worker(new URL('./writer-worker.js', import.meta.url), {
      workerData: data,
      // A worker refuses --input-type (a process started with `node -e`) and the process-wide heap
      // sizes (its own are resourceLimits); the rest carries over.
      execArgv: process.execArgv.filter((a) => !/^--(input-type|max-semi-space-size|max-old-space-size)\b/.test(a)),
      // It only moves rows and revisions: a small young generation keeps its idle footprint small
      // (the default grows to 32 MB under a burst of writes and stays committed).
      resourceLimits: { maxYoungGenerationSizeMb: 8 },
    });
    this.worker.on('message', (msg: FromWriter) => this.receive(msg));
    this.worker.on('error', (err) => this.fail(err));
    this.worker.on('exit', () => this.fail(new StoreError('the SQLite writer thread exited')));
  }

  write(req: WriteRequest): Promise<Written> {
    if (this.closing || this.failure) return Promise.reject(this.failure ?? new StoreError('store is closed'));
    return new Promise((resolve, reject) => {
      this.queued.push({ req, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        // setImmediate rather than a microtask: it also gathers writes started by other I/O
        // callbacks of the same poll phase (concurrent HTTP requests). Not sent at once even to
        // an idle writer: a message (and a transaction) per write wakes the writer thread once
        // per write, which under load costs more than the rest of this turn.
        setImmediate(() => this.send());
      }
    });
  }

  /** Runs after every write issued before it has committed. */
  call(msg: { type: 'compact'; revision: number } | { type: 'probe'; at: number }): Promise<void> {
    if (this.closing || this.failure) return Promise.reject(this.failure ?? new StoreError('store is closed'));
    this.send();
    const id = ++this.nextId;
    return new Promise((resolve, reject) => {
      this.calls.set(id, { resolve, reject });
      this.post({ ...msg, id });
    });
  }

  close(): Promise<void> {
    if (!this.closing) {
      this.send();
      this.closing = this.failure
        ? this.worker.terminate().then(() => undefined)
        : new Promise<void>((resolve) => {
          this.worker.once('exit', () => resolve());
          this.post({ type: 'close' });
        });
    }
    return this.closing;
  }

  private send(): void {
    this.scheduled = false;
    const batch = this.queued;
    if (batch.length === 0) return;
    this.queued = [];
    for (const w of batch) this.inFlight.push(w);
    // The values' bytes are moved, not cloned with whatever pool they were sliced from.
    const transfer: ArrayBuffer[] = [];
    const reqs = batch.map(({ req }): WriteRequest => {
      if (req.op === 'delete') return req;
      const value = new Uint8Array(req.value);
      transfer.push(value.buffer);
      return { ...req, value };
    });
    this.worker.postMessage({ type: 'writes', batch: reqs } satisfies ToWriter, transfer);
  }

  private post(msg: ToWriter): void {
    this.worker.postMessage(msg);
  }

  private receive(msg: FromWriter): void {
    switch (msg.type) {
      case 'committed': {
        const waiting = this.inFlight.splice(0, msg.outcomes.length);
        const done: Array<{ req: WriteRequest; written: Written }> = [];
        msg.outcomes.forEach((o, i) => { if (o.ok) done.push({ req: waiting[i].req, written: withBuffers(o) }); });
        this.hooks.committed(msg.revision, done);
        let j = 0;
        msg.outcomes.forEach((o, i) => (o.ok ? waiting[i].resolve(done[j++].written) : waiting[i].reject(refusal(o))));
        return;
      }
      case 'rolledBack': {
        const err = new StoreError(msg.message);
        this.hooks.rolledBack(err);
        for (const w of this.inFlight.splice(0, msg.count)) w.reject(err);
        return;
      }
      case 'done': {
        const call = this.calls.get(msg.id);
        this.calls.delete(msg.id);
        if (msg.error === undefined) call?.resolve(); else call?.reject(new StoreError(msg.error));
        return;
      }
      case 'closed':
        return;
    }
  }

  /** The thread died (it cannot open the file, or crashed): every write still waiting fails. */
  private fail(err: Error): void {
    if (this.failure) return;
    this.failure = this.closing ? new StoreError('store is closed') : err;
    if (!this.closing) this.hooks.rolledBack(err);
    for (const w of [...this.inFlight.splice(0), ...this.queued.splice(0)]) w.reject(this.failure);
    for (const call of this.calls.values()) call.reject(this.failure);
    this.calls.clear();
  }
}

/** Structured clone delivers Uint8Arrays; the store hands out Buffers. */
function withBuffers(o: Written): Written {
  if (!o.prev) return o;
  const prev: PrevRow = { ...o.prev, value: Buffer.from(o.prev.value.buffer, o.prev.value.byteOffset, o.prev.value.byteLength) };
  return { ...o, prev };
}

function refusal(o: Extract<WriteOutcome, { ok: false }>): StoreError {
  const { name, key, currentRevision } = o.error;
  if (name === 'KeyExistsError') return new KeyExistsError(key);
  if (name === 'NotFoundError') return new NotFoundError(key);
  return new ConflictError(key, currentRevision ?? 0);
}
