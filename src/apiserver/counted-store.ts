// The store as the API server uses it, counting the lists it sends to storage
// (apiserver_storage_list_total): reads the watch cache should absorb show up here.
import type { Counter } from 'prom-client';
import { DelegatingStore } from '../storage/delegating-store.js';
import type { ListOptions, ListResult, Store } from '../storage/store.js';

export class CountedStore extends DelegatingStore {
  constructor(inner: Store, private readonly lists: Counter<'resource'>) {
    super(inner);
  }

  override list(prefix: string, opts?: ListOptions): Promise<ListResult> {
    // `/registry/<resource>/...`; the watch cache's list of all of `/registry/` has none.
    this.lists.inc({ resource: prefix.split('/')[2] ?? '' });
    return this.inner.list(prefix, opts);
  }
}
