// The watch cache: one store watch over all of /registry/ feeding the current state of every
// key and a bounded, revision-ordered history. API watches are served from here, never by
// opening a store watch or listing the store each, so a thousand watchers cost one etcd stream
// and one list at start-up (after kube-apiserver's cacher). A watcher asking for history older
// than the cache holds gets CompactedError (the API answers 410 Expired and the client relists).
import { Backoff } from '../util/index.js';
import { CompactedError, type KeyValue, type ListResult, type Store, type WatchEvent, type Watcher } from './store.js';
import { fallbacks } from '../log/fallback.js';

const fallback = fallbacks('apiserver');

export type Listener = (ev: WatchEvent) => void;

interface Waiter {
  revision: number;
  done: (fresh: boolean) => void;
}

export class WatchCache {
  private events: WatchEvent[] = [];
  private head = 0;
  /** Every event with a revision greater than this is in `events` (or still to come). */
  private oldest = 0;
  private latest = 0;
  /**
   * The state as of `latest`: per directory (a key up to its last `/`), the newest PUT of each
   * live key. Entries are the events themselves, so watchers share one decoding of each.
   */
  private state = new Map<string, Map<string, WatchEvent>>();
  /**
   * Per snapshot prefix, the directories it reads (`whole`: every key of the directory is under
   * the prefix): a snapshot then walks only those, not every directory of the cluster. Cleared
   * whenever a directory appears or goes, which is rare next to reads.
   */
  private dirsOf = new Map<string, Array<{ dir: string; whole: boolean }>>();
  /**
   * Subscribers grouped by prefix: an event is matched against each prefix once, then handed to
   * that prefix's subscribers in one pass (a thousand watchers of one resource share a prefix).
   */
  private listeners = new Map<string, Set<{ after: number; fn: Listener }>>();
  private waiters = new Set<Waiter>();
  private watcher?: Watcher;
  private closed = false;

  /**
   * Called with a key's previous event when a newer one replaces it (or its DELETE) in the state:
   * from then on only history readers ask for it, so what was derived from it (its decoding and
   * encodings) can be let go while the value itself stays in the history.
   */
  onSuperseded?: (ev: WatchEvent) => void;

  constructor(private store: Store, private prefix = '/registry/', private capacity = 20_000) {}

  async start(): Promise<void> {
    await this.load();
    await this.watchFrom(this.latest);
  }

  /** One list of the whole prefix; the watch continues from its revision. */
  private async load(): Promise<void> {
    const { items, revision } = await this.store.list(this.prefix);
    this.state.clear();
    this.dirsOf.clear();
    for (const kv of items) {
      this.apply({ type: 'PUT', key: kv.key, value: kv.value, revision: kv.modRevision, createRevision: kv.createRevision });
    }
    this.events = []; this.head = 0;
    this.oldest = this.latest = revision;
  }

  private async watchFrom(rev: number): Promise<void> {
    this.watcher = await this.store.watch(this.prefix, rev, (ev) => this.push(ev), (err) => void this.recover(err));
  }

  /** The store watch broke (etcd member restart): resume after the last event seen. */
  private async recover(err: Error): Promise<void> {
    if (this.closed) return;
    await this.watcher?.cancel().catch(() => undefined); // the watch is already broken; cancelling only frees it
    // History we never saw is gone: reload the state, and every watcher must relist.
    let reload = err instanceof CompactedError;
    const backoff = new Backoff({ initialMs: 100, maxMs: 5000 });
    while (!this.closed) {
      try {
        if (reload) {
          await this.load();
          reload = false;
          for (const group of this.listeners.values()) for (const l of group) l.fn({ type: 'DELETE', key: '', value: Buffer.alloc(0), revision: -1, createRevision: 0 });
          this.listeners.clear();
          this.wake();
        }
        await this.watchFrom(this.latest);
        return;
      } catch (e) {
        const delay = backoff.next();
        fallback('storage-rewatch-failed-retrying', { error: e, retryMs: delay });
        await new Promise((r) => setTimeout(r, delay));
      }
    }
  }

  /** The revision the cached state reflects. */
  get revision(): number {
    return this.latest;
  }

  /** Reads waiting in `waitUntil` for the cache to catch up. */
  get waitingReads(): number {
    return this.waiters.size;
  }

  private apply(ev: WatchEvent): void {
    const dir = ev.key.slice(0, ev.key.lastIndexOf('/') + 1);
    let entries = this.state.get(dir);
    const previous = entries?.get(ev.key);
    if (previous) this.onSuperseded?.(previous);
    if (ev.type === 'PUT') {
      if (!entries) { this.state.set(dir, (entries = new Map())); this.dirsOf.clear(); }
      entries.set(ev.key, ev);
    } else if (entries) {
      entries.delete(ev.key);
      if (entries.size === 0) { this.state.delete(dir); this.dirsOf.clear(); }
    }
  }

