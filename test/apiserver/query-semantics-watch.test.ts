// Watches without a resourceVersion ("get state and start at most recent") are served from the
// watch cache: many at once each get the whole current state as ADDED events and then the live
// stream, and storage is not listed once per watcher.
import t from 'tap';
import { fixtures, startAPIServer, type WatchEvent, type WatchStream } from '../helpers/api.js';

const api = await startAPIServer(t);
const c = api.client;
const ns = 'crowd';
const cms = `/api/v1/namespaces/${ns}/configmaps`;
await c.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });

const storageLists = async () => {
  const line = (await c.get('/metrics')).text.split('\n').find((l) => l.startsWith('apiserver_storage_list_total{resource="configmaps"} '));
  return line ? Number(line.split(' ')[1]) : 0;
};

async function take(w: WatchStream, n: number): Promise<WatchEvent[]> {
  const out: WatchEvent[] = [];
  while (out.length < n) {
    const ev = await w.next(30_000);
    if (!ev) throw new Error(`stream ended after ${out.length} of ${n} events`);
    out.push(ev);
  }
  return out;
}

t.test('200 concurrent watches without resourceVersion: full state, then events, no list each', async (t) => {
  const existing = Array.from({ length: 25 }, (_, i) => `cm-${String(i).padStart(2, '0')}`);
  for (const name of existing) t.equal((await c.post(cms, fixtures.configMap(name, { tier: name < 'cm-10' ? 'low' : 'high' }))).status, 201);
  // A consistent list is served from the caught-up cache; an exact one reads storage: the counter exists.
  const rv = (await c.get(cms)).body.metadata.resourceVersion;
  await c.get(`${cms}?resourceVersion=${rv}&resourceVersionMatch=Exact`);
  const before = await storageLists();
  t.ok(before >= 1, 'storage lists are counted');

  // Unset and "0" both start from the current state; some watches filter by label.
  const queries = Array.from({ length: 200 }, (_, i) =>
    i % 4 === 0 ? '?watch=true&resourceVersion=0' : i % 4 === 1 ? '?watch=true&labelSelector=tier%3Dlow' : '?watch=true');
  const watches = await Promise.all(queries.map((q) => c.watch(cms + q)));
  t.teardown(() => { for (const w of watches) w.close(); });
  t.ok(watches.every((w) => w.status === 200));

  const low = existing.filter((n) => n < 'cm-10');
  const initial = await Promise.all(watches.map((w, i) => take(w, queries[i].includes('tier') ? low.length : existing.length)));
  let complete = 0;
  for (const [i, evs] of initial.entries()) {
    const want = queries[i].includes('tier') ? low : existing;
    if (evs.every((e) => e.type === 'ADDED') && JSON.stringify(evs.map((e) => e.object.metadata.name).sort()) === JSON.stringify(want)) complete++;
  }
  t.equal(complete, watches.length, 'every watcher got the whole current state as ADDED events');

  t.equal((await c.post(cms, fixtures.configMap('cm-new', { tier: 'low' }))).status, 201);
  t.equal((await c.delete(`${cms}/cm-00`)).status, 200);
  const live = await Promise.all(watches.map((w) => take(w, 2)));
  t.ok(live.every((evs) => evs[0].type === 'ADDED' && evs[0].object.metadata.name === 'cm-new' && evs[1].type === 'DELETED' && evs[1].object.metadata.name === 'cm-00'),
    'then every watcher got the live events, in order');

  t.equal(await storageLists(), before, 'storage was not listed for any of the watchers');
});
