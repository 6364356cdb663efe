// Watch as a client sees it: initial ADDED events, replay from a resourceVersion, selector
// transitions, bookmarks, 410 for history the cache no longer holds, and timeouts.
import t from 'tap';
import { fixtures, startAPIServer, type WatchEvent, type WatchStream } from '../helpers/api.js';

const api = await startAPIServer(t, { bookmarkIntervalMs: 300, watchCacheCapacity: 50 });
const c = api.client;
const ns = 'watched';
const cms = `/api/v1/namespaces/${ns}/configmaps`;
await c.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });

/** The next `n` events, failing the test if they do not come. */
async function take(w: WatchStream, n: number, timeoutMs = 5000): Promise<WatchEvent[]> {
  const out: WatchEvent[] = [];
  while (out.length < n) {
    const ev = await w.next(timeoutMs);
    if (!ev) throw new Error(`stream ended after ${out.length} of ${n} events`);
    out.push(ev);
  }
  return out;
}

/** True when no event arrives within `ms`. */
async function quiet(w: WatchStream, ms: number): Promise<boolean> {
  try {
    const ev = await w.next(ms);
    return ev === null;
  } catch {
    return true;
  }
}

const summary = (evs: WatchEvent[]) => evs.map((e) => `${e.type} ${e.object.metadata?.name ?? ''}`);

async function currentRV(path: string): Promise<string> {
  return (await c.get(path)).body.metadata.resourceVersion as string;
}

t.test('resourceVersion=0 starts with ADDED for existing objects, then live events', async (t) => {
  const path = `/api/v1/namespaces/${ns}/secrets`;
  await c.post(path, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's1' }, stringData: { a: 'b' } });
  await c.post(path, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's2' } });
  const w = await c.watch(`${path}?watch=true&resourceVersion=0`);
  t.teardown(() => w.close());
  t.equal(w.status, 200);
  t.match(w.headers['content-type'], /application\/json/);
  const initial = await take(w, 2);
  t.same(summary(initial).sort(), ['ADDED s1', 'ADDED s2']);
  t.match(initial[0].object, { kind: 'Secret', apiVersion: 'v1' });
  await c.post(path, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's3' } });
  await c.patch(path + '/s1', { metadata: { labels: { x: 'y' } } });
  await c.delete(path + '/s2');
  const live = await take(w, 3);
  t.same(summary(live), ['ADDED s3', 'MODIFIED s1', 'DELETED s2']);
  t.equal(live[1].object.metadata.labels.x, 'y');
  t.ok(Number(live[2].object.metadata.resourceVersion) > Number(live[1].object.metadata.resourceVersion), 'DELETED carries the deletion revision');
});

t.test('a watch from a resourceVersion replays every later event in order', async (t) => {
  const rv = await currentRV(cms);
  await c.post(cms, fixtures.configMap('r1'));
  await c.patch(`${cms}/r1`, { data: { v: '1' } });
  await c.post(cms, fixtures.configMap('r2'));
  await c.delete(`${cms}/r1`);
  await c.patch(`${cms}/r2`, { data: { v: '2' } });
  await c.post('/api/v1/namespaces/default/configmaps', fixtures.configMap('elsewhere'));
  const w = await c.watch(`${cms}?watch=true&resourceVersion=${rv}`);
  t.teardown(() => w.close());
  const evs = await take(w, 5);
  t.same(summary(evs), ['ADDED r1', 'MODIFIED r1', 'ADDED r2', 'DELETED r1', 'MODIFIED r2']);
  const rvs = evs.map((e) => Number(e.object.metadata.resourceVersion));
  t.same(rvs, [...rvs].sort((a, b) => a - b), 'resourceVersions increase');
  t.ok(rvs[0] > Number(rv), 'nothing at or before the requested version');
  t.ok(await quiet(w, 300), 'the other namespace is not in this watch');
  await c.post(cms, fixtures.configMap('r3'));
  t.same(summary(await take(w, 1)), ['ADDED r3'], 'then live events');

  // The same replay from the last event's version yields only what came after it.
  const again = await c.watch(`${cms}?watch=true&resourceVersion=${rvs[3]}`);
  t.teardown(() => again.close());
  t.same(summary(await take(again, 2)), ['MODIFIED r2', 'ADDED r3']);
});

