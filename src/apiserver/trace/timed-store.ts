// The store as the API server calls it, timed: every call is observed in
// etcd_request_duration_seconds (operation, type = the key's resource, as etcd3's store labels
// it) and, inside a request, recorded as a `storage.<operation>` stage of its trace. A write
// made by a request that asked to be traced also waits (at most a second) until the watch
// cache has handed the event to every watcher, recorded as the stage `watch`.
import type { Histogram } from 'prom-client';
import { DelegatingStore } from '../../storage/delegating-store.js';
import type { KeyValue, ListOptions, ListResult, Store } from '../../storage/store.js';
import { currentTrace, now } from './request-trace.js';

const WATCH_WAIT_MS = 1000;

/** Resolves true once watchers were handed revision `rev`, false after `timeoutMs`. */
export type DeliveryWait = (rev: number, timeoutMs: number) => Promise<boolean>;

export class TimedStore extends DelegatingStore {
  /** The watch cache's wait for a revision; set once the cache exists (it is built on this store). */
  delivered?: DeliveryWait;

  constructor(inner: Store, private readonly histogram: Histogram<'operation' | 'type'>) {
    super(inner);
  }

  private async timed<T>(operation: string, key: string, fn: () => Promise<T>, revisionOf?: (out: T) => number): Promise<T> {
    const start = now();
    const trace = currentTrace();
    const labels = { operation, type: key.split('/')[2] ?? '' };
    let out: T;
    try {
      out = await fn();
    } catch (e) {
      this.histogram.observe(labels, (now() - start) / 1000);
      trace?.add(`storage.${operation}`, start, true);
      throw e;
    }
    this.histogram.observe(labels, (now() - start) / 1000);
    if (!trace) return out;
    trace.add(`storage.${operation}`, start);
    if (trace.opted && revisionOf && this.delivered) {
      const waited = now();
      const ok = await this.delivered(revisionOf(out), WATCH_WAIT_MS);
      trace.add('watch', waited, !ok);
    }
    return out;
  }

  override get(key: string): Promise<KeyValue | null> { return this.timed('get', key, () => this.inner.get(key)); }
  override list(prefix: string, opts?: ListOptions): Promise<ListResult> { return this.timed('list', prefix, () => this.inner.list(prefix, opts)); }
  override create(key: string, value: Buffer): Promise<number> { return this.timed('create', key, () => this.inner.create(key, value), (rev) => rev); }
  override update(key: string, value: Buffer, expectedRevision: number): Promise<number> {
    return this.timed('update', key, () => this.inner.update(key, value, expectedRevision), (rev) => rev);
  }
  override delete(key: string, expectedRevision?: number): Promise<{ revision: number; prev: KeyValue }> {
    return this.timed('delete', key, () => this.inner.delete(key, expectedRevision), (r) => r.revision);
  }
}
