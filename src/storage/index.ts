// The storage layer's public face: open a store by URL, and the contract every backend meets.
import { resolve } from 'node:path';
import { SqliteStore, type Synchronous } from './sqlite/index.js';
import { StoreError, type Store } from './store.js';

export * from './store.js';
export { SqliteStore } from './sqlite/index.js';
export type { SqliteOptions, Synchronous } from './sqlite/index.js';
export type { EtcdOptions } from './etcd/index.js';

export interface OpenStoreOptions {
  /** SQLite: overrides `?synchronous=` in the URL. Default FULL. */
  synchronous?: Synchronous;
  /** etcd: overrides `?prefix=` in the URL; prepended to every key in etcd. */
  keyPrefix?: string;
  /** etcd: deadline of each call in ms (default 60 000). */
  callTimeoutMs?: number;
}

/**
 * Opens a store from a URL:
 * - `sqlite:///abs/path/file.db` or `sqlite://relative/path.db` (relative to the working
 *   directory); `?synchronous=normal` trades power-loss durability for speed.
 * - `etcd://host:port,host:port` (plain http to each member); `?prefix=/x` keeps every key
 *   under /x in etcd, so several stores can share one cluster.
 */
export async function openStore(url: string, opts: OpenStoreOptions = {}): Promise<Store> {
  const scheme = /^([a-z0-9]+):\/\//i.exec(url)?.[1]?.toLowerCase();
  const rest = url.slice((scheme?.length ?? 0) + 3);
  const [location, query = ''] = splitOnce(rest, '?');
  const params = new URLSearchParams(query);
  switch (scheme) {
    case 'sqlite': {
      if (!location) throw new StoreError(`no file in ${url}`);
      const synchronous = opts.synchronous ?? parseSynchronous(params.get('synchronous'));
      return SqliteStore.open(resolve(decodeURIComponent(location)), { synchronous });
    }
    case 'etcd': {
      const endpoints = location.split(',').filter(Boolean).map((hostPort) => `http://${hostPort}`);
      if (endpoints.length === 0) throw new StoreError(`no endpoints in ${url}`);
      // Loaded only here: the etcd client and gRPC cost ~6 MB of heap a SQLite server never uses.
      const { EtcdStore } = await import('./etcd/index.js');
      return EtcdStore.open({
        endpoints,
        keyPrefix: opts.keyPrefix ?? params.get('prefix') ?? '',
        callTimeoutMs: opts.callTimeoutMs,
      });
    }
    default:
      throw new StoreError(`unsupported store URL ${url} (want sqlite:///path/file.db or etcd://host:port,...)`);
  }
}

function parseSynchronous(value: string | null): Synchronous | undefined {
  if (value === null) return undefined;
  const upper = value.toUpperCase();
  if (upper === 'FULL' || upper === 'NORMAL') return upper;
  throw new StoreError(`synchronous must be full or normal, not ${value}`);
}

function splitOnce(s: string, sep: string): [string, string?] {
  const i = s.indexOf(sep);
  return i < 0 ? [s] : [s.slice(0, i), s.slice(i + 1)];
}
