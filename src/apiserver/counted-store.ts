// The store as the API server uses it, counting the lists it sends to storage
// (apiserver_storage_list_total): reads the watch cache should absorb show up here.
import type { Counter } from 'prom-client';
import type { KeyValue, ListOptions, ListResult, Store, WatchEvent, Watcher } from '../storage/store.js';

export class CountedStore implements Store {
  constructor(private readonly inner: Store, private readonly lists: Counter<'resource'>) {}

  get(key: string): Promise<KeyValue | null> { return this.inner.get(key); }

  list(prefix: string, opts?: ListOptions): Promise<ListResult> {
    // `/registry/<resource>/...`; the watch cache's list of all of `/registry/` has none.
    this.lists.inc({ resource: prefix.split('/')[2] ?? '' });
    return this.inner.list(prefix, opts);
  }

  create(key: string, value: Buffer): Promise<number> { return this.inner.create(key, value); }
  update(key: string, value: Buffer, expectedRevision: number): Promise<number> { return this.inner.update(key, value, expectedRevision); }
  delete(key: string, expectedRevision?: number): Promise<{ revision: number; prev: KeyValue }> { return this.inner.delete(key, expectedRevision); }
  watch(prefix: string, afterRevision: number, onEvent: (ev: WatchEvent) => void, onError: (err: Error) => void): Promise<Watcher> {
    return this.inner.watch(prefix, afterRevision, onEvent, onError);
  }
  currentRevision(): Promise<number> { return this.inner.currentRevision(); }
  compact(revision: number): Promise<void> { return this.inner.compact(revision); }
  checkHealth(timeoutMs: number): Promise<void> { return this.inner.checkHealth(timeoutMs); }
  close(): Promise<void> { return this.inner.close(); }
}
