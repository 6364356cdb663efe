// The storage contract every backend (SQLite, etcd) implements and the shared storage suite
// checks. Keys are `/registry/<resource>/<namespace>/<name>`; values are opaque bytes (JSON
// written by the API server). A revision is the store's global, strictly increasing counter:
// every write gets a new one, and it becomes the object's resourceVersion.

export interface KeyValue {
  key: string;
  value: Buffer;
  /** Revision of the write that produced this value (etcd mod_revision). */
  modRevision: number;
  /** Revision of the write that created the key (etcd create_revision). */
  createRevision: number;
}

export interface ListOptions {
  /** Return at most this many items (0 or absent: all). */
  limit?: number;
  /** Start strictly after this key (for `continue` tokens). */
  startAfter?: string;
  /**
   * Read the state as of this revision (0 or absent: now). Older than the compacted revision →
   * CompactedError; newer than the current one → FutureRevisionError.
   */
  revision?: number;
  /** Also count the keys from where this page starts to the end of the range (`ListResult.count`). */
  count?: boolean;
}

export interface ListResult {
  items: KeyValue[];
  /** The revision the list reflects; watching from it misses nothing. */
  revision: number;
  /** True when items were cut off by `limit`. */
  more: boolean;
  /** With `count`: the keys from this page's start to the range's end, those returned included. */
  count?: number;
}

export interface WatchEvent {
  type: 'PUT' | 'DELETE';
  key: string;
  /** The new value (PUT) or, for DELETE, the last value before deletion. */
  value: Buffer;
  /** The value before this write; absent on creation. */
  prevValue?: Buffer;
  /** The revision of this event. */
  revision: number;
  createRevision: number;
}

export interface Watcher {
  /** Stops delivery; no callback runs after this resolves. */
  cancel(): Promise<void>;
}

/**
 * A key-value store with revisions. All methods are safe to call concurrently.
 * Writes are durable when their promise resolves (a crash afterwards never loses them) and
 * atomic (a crash before leaves no trace).
 */
export interface Store {
  get(key: string): Promise<KeyValue | null>;
  list(prefix: string, opts?: ListOptions): Promise<ListResult>;
  /** Throws KeyExistsError when the key exists. Returns the new revision. */
  create(key: string, value: Buffer): Promise<number>;
  /**
   * Writes only if the key's current modRevision equals `expectedRevision`.
   * Throws NotFoundError when absent, ConflictError when the revision moved on.
   */
  update(key: string, value: Buffer, expectedRevision: number): Promise<number>;
  /**
   * Deletes the key, only if its modRevision equals `expectedRevision` when given.
   * Returns the deletion's revision and the value deleted. NotFoundError / ConflictError.
   */
  delete(key: string, expectedRevision?: number): Promise<{ revision: number; prev: KeyValue }>;
  /**
   * Delivers, in revision order, every event under `prefix` with a revision greater than
   * `afterRevision`, then new events as they happen. Throws CompactedError (or delivers it to
   * onError) when events after `afterRevision` were compacted away. Callbacks of one watcher
   * never run concurrently.
   */
  watch(
    prefix: string,
    afterRevision: number,
    onEvent: (ev: WatchEvent) => void,
    onError: (err: Error) => void,
  ): Promise<Watcher>;
  /** The newest revision in the store. */
  currentRevision(): Promise<number>;
  /**
   * The newest revision when the store knows it without I/O (SQLite: the one its writer last
   * announced), else undefined (etcd must be asked): whether a cache that has reached it may
   * answer a consistent read instead of the store.
   */
  localRevision?(): number | undefined;
  /**
   * Forgets history before `revision`: the state as of `revision` and everything newer stays
   * readable and watchable; older reads and watches get CompactedError. Compacting at or below
   * an earlier compaction does nothing.
   */
  compact(revision: number): Promise<void>;
  /**
   * Resolves when the store can serve reads and commit writes now; rejects (within about
   * `timeoutMs`) with the reason when it cannot: a member that does not answer, a disk that
   * refuses writes. Cheap enough for every /readyz and /livez request.
   */
  checkHealth(timeoutMs: number): Promise<void>;
  close(): Promise<void>;
}

export class StoreError extends Error {
  override name = this.constructor.name;
}
export class KeyExistsError extends StoreError {
  constructor(readonly key: string) { super(`key ${key} already exists`); }
}
export class NotFoundError extends StoreError {
  constructor(readonly key: string) { super(`key ${key} not found`); }
}
export class ConflictError extends StoreError {
  constructor(readonly key: string, readonly currentRevision: number) {
    super(`key ${key} was modified (now at revision ${currentRevision})`);
  }
}
/** A list asked for a revision the store has not reached yet. */
export class FutureRevisionError extends StoreError {
  constructor(readonly requested: number, readonly current: number) {
    super(`revision ${requested} is newer than the current revision ${current}`);
  }
}
export class CompactedError extends StoreError {
  constructor(readonly requested: number, readonly compacted: number) {
    super(`revision ${requested} has been compacted (oldest available ${compacted + 1})`);
  }
}
/** The backend refused a value as too large (etcd's `--max-request-bytes`). */
export class ValueTooLargeError extends StoreError {}
