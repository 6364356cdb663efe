// The one place above every store where a too-large object is refused: a Store that checks
// each value written against maxStoredObjectBytes before the backend sees it, and answers a
// backend's own refusal (etcd's "request is too large", when its limit is lower) the same
// way: 413 RequestEntityTooLarge, nothing written.
import { DelegatingStore } from '../../storage/delegating-store.js';
import { ValueTooLargeError, type Store } from '../../storage/store.js';
import { tooLarge } from '../errors.js';
import { maxStoredObjectBytes } from '../limits.js';

const refusal = (detail: string) => tooLarge(`Request entity too large: ${detail}`);

class SizeLimitedStore extends DelegatingStore {
  constructor(inner: Store, private readonly limit: number) {
    super(inner);
  }

  override create(key: string, value: Buffer): Promise<number> {
    this.check(value);
    return this.mapped(() => this.inner.create(key, value));
  }

  override update(key: string, value: Buffer, expectedRevision: number): Promise<number> {
    this.check(value);
    return this.mapped(() => this.inner.update(key, value, expectedRevision));
  }

  private check(value: Buffer): void {
    if (value.length > this.limit) throw refusal(`the object is ${value.length} bytes when stored, more than the limit of ${this.limit}`);
  }

  private async mapped<T>(write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (e) {
      if (e instanceof ValueTooLargeError) throw refusal(`the store refused the object: ${e.message}`);
      throw e;
    }
  }
}

export function limitObjectSize(store: Store, limit = maxStoredObjectBytes): Store {
  return new SizeLimitedStore(store, limit);
}
