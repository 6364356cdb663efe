// Where a GET or LIST is read from, after kube-apiserver's cacher delegator: the most recent
// state from storage; "any" from the watch cache; "not older than N" from the watch cache once
// it has reached N; "exactly N" from storage's history. Several API servers may share one etcd,
// so a client can bring a resourceVersion this server's cache has not seen yet: the read waits
// up to freshnessTimeoutMs for it, then answers 504 Too large resource version.
import { FutureRevisionError, type Store } from '../storage/store.js';
import type { WatchCache } from '../storage/watch-cache.js';
import { freshnessTimeoutMs, tooLargeResourceVersion, type ReadAt } from './resource-version.js';
import type { ListSource } from './registry/index.js';

/**
 * The source for a read of `at` that is not exact: the cache when it is fresh enough; storage
 * when the cache lags behind storage (a read from storage is as new as can be); else the cache
 * once it catches up, or 504.
 */
export async function freshSource(at: ReadAt, cache: WatchCache, store: Store): Promise<ListSource & Pick<Store, 'get'>> {
  if (at.kind === 'latest') return latestSource(cache, store);
  if (at.kind === 'exact') return store;
  if (at.kind === 'any' || cache.revision >= at.revision) return cache;
  if ((await store.currentRevision()) >= at.revision) return store;
  if (await cache.waitUntil(at.revision, freshnessTimeoutMs)) return cache;
  throw tooLargeResourceVersion(at.revision, cache.revision);
}

/**
 * A consistent read (resourceVersion unset): the cache when the store knows its newest revision
 * without I/O (SQLite) and the cache has reached it — it then holds exactly what the store
 * would answer — else the store. With etcd, asking for the revision costs what the read does.
 */
function latestSource(cache: WatchCache, store: Store): ListSource & Pick<Store, 'get'> {
  const local = store.localRevision?.();
  return local !== undefined && cache.revision >= local ? cache : store;
}

/**
 * The source for a list of `at` that is not exact. A consistent list (resourceVersion unset)
 * comes from the cache when the cache has caught up with storage's current revision, as
 * kube-apiserver's ConsistentListFromCache does; SQLite knows that revision without I/O, etcd
 * answers it with one range request. Otherwise storage answers: the cache may lag behind a
 * revision written outside its prefix (another API server's keys in a shared etcd), which only
 * etcd's progress notify could confirm; that is not implemented, so such a list reads etcd.
 */
export async function listSource(at: ReadAt, cache: WatchCache, store: Store, continuing: boolean): Promise<ListSource> {
  // A continuation reads storage at its token's revision; the cache only holds its newest state.
  if (continuing) return store;
  if (at.kind !== 'latest') return freshSource(at, cache, store);
  const current = await store.currentRevision();
  return cache.revision >= current ? cache : store;
}

/**
 * Consistent reads for the server's own lookups (admission): the watch cache when it has caught
 * up with storage's current revision (then it answers as storage would), else storage.
 */
export function consistentSource(cache: WatchCache, store: Store): ListSource & Pick<Store, 'get'> {
  return {
    list: async (prefix, opts) => (await listSource({ kind: 'latest' }, cache, store, !!opts?.startAfter || !!opts?.revision)).list(prefix, opts),
    get: async (key) => {
      const current = await store.currentRevision();
      return (cache.revision >= current ? cache : store).get(key);
    },
  };
}

/**
 * Runs a read at an exact revision; a revision storage has not reached yet is waited for like
 * a "not older than" one.
 */
export async function atExactRevision<T>(revision: number, cache: WatchCache, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (e) {
    if (!(e instanceof FutureRevisionError)) throw e;
    if (!(await cache.waitUntil(revision, freshnessTimeoutMs))) throw tooLargeResourceVersion(revision, e.current);
    return read();
  }
}
