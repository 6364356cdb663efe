// The one place above every store where a too-large object is refused: a Store that checks
// each value written against maxStoredObjectBytes before the backend sees it, and answers a
// backend's own refusal (etcd's "request is too large", when its limit is lower) the same
// way: 413 RequestEntityTooLarge, nothing written.
import { ValueTooLargeError, type Store } from '../../storage/store.js';
import { tooLarge } from '../errors.js';
import { maxStoredObjectBytes } from '../limits.js';

const refusal = (detail: string) => tooLarge(`Request entity too large: ${detail}`);

export function limitObjectSize(store: Store, limit = maxStoredObjectBytes): Store {
  const check = (value: Buffer) => {
    if (value.length > limit) throw refusal(`the object is ${value.length} bytes when stored, more than the limit of ${limit}`);
  };
  const mapped = async <T>(write: () => Promise<T>): Promise<T> => {
    try {
      return await write();
    } catch (e) {
      if (e instanceof ValueTooLargeError) throw refusal(`the store refused the object: ${e.message}`);
      throw e;
    }
  };
  return {
    get: (key) => store.get(key),
    list: (prefix, opts) => store.list(prefix, opts),
    create: (key, value) => { check(value); return mapped(() => store.create(key, value)); },
    update: (key, value, expected) => { check(value); return mapped(() => store.update(key, value, expected)); },
    delete: (key, expected) => store.delete(key, expected),
    watch: (prefix, after, onEvent, onError) => store.watch(prefix, after, onEvent, onError),
    currentRevision: () => store.currentRevision(),
    compact: (revision) => store.compact(revision),
    checkHealth: (timeoutMs) => store.checkHealth(timeoutMs),
    close: () => store.close(),
  };
}
