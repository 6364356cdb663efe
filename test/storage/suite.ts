// The shared storage suite: every backend runs it against a fresh store per test. It never
// assumes revisions start at 1 (an etcd cluster is shared between tests), only their order.
import type { Test } from 'tap';
import {
  CompactedError,
  ConflictError,
  FutureRevisionError,
  KeyExistsError,
  NotFoundError,
  StoreError,
  type Store,
} from '../../src/storage/index.js';
import { summarize, WatchRecorder } from './watch-recorder.js';

export type StoreFactory = (t: Test) => Promise<Store>;

const b = (s: string): Buffer => Buffer.from(s);

async function expectError(t: Test, p: Promise<unknown>, cls: new (...args: never[]) => Error, what: string) {
  try {
    await p;
    t.fail(`${what}: expected ${cls.name}, but it succeeded`);
    return undefined;
  } catch (err) {
    t.ok(err instanceof cls, `${what}: ${cls.name} (got ${String(err)})`);
    return err;
  }
}

/** The error a watch from `after` fails with, thrown by watch() or delivered to onError. */
async function watchError(store: Store, prefix: string, after: number): Promise<Error> {
  let rec: WatchRecorder;
  try {
    rec = await WatchRecorder.start(store, prefix, after);
  } catch (err) {
    return err as Error;
  }
  return rec.waitForError().finally(() => rec.cancel());
}