t.test('the /watch/ path prefix and a single object', async (t) => {
  const rv = await currentRV(cms);
  const w = await c.watch(`/api/v1/watch/namespaces/${ns}/configmaps/one?resourceVersion=${rv}`);
  t.teardown(() => w.close());
  const byField = await c.watch(`${cms}?watch=true&fieldSelector=metadata.name%3Done&resourceVersion=${rv}`);
  t.teardown(() => byField.close());
  await c.post(cms, fixtures.configMap('two'));
  await c.post(cms, fixtures.configMap('one'));
  t.same(summary(await take(w, 1)), ['ADDED one']);
  t.same(summary(await take(byField, 1)), ['ADDED one']);
});

t.test('a label-selector watch reports objects leaving and entering the selector', async (t) => {
  await c.post(cms, fixtures.configMap('mover', { keep: 'yes' }));
  const rv = await currentRV(cms);
  const w = await c.watch(`${cms}?watch=true&labelSelector=keep%3Dyes&resourceVersion=${rv}`);
  t.teardown(() => w.close());
  await c.patch(`${cms}/mover`, { data: { a: '1' } });
  await c.patch(`${cms}/mover`, { metadata: { labels: { keep: 'no' } } });
  await c.patch(`${cms}/mover`, { data: { a: '2' } });
  await c.post(cms, fixtures.configMap('outsider', { keep: 'no' }));
  await c.patch(`${cms}/mover`, { metadata: { labels: { keep: 'yes' } } });
  await c.delete(`${cms}/mover`);
  const evs = await take(w, 4);
  t.same(summary(evs), ['MODIFIED mover', 'DELETED mover', 'ADDED mover', 'DELETED mover']);
  t.equal(evs[1].object.metadata.labels.keep, 'no', 'the DELETED event shows the object as it now is');
  t.ok(await quiet(w, 300), 'changes outside the selector are not reported');
});

t.test('allowWatchBookmarks yields BOOKMARK events', async (t) => {
  const rv = await currentRV(cms);
  const w = await c.watch(`${cms}?watch=true&allowWatchBookmarks=true&resourceVersion=${rv}`);
  t.teardown(() => w.close());
  const [bm] = await take(w, 1, 3000);
  t.equal(bm.type, 'BOOKMARK');
  t.match(bm.object, { kind: 'ConfigMap', apiVersion: 'v1', metadata: { resourceVersion: /^\d+$/ } });
  t.ok(Number(bm.object.metadata.resourceVersion) >= Number(rv));
  const plain = await c.watch(`${cms}?watch=true&resourceVersion=${rv}`);
  t.teardown(() => plain.close());
  t.ok(await quiet(plain, 800), 'no bookmarks unless asked for');
});

t.test('a resourceVersion older than the watch cache is an ERROR event with 410', async (t) => {
  const rv = await currentRV(cms);
  for (let i = 0; i < 60; i++) await c.post(cms, fixtures.configMap(`churn-${i}`));
  const w = await c.watch(`${cms}?watch=true&resourceVersion=${rv}`);
  t.teardown(() => w.close());
  t.equal(w.status, 200);
  const [ev] = await take(w, 1);
  t.equal(ev.type, 'ERROR');
  t.match(ev.object, { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 410, reason: 'Expired' });
  t.match(ev.object.message, /too old resource version/);
  t.ok(await w.ended(2000), 'the stream ends after the error');
  const fresh = await c.watch(`${cms}?watch=true&resourceVersion=${await currentRV(cms)}`);
  t.teardown(() => fresh.close());
  t.ok(await quiet(fresh, 200), 'a relist and re-watch from the current version works');
});

t.test('timeoutSeconds ends the stream', async (t) => {
  const started = Date.now();
  const w = await c.watch(`${cms}?watch=true&timeoutSeconds=1&resourceVersion=${await currentRV(cms)}`);
  t.teardown(() => w.close());
  t.ok(await w.ended(5000), 'ended');
  // Not before the second is up; how much later depends on the machine's load, not the server.
  const took = Date.now() - started;
  t.ok(took >= 900, `not before a second (${took} ms)`);
});

t.test('timeoutSeconds=0 means the default, not an instant end', async (t) => {
  const w = await c.watch(`${cms}?watch=true&timeoutSeconds=0&resourceVersion=${await currentRV(cms)}`);
  t.teardown(() => w.close());
  t.notOk(await w.ended(1500), 'still open after 1.5 s');
  await c.post(cms, fixtures.configMap('after-zero'));
  t.same(summary(await take(w, 1)), ['ADDED after-zero']);
});