  private push(ev: WatchEvent): void {
    if (ev.revision <= this.latest) return;
    this.latest = ev.revision;
    this.apply(ev);
    this.events.push(ev);
    if (this.events.length - this.head > this.capacity) {
      this.oldest = this.events[this.head].revision;
      this.head++;
      // Dropped entries stay referenced until the array is cut: cut often enough that the history
      // holds at most an eighth more than its capacity (it held up to twice as much).
      if (this.head > this.capacity / 8) { this.events = this.events.slice(this.head); this.head = 0; }
    }
    for (const [prefix, group] of this.listeners) {
      if (!ev.key.startsWith(prefix)) continue;
      for (const l of group) if (ev.revision > l.after) l.fn(ev);
    }
    this.wake();
  }

  private wake(): void {
    for (const w of this.waiters) if (w.revision <= this.latest) w.done(true);
  }

  /**
   * The current state under `prefix` (as PUT events, in no particular order) and the revision
   * it reflects. Subscribing from that revision in the same turn misses and repeats nothing.
   */
  snapshot(prefix: string): { items: WatchEvent[]; revision: number } {
    const items: WatchEvent[] = [];
    for (const { dir, whole } of this.directories(prefix)) {
      const entries = this.state.get(dir);
      if (!entries) continue;
      if (whole) {
        for (const ev of entries.values()) items.push(ev);
      } else {
        for (const ev of entries.values()) if (ev.key.startsWith(prefix)) items.push(ev);
      }
    }
    return { items, revision: this.latest };
  }

  private directories(prefix: string): Array<{ dir: string; whole: boolean }> {
    let dirs = this.dirsOf.get(prefix);
    if (dirs) return dirs;
    dirs = [];
    for (const dir of this.state.keys()) {
      if (dir.startsWith(prefix)) dirs.push({ dir, whole: true });
      else if (prefix.startsWith(dir)) dirs.push({ dir, whole: false });
    }
    if (this.dirsOf.size >= 10_000) this.dirsOf.clear();
    this.dirsOf.set(prefix, dirs);
    return dirs;
  }

  /** The cached value of `key`, as Store.get answers it. */
  async get(key: string): Promise<KeyValue | null> {
    const ev = this.state.get(key.slice(0, key.lastIndexOf('/') + 1))?.get(key);
    return ev ? toKeyValue(ev) : null;
  }

  /**
   * The cached state under `prefix` in key order, from just after `startAfter`, as Store.list
   * answers it but in one piece: `limit` is not applied (`more` is false), and the revision is
   * always the cache's own — the caller cuts pages, and continues from storage at it. With
   * `count`, `count` is the number of items (remainingItemCount for the page the caller cuts).
   */
  async list(prefix: string, opts: { startAfter?: string; count?: boolean } = {}): Promise<ListResult> {
    const { items, revision } = this.snapshot(prefix);
    const after = opts.startAfter ?? '';
    const kvs = items.filter((ev) => ev.key > after).map(toKeyValue);
    kvs.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    return { items: kvs, revision, more: false, ...(opts.count ? { count: kvs.length } : {}) };
  }

  /** Resolves true once the cache has reached `revision`, false if `timeoutMs` passes first. */
  waitUntil(revision: number, timeoutMs: number): Promise<boolean> {
    if (revision <= this.latest) return Promise.resolve(true);
    if (this.closed) return Promise.resolve(false);
    return new Promise((resolve) => {
      const waiter: Waiter = {
        revision,
        done: (fresh) => { clearTimeout(timer); this.waiters.delete(waiter); resolve(fresh); },
      };
      const timer = setTimeout(() => waiter.done(false), timeoutMs);
      this.waiters.add(waiter);
    });
  }

  /**
   * Delivers every event under `prefix` after `afterRevision`, then live ones, in order.
   * A listener receiving an event with revision -1 has lost history and must relist.
   * Returns the unsubscribe function.
   */
  subscribe(prefix: string, afterRevision: number, fn: Listener): () => void {
    if (afterRevision < this.oldest) throw new CompactedError(afterRevision, this.oldest);
    for (let i = this.head; i < this.events.length; i++) {
      const ev = this.events[i];
      if (ev.revision > afterRevision && ev.key.startsWith(prefix)) fn(ev);
    }
    const entry = { after: Math.max(afterRevision, this.latest), fn };
    let group = this.listeners.get(prefix);
    if (!group) this.listeners.set(prefix, (group = new Set()));
    group.add(entry);
    return () => {
      group.delete(entry);
      if (group.size === 0 && this.listeners.get(prefix) === group) this.listeners.delete(prefix);
    };
  }

  async stop(): Promise<void> {
    this.closed = true;
    this.listeners.clear();
    for (const w of this.waiters) w.done(false);
    await this.watcher?.cancel();
  }
}

function toKeyValue(ev: WatchEvent): KeyValue {
  return { key: ev.key, value: ev.value, modRevision: ev.revision, createRevision: ev.createRevision };
}
