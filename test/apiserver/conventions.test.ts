// API conventions real clients rely on, at the HTTP level: boolean query parameters read as
// kube-apiserver reads them, `pretty`, remainingItemCount on limited lists, `status: {}` on
// created workloads, and the plain 404 for subresources the server does not serve.
import t from 'tap';
import { fixtures, startAPIServer } from '../helpers/api.js';

const api = await startAPIServer(t, { bookmarkIntervalMs: 200 });
const c = api.client;
const ns = 'conventions';
await c.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
const cms = `/api/v1/namespaces/${ns}/configmaps`;
await c.post(cms, fixtures.configMap('existing'));

t.test('watch: anything but missing, false or 0 is true', async (t) => {
  for (const value of ['true', 'True', '1', '', 'yes', 'TRUE']) {
    const w = await c.watch(`${cms}?watch=${value}`);
    const first = await w.next();
    w.close();
    t.match(first, { type: 'ADDED', object: { metadata: { name: 'existing' } } }, `watch=${value} watches`);
  }
  for (const value of ['false', 'False', 'FALSE', '0']) {
    const res = await c.get(`${cms}?watch=${value}`);
    t.equal(res.body.kind, 'ConfigMapList', `watch=${value} lists`);
  }
  t.equal((await c.get(`${cms}?watch=false&watch=true`)).body.kind, 'ConfigMapList', 'the first value counts');
});

t.test('allowWatchBookmarks=True gets bookmarks', async (t) => {
  const rv = (await c.get(cms)).body.metadata.resourceVersion;
  const w = await c.watch(`${cms}?watch=True&resourceVersion=${rv}&allowWatchBookmarks=True`);
  t.teardown(() => w.close());
  t.equal((await w.next())?.type, 'BOOKMARK');
});

t.test('force=True takes over fields another manager owns', async (t) => {
  const path = `${cms}/applied`;
  const apply = (manager: string, value: string, force?: string) =>
    c.patch(`${path}?fieldManager=${manager}${force === undefined ? '' : `&force=${force}`}`, fixtures.configMap('applied', {}, { key: value }), { contentType: 'application/apply-patch+yaml' });
  t.equal((await apply('first', 'a')).status, 201);
  const conflicting = await apply('second', 'b', 'False');
  t.equal(conflicting.status, 409, 'force=False does not force');
  t.match(conflicting.body.details.causes, [{ reason: 'FieldManagerConflict', field: '.data.key' }]);
  const forced = await apply('second', 'b', 'True');
  t.equal(forced.status, 200);
  t.equal(forced.body.data.key, 'b');
  t.equal((await apply('first', 'c', '')).status, 200, 'force= (no value) forces');
});

t.test('pretty indents replies as strconv.ParseBool reads it, and for curl by default', async (t) => {
  const indented = (text: string) => text.startsWith('{\n  "');
  for (const [query, ua, want] of [
    ['?pretty=true', undefined, true], ['?pretty=1', undefined, true], ['?pretty=True', undefined, true],
    ['?pretty=yes', undefined, false], ['?pretty=false', undefined, false], ['', undefined, false],
    ['', 'curl/8.5.0', true], ['?pretty=false', 'curl/8.5.0', false], ['', 'kubectl/v1.32.5', false],
  ] as const) {
    const res = await c.get(`${cms}/existing${query}`, { headers: ua ? { 'User-Agent': ua } : {} });
    t.equal(indented(res.text), want, `${query || 'no pretty'} from ${ua ?? 'no user agent'}`);
    t.equal(res.body.metadata.name, 'existing');
  }
  const missing = await c.get(`${cms}/missing?pretty=true`);
  t.ok(indented(missing.text), 'errors too');
});

t.test('remainingItemCount on limited lists that no selector filters', async (t) => {
  const path = `/api/v1/namespaces/${ns}/secrets`;
  for (const n of ['s1', 's2', 's3', 's4', 's5']) await c.post(path, { apiVersion: 'v1', kind: 'Secret', metadata: { name: n, labels: { paged: 'yes' } } });
  const counts: Array<number | undefined> = [];
  let next = `${path}?limit=2`;
  for (;;) {
    const page = (await c.get(next)).body;
    counts.push(page.metadata.remainingItemCount);
    if (!page.metadata.continue) break;
    next = `${path}?limit=2&continue=${encodeURIComponent(page.metadata.continue)}`;
  }
  t.same(counts, [3, 1, undefined], 'counted down, absent on the last page');
  const filtered = (await c.get(`${path}?limit=2&labelSelector=paged%3Dyes`)).body;
  t.ok(filtered.metadata.continue);
  t.equal(filtered.metadata.remainingItemCount, undefined, 'not with a label selector');
  const byField = (await c.get(`${path}?limit=2&fieldSelector=metadata.namespace%3D${ns}`)).body;
  t.equal(byField.metadata.remainingItemCount, undefined, 'not with a field selector');
  const table = (await c.get(`${path}?limit=2`, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' })).body;
  t.equal(table.metadata.remainingItemCount, 3, 'Tables carry it too');
});

t.test('created workloads carry an empty status', async (t) => {
  const deploy = await c.post(`/apis/apps/v1/namespaces/${ns}/deployments`, fixtures.deployment('fresh'));
  t.equal(deploy.status, 201);
  t.match(deploy.text, /"status":\{\}/);
  t.match((await c.get(`/apis/apps/v1/namespaces/${ns}/deployments/fresh`)).text, /"status":\{\}/);
  const rss = `/apis/apps/v1/namespaces/${ns}/replicasets`;
  const { spec } = fixtures.deployment('fresh-rs');
  const rs = await c.post(rss, { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'fresh-rs' }, spec: { selector: spec.selector, template: spec.template } });
  t.same(rs.body.status, { replicas: 0 }, 'a ReplicaSet status always has replicas');
  const emptied = await c.put(`${rss}/fresh-rs/status`, { ...rs.body, status: {} });
  t.same(emptied.body.status, { replicas: 0 }, 'also after a status write without it');
});

t.test('subresources the server does not serve are a plain 404', async (t) => {
  await c.post(`/apis/apps/v1/namespaces/${ns}/deployments`, fixtures.deployment('web'));
  await c.post(`/api/v1/namespaces/${ns}/pods`, fixtures.pod('p'));
  const want = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'the server could not find the requested resource', reason: 'NotFound', details: {}, code: 404 };
  for (const [method, path] of [
    ['GET', `${cms}/existing/foo`],
    ['GET', `${cms}/existing/status`],
    ['PUT', `${cms}/missing/status`],
    ['POST', `/apis/apps/v1/namespaces/${ns}/deployments/web/rollback`],
    ['GET', `/api/v1/namespaces/${ns}/widgets`],
  ] as const) {
    const res = await c.request(method, path, method === 'GET' ? {} : { body: {} });
    t.equal(res.status, 404, `${method} ${path}`);
    t.same(res.body, want);
  }
});