export function storageSuite(t: Test, factory: StoreFactory): void {
  const withStore = (name: string, fn: (t: Test, store: Store) => Promise<void>) =>
    t.test(name, async (t) => {
      const store = await factory(t);
      t.teardown(() => store.close());
      await fn(t, store);
    });

  withStore('create then get', async (t, store) => {
    const rev = await store.create('/registry/pods/default/a', b('one'));
    const kv = await store.get('/registry/pods/default/a');
    t.same(
      kv && { key: kv.key, value: kv.value.toString(), mod: kv.modRevision, created: kv.createRevision },
      { key: '/registry/pods/default/a', value: 'one', mod: rev, created: rev },
    );
    t.equal(await store.get('/registry/pods/default/missing'), null);
    t.equal(await store.get('/registry/pods/default/'), null, 'a prefix of a key is not a key');
  });

  withStore('create of an existing key fails with KeyExists; after delete it creates anew', async (t, store) => {
    const first = await store.create('/registry/pods/default/a', b('one'));
    const err = await expectError(t, store.create('/registry/pods/default/a', b('two')), KeyExistsError, 'second create');
    t.equal((err as KeyExistsError | undefined)?.key, '/registry/pods/default/a');
    t.equal((await store.get('/registry/pods/default/a'))?.value.toString(), 'one', 'value unchanged');
    await store.delete('/registry/pods/default/a');
    const again = await store.create('/registry/pods/default/a', b('three'));
    const kv = await store.get('/registry/pods/default/a');
    t.ok(again > first);
    t.equal(kv?.createRevision, again, 'a re-created key has a new createRevision');
  });

  withStore('update with the current revision succeeds and keeps createRevision', async (t, store) => {
    const created = await store.create('/registry/cm/ns/x', b('v1'));
    const updated = await store.update('/registry/cm/ns/x', b('v2'), created);
    t.ok(updated > created);
    const kv = await store.get('/registry/cm/ns/x');
    t.same(kv && [kv.value.toString(), kv.modRevision, kv.createRevision], ['v2', updated, created]);
  });

  withStore('failed writes: NotFound and Conflict, and nothing changes', async (t, store) => {
    const created = await store.create('/registry/cm/ns/x', b('v1'));
    const current = await store.update('/registry/cm/ns/x', b('v2'), created);
    await store.create('/registry/cm/ns/gone', b('g'));
    await store.delete('/registry/cm/ns/gone');
    const cases: Array<[string, () => Promise<unknown>, new (...a: never[]) => Error]> = [
      ['update of a missing key', () => store.update('/registry/cm/ns/missing', b('v'), current), NotFoundError],
      ['update of a deleted key', () => store.update('/registry/cm/ns/gone', b('v'), current), NotFoundError],
      ['delete of a missing key', () => store.delete('/registry/cm/ns/missing'), NotFoundError],
      ['delete of a deleted key', () => store.delete('/registry/cm/ns/gone'), NotFoundError],
      ['update with a stale revision', () => store.update('/registry/cm/ns/x', b('v3'), created), ConflictError],
      ['delete with a stale revision', () => store.delete('/registry/cm/ns/x', created), ConflictError],
    ];
    const before = await store.currentRevision();
    for (const [what, op, cls] of cases) {
      const err = await expectError(t, op(), cls, what);
      if (err instanceof ConflictError) t.equal(err.currentRevision, current, `${what}: reports the current revision`);
    }
    t.equal(await store.currentRevision(), before, 'failed writes use no revision');
    t.equal((await store.get('/registry/cm/ns/x'))?.value.toString(), 'v2');
  });

  withStore('delete with the current revision returns the deleted value', async (t, store) => {
    const created = await store.create('/registry/cm/ns/x', b('v1'));
    const { revision, prev } = await store.delete('/registry/cm/ns/x', created);
    t.ok(revision > created);
    t.same([prev.key, prev.value.toString(), prev.modRevision, prev.createRevision], ['/registry/cm/ns/x', 'v1', created, created]);
    t.equal(await store.get('/registry/cm/ns/x'), null);
  });

  withStore('list by prefix matches only that prefix, in key order', async (t, store) => {
    for (const key of ['/registry/pods/ns/b', '/registry/podsx/ns/a', '/registry/pods', '/registry/pods/ns/a',
      '/registry/pod/ns/a', '/registry/pods/other/c', '/registry/pods0']) {
      await store.create(key, b(key));
    }
    const result = await store.list('/registry/pods/');
    t.same(result.items.map((kv) => kv.key), ['/registry/pods/ns/a', '/registry/pods/ns/b', '/registry/pods/other/c']);
    t.same(result.items.map((kv) => kv.value.toString()), result.items.map((kv) => kv.key), 'values match keys');
    t.equal(result.more, false);
    t.equal(result.revision, await store.currentRevision());
    t.same((await store.list('/registry/pods/ns/')).items.map((kv) => kv.key), ['/registry/pods/ns/a', '/registry/pods/ns/b']);
    t.same((await store.list('/registry/nothing/')).items, []);
  });

  withStore('list pages with limit and startAfter at one revision', async (t, store) => {
    const keys = ['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((k) => `/registry/cm/ns/${k}`);
    for (const key of keys) await store.create(key, b(key));
    const first = await store.list('/registry/cm/', { limit: 3 });
    // A write after the first page must not show in later pages read at its revision.
    await store.create('/registry/cm/ns/cc', b('late'));
    await store.delete('/registry/cm/ns/e');
    const pages = [first];
    while (pages[pages.length - 1].more) {
      const last = pages[pages.length - 1];
      pages.push(await store.list('/registry/cm/', {
        limit: 3, startAfter: last.items[last.items.length - 1].key, revision: first.revision,
      }));
    }
    t.same(pages.map((p) => p.items.map((kv) => kv.key.slice(-1))), [['a', 'b', 'c'], ['d', 'e', 'f'], ['g']]);
    t.same(pages.map((p) => p.more), [true, true, false]);
    t.same(pages.map((p) => p.revision), [first.revision, first.revision, first.revision]);
    const exact = await store.list('/registry/cm/', { limit: 8 });
    t.equal(exact.items.length, 7, 'now: 7 keys (cc added, e deleted)');
    t.equal(exact.more, false, 'a limit above the count leaves more=false');
    const cut = await store.list('/registry/cm/', { limit: 7 });
    t.equal(cut.more, false, 'a limit equal to the count leaves more=false');
  });

  withStore('list counts what is left of the range when asked', async (t, store) => {
    for (const k of ['a', 'b', 'c', 'd', 'e']) await store.create(`/registry/cm/ns/${k}`, b(k));
    await store.create('/registry/other/ns/x', b('x'));
    const first = await store.list('/registry/cm/', { limit: 2, count: true });
    t.equal(first.count, 5, 'the whole range, the returned keys included');
    await store.delete('/registry/cm/ns/d');
    const second = await store.list('/registry/cm/', { limit: 2, count: true, startAfter: first.items[1].key, revision: first.revision });
    t.equal(second.count, 3, 'from the page start, at the list revision (d still counts)');
    const last = await store.list('/registry/cm/', { limit: 2, count: true, startAfter: second.items[1].key, revision: first.revision });
    t.same([last.items.length, last.more, last.count], [1, false, 1]);
    t.equal((await store.list('/registry/cm/', { limit: 2, count: true })).count, 4, 'now');
    t.equal((await store.list('/registry/cm/', { limit: 2 })).count, undefined, 'not unless asked');
  });

  withStore('list at an older revision sees the state of then', async (t, store) => {
    const a1 = await store.create('/registry/cm/ns/a', b('a1'));
    await store.create('/registry/cm/ns/b', b('b1'));
    const then = await store.currentRevision();
    await store.update('/registry/cm/ns/a', b('a2'), a1);
    await store.delete('/registry/cm/ns/b');
    await store.create('/registry/cm/ns/c', b('c1'));
    const old = await store.list('/registry/cm/', { revision: then });
    t.same(old.items.map((kv) => `${kv.key.slice(-1)}=${kv.value}@${kv.modRevision}`), [`a=a1@${a1}`, `b=b1@${then}`]);
    t.equal(old.revision, then);
    const now = await store.list('/registry/cm/');
    t.same(now.items.map((kv) => `${kv.key.slice(-1)}=${kv.value}`), ['a=a2', 'c=c1']);
    await expectError(t, store.list('/registry/cm/', { revision: now.revision + 1000 }), FutureRevisionError, 'future revision');
  });

  withStore('watch replays every event after a revision, in order, with prevValue', async (t, store) => {
    const start = await store.currentRevision();
    const r1 = await store.create('/registry/cm/ns/a', b('a1'));
    await store.create('/registry/other/ns/z', b('ignored'));
    const r2 = await store.update('/registry/cm/ns/a', b('a2'), r1);
    const rb = await store.create('/registry/cm/ns/b', b('b1'));
    await store.delete('/registry/cm/ns/a', r2);
    const rec = await WatchRecorder.start(store, '/registry/cm/', start);
    t.teardown(() => rec.cancel());
    const events = await rec.waitForEvents(4);
    t.same(summarize(events), [
      'PUT /registry/cm/ns/a=a1',
      'PUT /registry/cm/ns/a=a2 prev=a1',
      'PUT /registry/cm/ns/b=b1',
      'DELETE /registry/cm/ns/a=a2 prev=a2',
    ]);
    t.same(events.map((ev) => ev.createRevision), [r1, r1, rb, r1]);
    const revs = events.map((ev) => ev.revision);
    t.same(revs, [...revs].sort((x, y) => x - y), 'revisions ascend');
    t.equal(revs[0], r1);
    const fromMiddle = await WatchRecorder.start(store, '/registry/cm/', r2);
    t.teardown(() => fromMiddle.cancel());
    t.same(summarize(await fromMiddle.waitForEvents(2)), ['PUT /registry/cm/ns/b=b1', 'DELETE /registry/cm/ns/a=a2 prev=a2'],
      'only events after the given revision');
  });

  withStore('watch delivers live events and stops on cancel', async (t, store) => {
    const rec = await WatchRecorder.start(store, '/registry/cm/', await store.currentRevision());
    const r1 = await store.create('/registry/cm/ns/a', b('a1'));
    await store.create('/registry/cmx/ns/a', b('other prefix'));
    await store.update('/registry/cm/ns/a', b('a2'), r1);
    t.same(summarize(await rec.waitForEvents(2)), ['PUT /registry/cm/ns/a=a1', 'PUT /registry/cm/ns/a=a2 prev=a1']);
    await rec.cancel();
    await store.create('/registry/cm/ns/after-cancel', b('x'));
    const probe = await WatchRecorder.start(store, '/registry/cm/ns/after-cancel', r1);
    await probe.waitForEvents(1);
    await probe.cancel();
    t.equal(rec.events.length, 2, 'nothing delivered after cancel');
  });

  withStore('watch from an old revision switches to live without gaps or duplicates', async (t, store) => {
    const start = await store.currentRevision();
    const written: number[] = [];
    for (let i = 0; i < 20; i++) written.push(await store.create(`/registry/cm/ns/k${i}`, b(`${i}`)));
    // Keep writing while the watch replays, then check the revisions it saw are exactly ours.
    const writer = (async () => {
      for (let i = 20; i < 60; i++) written.push(await store.create(`/registry/cm/ns/k${i}`, b(`${i}`)));
    })();
    const rec = await WatchRecorder.start(store, '/registry/cm/', start);
    t.teardown(() => rec.cancel());
    await writer;
    await rec.waitForEvents(60);
    await new Promise((resolve) => setTimeout(resolve, 50));
    t.same(rec.events.map((ev) => ev.revision), written);
  });

  withStore('compaction: old lists and watches fail with Compacted, current data stays', async (t, store) => {
    const a1 = await store.create('/registry/cm/ns/a', b('a1'));
    const beforeCompact = a1 - 1;
    await store.update('/registry/cm/ns/a', b('a2'), a1);
    await store.create('/registry/cm/ns/b', b('b1'));
    await store.delete('/registry/cm/ns/b');
    const compactAt = await store.currentRevision();
    const a3 = await store.update('/registry/cm/ns/a', b('a3'), (await store.get('/registry/cm/ns/a'))!.modRevision);
    await store.compact(compactAt);
    await store.compact(compactAt - 1); // at or below an earlier compaction: no-op
    await expectError(t, store.list('/registry/cm/', { revision: a1 }), CompactedError, 'list before the compaction');
    const watchErr = await watchError(store, '/registry/cm/', beforeCompact);
    t.ok(watchErr instanceof CompactedError, `watch before the compaction: CompactedError (got ${String(watchErr)})`);
    const atCompact = await store.list('/registry/cm/', { revision: compactAt });
    t.same(atCompact.items.map((kv) => `${kv.key.slice(-1)}=${kv.value}`), ['a=a2'], 'the state at the compacted revision stays');
    t.same((await store.list('/registry/cm/')).items.map((kv) => `${kv.key.slice(-1)}=${kv.value}`), ['a=a3']);
    const rec = await WatchRecorder.start(store, '/registry/cm/', compactAt);
    t.teardown(() => rec.cancel());
    t.same(summarize(await rec.waitForEvents(1)), ['PUT /registry/cm/ns/a=a3 prev=a2']);
    t.equal(rec.events[0].revision, a3);
    t.equal(await store.currentRevision(), a3);
  });

  withStore('concurrent writes of one key: exactly one wins', async (t, store) => {
    const creates = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) => store.create('/registry/cm/ns/race', b(`writer ${i}`))));
    const won = creates.filter((r) => r.status === 'fulfilled');
    t.equal(won.length, 1, 'one create wins');
    t.ok(creates.every((r) => r.status === 'fulfilled' || r.reason instanceof KeyExistsError), 'the others get KeyExists');
    const rev = (won[0] as PromiseFulfilledResult<number>).value;
    const updates = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) => store.update('/registry/cm/ns/race', b(`updater ${i}`), rev)));
    t.equal(updates.filter((r) => r.status === 'fulfilled').length, 1, 'one update wins');
    t.ok(updates.every((r) => r.status === 'fulfilled' || r.reason instanceof ConflictError), 'the others conflict');
  });

  withStore('currentRevision is monotonic and covers the revisions writes return', async (t, store) => {
    const key = '/registry/cm/ns/counter';
    const seen = [await store.currentRevision()];
    let rev = await store.create(key, b('0'));
    const check = async (written: number) => {
      const now = await store.currentRevision();
      t.ok(now >= written && now > seen[seen.length - 1], `revision ${now} after write at ${written}, previous ${seen[seen.length - 1]}`);
      seen.push(now);
    };
    await check(rev);
    for (let i = 1; i <= 5; i++) {
      rev = await store.update(key, b(`${i}`), rev);
      await check(rev);
    }
    await check((await store.delete(key)).revision);
    await check(await store.create(key, b('again')));
  });

  withStore('checkHealth resolves on a working store and fails once it is closed', async (t, store) => {
    await store.checkHealth(2_000);
    t.pass('healthy');
    await store.close();
    await expectError(t, store.checkHealth(2_000), StoreError, 'checkHealth after close');
  });

  withStore('close ends the store: later operations fail with StoreError', async (t, store) => {
    const rec = await WatchRecorder.start(store, '/registry/cm/', await store.currentRevision());
    await store.create('/registry/cm/ns/a', b('a'));
    await rec.waitForEvents(1);
    await store.close();
    await expectError(t, store.get('/registry/cm/ns/a'), StoreError, 'get after close');
    await expectError(t, store.create('/registry/cm/ns/b', b('b')), StoreError, 'create after close');
    await expectError(t, store.list('/registry/cm/'), StoreError, 'list after close');
    t.equal(rec.events.length, 1, 'no event after close');
    await store.close();
    t.pass('a second close is harmless');
  });
}
