// The store as the API server calls it, timed: every call is observed in
// etcd_request_duration_seconds (operation, type = the key's resource, as etcd3's store labels
// it). A request's own trace records its writes where the registry makes them (tracedWrite).
import type { Histogram } from 'prom-client';
import { DelegatingStore } from '../../storage/delegating-store.js';
import type { KeyValue, ListOptions, ListResult, Store } from '../../storage/store.js';
import { now } from './request-trace.js';
import { HistogramChildren } from '../metric-children.js';

export class TimedStore extends DelegatingStore {
  private readonly series: HistogramChildren;

  constructor(inner: Store, histogram: Histogram<'operation' | 'type'>) {
    super(inner);
    this.series = new HistogramChildren(histogram);
  }

  private async timed<T>(operation: string, key: string, call: Promise<T>): Promise<T> {
    const start = now();
    try {
      return await call;
    } finally {
      const type = key.split('/')[2] ?? '';
      this.series.observe(`${operation}\0${type}`, () => ({ operation, type }), (now() - start) / 1000);
    }
  }

  override get(key: string): Promise<KeyValue | null> { return this.timed('get', key, this.inner.get(key)); }
  override list(prefix: string, opts?: ListOptions): Promise<ListResult> { return this.timed('list', prefix, this.inner.list(prefix, opts)); }
  override create(key: string, value: Buffer): Promise<number> { return this.timed('create', key, this.inner.create(key, value)); }
  override update(key: string, value: Buffer, expectedRevision: number): Promise<number> {
    return this.timed('update', key, this.inner.update(key, value, expectedRevision));
  }
  override delete(key: string, expectedRevision?: number): Promise<{ revision: number; prev: KeyValue }> {
    return this.timed('delete', key, this.inner.delete(key, expectedRevision));
  }
}
