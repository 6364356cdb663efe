// The watch cache: one store watch over all of /registry/ feeding a bounded, revision-ordered
// history. API watches are served from here, never by opening a store watch each, so a
// thousand watchers cost one etcd stream. A watcher asking for history older than the cache
// holds gets CompactedError (the API answers 410 Expired and the client relists).
import { Backoff } from '../util/index.js';
import { CompactedError, type Store, type WatchEvent, type Watcher } from './store.js';

export type Listener = (ev: WatchEvent) => void;

export class WatchCache {
  private events: WatchEvent[] = [];
  private head = 0;
  /** Every event with a revision greater than this is in `events` (or still to come). */
  private oldest = 0;
  private latest = 0;
  private listeners = new Set<{ prefix: string; after: number; fn: Listener }>();
  private watcher?: Watcher;
  private closed = false;

  constructor(private store: Store, private prefix = '/registry/', private capacity = 20_000) {}

  async start(): Promise<void> {
    const rev = await this.store.currentRevision();
    this.oldest = rev;
    this.latest = rev;
    await this.watchFrom(rev);
  }

  private async watchFrom(rev: number): Promise<void> {
    this.watcher = await this.store.watch(this.prefix, rev, (ev) => this.push(ev), (err) => void this.recover(err));
  }

  /** The store watch broke (etcd member restart): resume after the last event seen. */
  private async recover(err: Error): Promise<void> {
    if (this.closed) return;
    await this.watcher?.cancel().catch(() => undefined);
    if (err instanceof CompactedError) {
      // History we never saw is gone: everyone must relist.
      this.events = []; this.head = 0;
      this.latest = this.oldest = await this.store.currentRevision();
      for (const l of this.listeners) l.fn({ type: 'DELETE', key: '', value: Buffer.alloc(0), revision: -1, createRevision: 0 });
      this.listeners.clear();
    }
    const backoff = new Backoff({ initialMs: 100, maxMs: 5000 });
    while (!this.closed) {
      try {
        await this.watchFrom(this.latest);
        return;
      } catch {
        await new Promise((r) => setTimeout(r, backoff.next()));
      }
    }
  }

  get revision(): number {
    return this.latest;
  }

  private push(ev: WatchEvent): void {
    if (ev.revision <= this.latest) return;
    this.latest = ev.revision;
    this.events.push(ev);
    if (this.events.length - this.head > this.capacity) {
      this.oldest = this.events[this.head].revision;
      this.head++;
      if (this.head > this.capacity) { this.events = this.events.slice(this.head); this.head = 0; }
    }
    for (const l of this.listeners) {
      if (ev.revision > l.after && ev.key.startsWith(l.prefix)) l.fn(ev);
    }
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
    const entry = { prefix, after: Math.max(afterRevision, this.latest), fn };
    this.listeners.add(entry);
    return () => { this.listeners.delete(entry); };
  }

  async stop(): Promise<void> {
    this.closed = true;
    this.listeners.clear();
    await this.watcher?.cancel();
  }
}