t.test('a burst of parallel writes reaches every watcher, each event once and in order', async (t) => {
  const path = '/api/v1/namespaces/default/configmaps';
  const rv = await currentRV(path);
  const watchers = await Promise.all([1, 2, 3].map(() => c.watch(`${path}?watch=true&resourceVersion=${rv}&labelSelector=burst`)));
  t.teardown(() => watchers.forEach((w) => w.close()));
  const n = 40;
  await Promise.all(Array.from({ length: n }, (_, i) => c.post(path, fixtures.configMap(`burst-${i}`, { burst: 'yes' }))));
  for (const w of watchers) {
    const evs = await take(w, n);
    t.equal(new Set(evs.map((e) => e.object.metadata.name)).size, n, 'every object once');
    t.ok(evs.every((e) => e.type === 'ADDED'));
    const rvs = evs.map((e) => Number(e.object.metadata.resourceVersion));
    t.same(rvs, [...rvs].sort((a, b) => a - b), 'in resourceVersion order');
  }
});

t.test('an invalid timeoutSeconds is 400', async (t) => {
  for (const v of ['abc', '-1', '1.5']) {
    const res = await c.get(`${cms}?watch=true&timeoutSeconds=${v}`);
    t.equal(res.status, 400, v);
  }
});

t.test('an invalid resourceVersion is 400', async (t) => {
  const res = await c.get(`${cms}?watch=true&resourceVersion=abc`);
  t.equal(res.status, 400);
  t.equal(res.body.reason, 'BadRequest');
});

t.test('watch events are in the version and form asked for', async (t) => {
  const deploys = `/apis/apps/v1beta1/namespaces/${ns}/deployments`;
  const rv = await currentRV(cms);
  const w = await c.watch(`${deploys}?watch=true&resourceVersion=${rv}`);
  t.teardown(() => w.close());
  const table = await c.watch(`${cms}?watch=true&resourceVersion=${rv}`, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json' });
  t.teardown(() => table.close());
  await c.post(`/apis/apps/v1/namespaces/${ns}/deployments`, fixtures.deployment('versioned'));
  await c.post(cms, fixtures.configMap('tabled'));
  const [ev] = await take(w, 1);
  t.match(ev.object, { apiVersion: 'apps/v1beta1', kind: 'Deployment', metadata: { name: 'versioned' } });
  const [tev] = await take(table, 1);
  t.equal(tev.type, 'ADDED');
  t.match(tev.object, { kind: 'Table', apiVersion: 'meta.k8s.io/v1' });
  t.equal(tev.object.rows[0].cells[0], 'tabled');
  t.match(tev.object.rows[0].object, { kind: 'PartialObjectMetadata', metadata: { name: 'tabled' } });
});

t.test('a metadata-only watch gets PartialObjectMetadata events and bookmarks', async (t) => {
  const accept = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json';
  const w = await c.watch(`${cms}?watch=true&allowWatchBookmarks=true&resourceVersion=${await currentRV(cms)}`, { accept });
  t.teardown(() => w.close());
  await c.post(cms, fixtures.configMap('meta-only', { m: 'yes' }, { secret: 'data' }));
  let ev = await w.next();
  while (ev?.type === 'BOOKMARK') {
    t.match(ev.object, { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1' });
    ev = await w.next();
  }
  t.equal(ev?.type, 'ADDED');
  t.match(ev?.object, { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: { name: 'meta-only', labels: { m: 'yes' } } });
  t.notOk('data' in (ev?.object ?? {}), 'no data in a metadata-only event');
  const bm = await w.next(3000);
  t.match(bm, { type: 'BOOKMARK', object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1' } });
});

t.test('a cluster-wide watch sees every namespace', async (t) => {
  const rv = await currentRV(cms);
  const w = await c.watch(`/api/v1/configmaps?watch=true&resourceVersion=${rv}`);
  t.teardown(() => w.close());
  await c.post(cms, fixtures.configMap('cw-1'));
  await c.post('/api/v1/namespaces/default/configmaps', fixtures.configMap('cw-2'));
  const evs = await take(w, 2);
  t.same(evs.map((e) => `${e.object.metadata.namespace}/${e.object.metadata.name}`), [`${ns}/cw-1`, 'default/cw-2']);
});
