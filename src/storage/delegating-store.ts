// A Store that forwards every call to another: the base for wrappers that change one or two
// verbs (size limits, counting), so a method added to Store is forwarded in one place.
import type { KeyValue, ListOptions, ListResult, Store, WatchEvent, Watcher } from './store.js';

export class DelegatingStore implements Store {
  constructor(protected readonly inner: Store) {}

  get(key: string): Promise<KeyValue | null> { return this.inner.get(key); }
  list(prefix: string, opts?: ListOptions): Promise<ListResult> { return this.inner.list(prefix, opts); }
  create(key: string, value: Buffer): Promise<number> { return this.inner.create(key, value); }
  update(key: string, value: Buffer, expectedRevision: number): Promise<number> { return this.inner.update(key, value, expectedRevision); }
  delete(key: string, expectedRevision?: number): Promise<{ revision: number; prev: KeyValue }> { return this.inner.delete(key, expectedRevision); }
  watch(prefix: string, afterRevision: number, onEvent: (ev: WatchEvent) => void, onError: (err: Error) => void): Promise<Watcher> {
    return this.inner.watch(prefix, afterRevision, onEvent, onError);
  }
  currentRevision(): Promise<number> { return this.inner.currentRevision(); }
  localRevision(): number | undefined { return this.inner.localRevision?.(); }
  compact(revision: number): Promise<void> { return this.inner.compact(revision); }
  checkHealth(timeoutMs: number): Promise<void> { return this.inner.checkHealth(timeoutMs); }
  close(): Promise<void> { return this.inner.close(); }
}
