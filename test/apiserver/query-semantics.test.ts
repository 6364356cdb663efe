// resourceVersion, resourceVersionMatch and timeoutSeconds as kube-apiserver reads them:
// malformed values are refused with upstream's messages, Exact lists read storage's history,
// a resourceVersion this server has not reached is waited for (3 s) and then answered 504, and
// a watch timeout beyond Node's timer range does not end the watch at once.
import t from 'tap';
import { fixtures, startAPIServer, type APIClient } from '../helpers/api.js';

const api = await startAPIServer(t);
const c = api.client;
const ns = 'rv';
const cms = `/api/v1/namespaces/${ns}/configmaps`;
await c.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });

const currentRV = async () => Number((await c.get(cms)).body.metadata.resourceVersion);
const names = (list: any) => list.items.map((o: any) => o.metadata.name).sort();

/** A gauge or counter from /metrics (0 when absent). */
async function metric(client: APIClient, series: string): Promise<number> {
  const text = (await client.get('/metrics')).text;
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

t.test('malformed resourceVersions are 400 on list, get and watch', async (t) => {
  await c.post(cms, fixtures.configMap('present'));
  for (const rv of ['abc', '-1', '1.5', ' 1', '99999999999999999999999']) {
    const why = rv === '99999999999999999999999' ? 'value out of range' : 'invalid syntax';
    const message = `invalid resource version: resourceVersion: Invalid value: ${JSON.stringify(rv)}: strconv.ParseUint: parsing ${JSON.stringify(rv)}: ${why}`;
    const q = `resourceVersion=${encodeURIComponent(rv)}`;
    for (const path of [`${cms}?${q}`, `${cms}/present?${q}`, `${cms}?watch=true&timeoutSeconds=5&${q}`]) {
      const r = await c.get(path);
      t.equal(r.status, 400, path);
      t.match(r.body, { kind: 'Status', reason: 'BadRequest', code: 400, message }, path);
    }
  }
});

t.test('resourceVersionMatch is validated as ListOptions (422, upstream messages)', async (t) => {
  const cases: Array<[string, string]> = [
    ['resourceVersion=1&resourceVersionMatch=Bogus', 'resourceVersionMatch: Unsupported value: "Bogus": supported values: "Exact", "NotOlderThan", ""'],
    ['resourceVersionMatch=Exact', 'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided'],
    ['resourceVersionMatch=NotOlderThan', 'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided'],
    ['resourceVersion=0&resourceVersionMatch=Exact', 'resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"'],
  ];
  for (const [q, detail] of cases) {
    const r = await c.get(`${cms}?${q}`);
    t.equal(r.status, 422, q);
    t.match(r.body, { reason: 'Invalid', message: `ListOptions.meta.k8s.io "" is invalid: ${detail}`, details: { kind: 'ListOptions', group: 'meta.k8s.io' } }, q);
  }
  const watch = await c.get(`${cms}?watch=true&timeoutSeconds=5&resourceVersion=1&resourceVersionMatch=NotOlderThan`);
  t.equal(watch.status, 422);
  t.match(watch.body.message, 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided');
});

t.test('Exact lists the state at that revision from storage; NotOlderThan the current one', async (t) => {
  const path = '/api/v1/namespaces/default/configmaps';
  const first = await c.post(path, fixtures.configMap('exact-a', {}, { v: '1' }));
  const at = first.body.metadata.resourceVersion as string;
  await c.patch(`${path}/exact-a`, { data: { v: '2' } });
  await c.post(path, fixtures.configMap('exact-b'));

  const exact = await c.get(`${path}?resourceVersion=${at}&resourceVersionMatch=Exact`);
  t.equal(exact.status, 200);
  t.equal(exact.body.metadata.resourceVersion, at, 'the list is at exactly that revision');
  t.same(names(exact.body).filter((n: string) => n.startsWith('exact-')), ['exact-a']);
  t.equal(exact.body.items.find((o: any) => o.metadata.name === 'exact-a').data.v, '1', 'as it was then');

  const legacy = await c.get(`${path}?resourceVersion=${at}&limit=50`);
  t.equal(legacy.body.metadata.resourceVersion, at, 'a limit with an unmatched resourceVersion is exact, as upstream');

  for (const q of [`resourceVersion=${at}&resourceVersionMatch=NotOlderThan`, `resourceVersion=${at}`]) {
    const newer = await c.get(`${path}?${q}`);
    t.equal(newer.status, 200, q);
    t.ok(Number(newer.body.metadata.resourceVersion) > Number(at), `${q}: not older than asked`);
    t.same(names(newer.body).filter((n: string) => n.startsWith('exact-')), ['exact-a', 'exact-b'], q);
    t.equal(newer.body.items.find((o: any) => o.metadata.name === 'exact-a').data.v, '2', q);
  }
});

t.test('resourceVersion=0 lists from the watch cache, whole, without a storage list', async (t) => {
  for (let i = 0; i < 5; i++) await c.post(cms, fixtures.configMap(`zero-${i}`));
  const rv = (await c.get(cms)).body.metadata.resourceVersion;
  await c.get(`${cms}?resourceVersion=${rv}&resourceVersionMatch=Exact`); // an exact list reads storage, so the counter exists
  const before = await metric(c, 'apiserver_storage_list_total{resource="configmaps"}');
  t.ok(before >= 1, 'storage lists are counted');
  const r = await c.get(`${cms}?resourceVersion=0&limit=2`);
  t.equal(r.status, 200);
  t.ok(names(r.body).length >= 5, 'the whole list: resourceVersion=0 ignores limit, as upstream');
  t.notOk(r.body.metadata.continue);
  t.equal(await metric(c, 'apiserver_storage_list_total{resource="configmaps"}'), before, 'storage was not listed');
  const get = await c.get(`${cms}/zero-1?resourceVersion=0`);
  t.equal(get.status, 200);
  t.equal(get.body.metadata.name, 'zero-1');
});

t.test('a resourceVersion ahead of the server is waited for, then served', async (t) => {
  const target = (await currentRV()) + 1;
  const list = c.get(`${cms}?resourceVersion=${target}`);
  const get = c.get(`${cms}/late?resourceVersion=${target}`);
  for (const deadline = Date.now() + 2500; (await metric(c, 'apiserver_watch_cache_waiting_reads')) < 2;) {
    if (Date.now() > deadline) return t.fail('the reads never waited for the cache');
    await new Promise((r) => setTimeout(r, 20));
  }
  t.equal((await c.post(cms, fixtures.configMap('late'))).status, 201);
  const listed = await list;
  t.equal(listed.status, 200);
  t.ok(Number(listed.body.metadata.resourceVersion) >= target);
  t.ok(names(listed.body).includes('late'), 'the list includes the write it waited for');
  const got = await get;
  t.equal(got.status, 200);
  t.equal(got.body.metadata.name, 'late');
});

t.test('a resourceVersion the server does not reach in time is 504 Too large resource version', async (t) => {
  const current = await currentRV();
  const target = current + 1000;
  const paths = [`${cms}?resourceVersion=${target}`, `${cms}?resourceVersion=${target}&resourceVersionMatch=Exact`, `${cms}/present?resourceVersion=${target}`];
  const replies = await Promise.all(paths.map((path) => c.get(path)));
  for (const [i, path] of paths.entries()) {
    const r = replies[i];
    t.equal(r.status, 504, path);
    t.equal(r.headers['retry-after'], '1', path);
    t.match(r.body, {
      kind: 'Status', reason: 'Timeout', code: 504,
      message: new RegExp(`^Timeout: Too large resource version: ${target}, current: ${current}$`),
      details: { causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }], retryAfterSeconds: 1 },
    }, path);
  }
});

t.test('a watch whose timeout exceeds Node timers (2^31-1 ms) stays open', async (t) => {
  const w = await c.watch(`${cms}?watch=true&resourceVersion=${await currentRV()}&timeoutSeconds=4294968`);
  t.teardown(() => w.close());
  t.equal(w.status, 200);
  await c.post(cms, fixtures.configMap('after-long-timeout'));
  const ev = await w.next(5000);
  t.match(ev, { type: 'ADDED', object: { metadata: { name: 'after-long-timeout' } } }, 'events still arrive');
});

// Last: compaction removes the history the Exact list above read from.
t.test('Exact at a compacted revision is 410 Expired', async (t) => {
  const old = (await c.post(cms, fixtures.configMap('compacted'))).body.metadata.resourceVersion;
  await c.patch(`${cms}/compacted`, { data: { v: '2' } });
  await api.store.compact(await api.store.currentRevision());
  const r = await c.get(`${cms}?resourceVersion=${old}&resourceVersionMatch=Exact`);
  t.equal(r.status, 410);
  t.match(r.body, { reason: 'Expired', message: 'The resourceVersion for the provided list is too old.' });
});
