// The watch cache over a real SQLite store: its state follows every write (get, list and
// snapshot answer like the store does), listing the store once at start-up only, and
// waitUntil resolves when the cache reaches a revision or reports that it did not.
import t, { type Test } from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../../src/storage/index.js';
import type { ListOptions, ListResult, Store } from '../../src/storage/store.js';
import { WatchCache } from '../../src/storage/watch-cache.js';

const dir = mkdtempSync(join(tmpdir(), 'capstan-watch-cache-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

async function setup(t: Test): Promise<{ store: Store; cache: WatchCache; lists: () => number }> {
  const store = await openStore(`sqlite://${join(dir, `store-${++n}.db`)}`, { synchronous: 'NORMAL' });
  let count = 0;
  const real = store.list.bind(store);
  // Counts the store's lists; the store itself answers them.
  store.list = (prefix: string, opts?: ListOptions): Promise<ListResult> => { count++; return real(prefix, opts); };
  await store.create('/registry/configmaps/a/one', Buffer.from('1'));
  await store.create('/registry/configmaps/b/two', Buffer.from('2'));
  await store.create('/registry/secrets/a/s', Buffer.from('s'));
  const cache = new WatchCache(store, '/registry/', 10);
  await cache.start();
  t.teardown(async () => { await cache.stop(); await store.close(); });
  return { store, cache, lists: () => count };
}

const settle = (cache: WatchCache, store: Store) => store.currentRevision().then((rev) => cache.waitUntil(rev, 5000));
const keys = (r: { items: Array<{ key: string }> }) => r.items.map((i) => i.key).sort();

t.test('the state follows creates, updates and deletes', async (t) => {
  const { store, cache, lists } = await setup(t);
  t.equal(lists(), 1, 'one list at start-up');
  await store.create('/registry/configmaps/a/three', Buffer.from('3'));
  const one = await store.get('/registry/configmaps/a/one');
  await store.update('/registry/configmaps/a/one', Buffer.from('1b'), one!.modRevision);
  await store.delete('/registry/configmaps/b/two');
  t.ok(await settle(cache, store));

  for (const prefix of ['/registry/', '/registry/configmaps/', '/registry/configmaps/a/', '/registry/configmaps/b/', '/registry/config', '/registry/configmaps/a/o']) {
    const fromStore = await store.list(prefix);
    const fromCache = await cache.list(prefix);
    t.same(fromCache.items, fromStore.items, `list ${prefix} as the store answers it`);
    t.equal(fromCache.revision, fromStore.revision);
    t.same(keys(cache.snapshot(prefix)), keys(fromStore), `snapshot ${prefix}`);
  }
  t.same(await cache.get('/registry/configmaps/a/one'), await store.get('/registry/configmaps/a/one'));
  t.equal(await cache.get('/registry/configmaps/b/two'), null, 'deleted');
  t.same(keys(await cache.list('/registry/configmaps/', { startAfter: '/registry/configmaps/a/one' })), ['/registry/configmaps/a/three']);
  t.equal(lists(), 1 + 6, 'the cache never listed the store again');
});

t.test('waitUntil reports whether the cache reached a revision in time', async (t) => {
  const { store, cache } = await setup(t);
  const now = await store.currentRevision();
  t.equal(await cache.waitUntil(now, 10), true, 'already there');
  t.equal(await cache.waitUntil(now + 5, 50), false, 'nothing written: not reached');
  const waiting = cache.waitUntil(now + 1, 5000);
  t.equal(cache.waitingReads, 1);
  await store.create('/registry/configmaps/a/late', Buffer.from('x'));
  t.equal(await waiting, true);
  t.equal(cache.waitingReads, 0);
});

t.test('a snapshot and a subscription from its revision neither miss nor repeat', async (t) => {
  const { store, cache } = await setup(t);
  const seen: string[] = [];
  const writes = store.create('/registry/configmaps/a/racing', Buffer.from('r'));
  const snap = cache.snapshot('/registry/configmaps/');
  const stop = cache.subscribe('/registry/configmaps/', snap.revision, (ev) => seen.push(`${ev.type} ${ev.key}`));
  t.teardown(stop);
  await writes;
  await store.delete('/registry/configmaps/a/one');
  t.ok(await settle(cache, store));
  const initial = snap.items.map((ev) => ev.key);
  const all = [...initial.map((k) => `PUT ${k}`), ...seen];
  t.equal(all.filter((e) => e === 'PUT /registry/configmaps/a/racing').length, 1, 'the racing write once, in the state or as an event');
  t.same(seen.at(-1), 'DELETE /registry/configmaps/a/one');
});
