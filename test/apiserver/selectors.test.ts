// Listing as a client sees it: label selectors with every operator, field selectors,
// limit/continue pagination, and Table / PartialObjectMetadata output.
import t from 'tap';
import { fixtures, startAPIServer } from '../helpers/api.js';

const api = await startAPIServer(t);
const c = api.client;
const ns = 'selectors';
const cms = `/api/v1/namespaces/${ns}/configmaps`;
const pods = `/api/v1/namespaces/${ns}/pods`;

await c.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
const labelled: Record<string, Record<string, string>> = {
  a: { env: 'prod', tier: 'web' },
  b: { env: 'dev', tier: 'web' },
  c: { env: 'prod' },
  d: {},
  e: { env: 'test', tier: 'db', 'example.com/owner': 'me' },
};
for (const [name, labels] of Object.entries(labelled)) await c.post(cms, fixtures.configMap(name, labels));

async function listNames(path: string): Promise<string[]> {
  const res = await c.get(path);
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${res.text}`);
  return (res.body.items as any[]).map((i) => i.metadata.name).sort();
}

const labelCases: Array<[string, string[]]> = [
  ['env=prod', ['a', 'c']],
  ['env==prod', ['a', 'c']],
  ['env!=prod', ['b', 'd', 'e']],
  ['env in (prod,dev)', ['a', 'b', 'c']],
  ['env in (prod, dev)', ['a', 'b', 'c']],
  ['env notin (prod,test)', ['b', 'd']],
  ['tier', ['a', 'b', 'e']],
  ['!tier', ['c', 'd']],
  ['env=prod,tier=web', ['a']],
  ['env in (prod),!tier', ['c']],
  ['example.com/owner=me', ['e']],
  ['env=nothing', []],
  ['', ['a', 'b', 'c', 'd', 'e']],
];
for (const [selector, want] of labelCases) {
  t.test(`labelSelector ${JSON.stringify(selector)}`, async (t) => {
    t.same(await listNames(`${cms}?labelSelector=${encodeURIComponent(selector)}`), want);
  });
}

const badLabelSelectors = ['env in (prod', 'env=(x)', '=prod', 'env=a b', 'tier,,env'];
for (const selector of badLabelSelectors) {
  t.test(`labelSelector ${JSON.stringify(selector)} is 400`, async (t) => {
    const res = await c.get(`${cms}?labelSelector=${encodeURIComponent(selector)}`);
    t.equal(res.status, 400);
    t.equal(res.body.reason, 'BadRequest');
  });
}

t.test('field selectors', async (t) => {
  await c.post(pods, fixtures.pod('p1'));
  await c.post(pods, fixtures.pod('p2'));
  await c.post(`${pods}/p1/binding`, { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'p1' }, target: { kind: 'Node', name: 'node-1' } });
  const p2 = (await c.get(`${pods}/p2`)).body;
  t.equal((await c.put(`${pods}/p2/status`, { ...p2, status: { ...p2.status, phase: 'Running' } })).status, 200);
  await c.post(`/api/v1/namespaces/${ns}/events`, {
    apiVersion: 'v1', kind: 'Event', metadata: { name: 'p1.1' }, involvedObject: { kind: 'Pod', name: 'p1', namespace: ns }, reason: 'Scheduled', message: 'assigned', type: 'Normal',
  });
  await c.post(`/api/v1/namespaces/${ns}/events`, {
    apiVersion: 'v1', kind: 'Event', metadata: { name: 'p2.1' }, involvedObject: { kind: 'Pod', name: 'p2', namespace: ns }, reason: 'Started', message: 'started', type: 'Normal',
  });

  const cases: Array<[string, string, string[]]> = [
    [pods, 'metadata.name=p1', ['p1']],
    [pods, 'metadata.name==p1', ['p1']],
    [pods, 'metadata.name!=p1', ['p2']],
    ['/api/v1/pods', `metadata.namespace=${ns}`, ['p1', 'p2']],
    ['/api/v1/pods', 'metadata.namespace=default', []],
    [pods, 'spec.nodeName=node-1', ['p1']],
    [pods, 'spec.nodeName=', ['p2']],
    [pods, 'status.phase=Running', ['p2']],
    [pods, 'status.phase!=Running', ['p1']],
    [pods, 'status.phase=Pending,spec.nodeName=node-1', ['p1']],
    [pods, 'status.phase=Running,spec.nodeName=node-1', []],
    [`/api/v1/namespaces/${ns}/events`, 'involvedObject.name=p1', ['p1.1']],
    [`/api/v1/namespaces/${ns}/events`, `involvedObject.name=p2,involvedObject.namespace=${ns},involvedObject.kind=Pod`, ['p2.1']],
    [cms, 'metadata.name=a', ['a']],
    ['/api/v1/namespaces', `metadata.name=${ns}`, [ns]],
    ['/api/v1/namespaces', 'status.phase=Active', ['default', 'kube-node-lease', 'kube-public', 'kube-system', ns]],
  ];
  for (const [path, selector, want] of cases) {
    t.same(await listNames(`${path}?fieldSelector=${encodeURIComponent(selector)}`), want, `${path} ${selector}`);
  }
  t.same(await listNames(`${cms}?fieldSelector=metadata.name%3Da&labelSelector=env%3Dprod`), ['a'], 'field and label selector together');
  t.same(await listNames(`${cms}?fieldSelector=metadata.name%3Db&labelSelector=env%3Dprod`), [], 'both must match');
});

const unsupported: Array<[string, string]> = [
  [pods, 'spec.foo=bar'],
  [cms, 'status.phase=Running'],
  [cms, 'data.key=value'],
  ['/api/v1/pods', 'metadata.labels=x'],
];
for (const [path, selector] of unsupported) {
  t.test(`unsupported field label ${selector} on ${path} is 400`, async (t) => {
    const res = await c.get(`${path}?fieldSelector=${encodeURIComponent(selector)}`);
    t.equal(res.status, 400);
    t.equal(res.body.reason, 'BadRequest');
    t.match(res.body.message, /field label not supported/);
  });
}

t.test('a malformed field selector is 400', async (t) => {
  const res = await c.get(`${pods}?fieldSelector=${encodeURIComponent('metadata.name')}`);
  t.equal(res.status, 400);
});

t.test('limit/continue pagination returns every item exactly once', async (t) => {
  await c.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'pages' } });
  const want: string[] = [];
  for (let i = 0; i < 23; i++) {
    const name = `item-${String(i).padStart(2, '0')}`;
    want.push(name);
    await c.post('/api/v1/namespaces/pages/configmaps', fixtures.configMap(name, { parity: i % 2 ? 'odd' : 'even' }));
  }
  for (const [limit, selector, expected] of [
    [5, '', want], [1, '', want], [23, '', want], [100, '', want],
    [4, 'parity=odd', want.filter((_, i) => i % 2)],
  ] as Array<[number, string, string[]]>) {
    const got: string[] = [];
    let token: string | undefined;
    let pages = 0;
    let firstRV: string | undefined;
    do {
      const q = new URLSearchParams({ limit: String(limit) });
      if (selector) q.set('labelSelector', selector);
      if (token) q.set('continue', token);
      const res = await c.get(`/api/v1/namespaces/pages/configmaps?${q}`);
      t.equal(res.status, 200);
      t.ok(res.body.items.length <= limit, 'a page holds at most limit items');
      firstRV ??= res.body.metadata.resourceVersion;
      t.equal(res.body.metadata.resourceVersion, firstRV, 'every page is read at the first page\'s resourceVersion');
      got.push(...(res.body.items as any[]).map((i) => i.metadata.name));
      token = res.body.metadata.continue || undefined;
      pages++;
      if (pages === 2 && limit === 5) {
        // Written after the list started: not part of this consistent list.
        await c.post('/api/v1/namespaces/pages/configmaps', fixtures.configMap('zz-late'));
      }
    } while (token && pages < 100);
    t.same(got, expected, `limit=${limit} ${selector}: every item once, in order`);
    t.equal(pages, Math.max(1, Math.ceil(expected.length / limit)), `limit=${limit}: page count`);
    if (limit === 5) await c.delete('/api/v1/namespaces/pages/configmaps/zz-late');
  }
});

const tableAccept = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';

t.test('Table output for a list', async (t) => {
  const res = await c.get(pods, { accept: tableAccept });
  t.equal(res.status, 200);
  t.match(res.body, { kind: 'Table', apiVersion: 'meta.k8s.io/v1', metadata: { resourceVersion: /^\d+$/ } });
  const cols = res.body.columnDefinitions as any[];
  t.match(cols[0], { name: 'Name', type: 'string', format: 'name', priority: 0 });
  for (const name of ['Ready', 'Status', 'Restarts', 'Age', 'Node']) t.ok(cols.some((x) => x.name === name), `column ${name}`);
  t.ok(cols.some((x) => x.priority === 1), 'wide columns have priority 1');
  t.equal(res.body.rows.length, 2);
  const row = (res.body.rows as any[]).find((r) => r.cells[0] === 'p1');
  t.equal(row.cells.length, cols.length, 'one cell per column');
  t.match(row.object, { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: { name: 'p1', namespace: ns } });
  t.notOk('spec' in row.object);
  t.equal(row.cells[cols.findIndex((x) => x.name === 'Node')], 'node-1');
});

t.test('Table output for one object, and includeObject', async (t) => {
  const one = await c.get(`${pods}/p2`, { accept: tableAccept });
  t.equal(one.body.kind, 'Table');
  t.equal(one.body.rows.length, 1);
  t.equal(one.body.rows[0].cells[0], 'p2');
  const full = await c.get(`${pods}?includeObject=Object`, { accept: tableAccept });
  t.match(full.body.rows[0].object, { kind: 'Pod', apiVersion: 'v1', spec: { containers: [{ name: 'main' }] } });
  const none = await c.get(`${pods}?includeObject=None`, { accept: tableAccept });
  t.notOk('object' in none.body.rows[0]);
  const cm = await c.get(cms, { accept: tableAccept });
  t.same((cm.body.columnDefinitions as any[]).map((x) => x.name).slice(0, 1), ['Name']);
  t.ok((cm.body.columnDefinitions as any[]).some((x) => x.name === 'Age'), 'resources without columns still get Age');
});

t.test('Table output honours pagination', async (t) => {
  const res = await c.get('/api/v1/namespaces/pages/configmaps?limit=10', { accept: tableAccept });
  t.equal(res.body.rows.length, 10);
  t.ok(res.body.metadata.continue, 'the Table carries the continue token');
});

t.test('PartialObjectMetadataList', async (t) => {
  const res = await c.get(cms, { accept: 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io' });
  t.equal(res.body.kind, 'PartialObjectMetadataList');
  t.equal(res.body.items.length, 5);
  t.match(res.body.items[0], { kind: 'PartialObjectMetadata', metadata: { name: 'a' } });
  t.notOk('data' in res.body.items[0]);
});
