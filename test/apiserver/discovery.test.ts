// Non-resource endpoints and discovery as kubectl uses them: /version, health, metrics,
// legacy and aggregated discovery, and the OpenAPI v3 index and documents.
import t from 'tap';
import { startAPIServer } from '../helpers/api.js';

const api = await startAPIServer(t);
const c = api.client;
const v2 = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
const v2beta1 = 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList';
const kubectlAccept = `${v2},${v2beta1},application/json`;

t.test('/version', async (t) => {
  const res = await c.get('/version');
  t.equal(res.status, 200);
  t.match(res.body, { major: '1', minor: /^\d+$/, gitVersion: /^v1\.\d+\.\d+/, platform: /.+\/.+/ });
});

for (const path of ['/healthz', '/livez', '/readyz']) {
  t.test(`${path} is ok`, async (t) => {
    const res = await c.get(path, { accept: '*/*' });
    t.equal(res.status, 200);
    t.equal(res.text, 'ok');
    t.match(res.headers['content-type'], /^text\/plain/);
  });
}

t.test('/readyz?verbose lists checks', async (t) => {
  const res = await c.get('/readyz?verbose');
  t.equal(res.status, 200);
  t.match(res.text, /\[\+\]/);
  t.match(res.text, /readyz check passed/);
});

t.test('/metrics is Prometheus text with apiserver_request_total', async (t) => {
  for (let i = 0; i < 3; i++) await c.get('/api/v1/namespaces/default/configmaps');
  await c.get('/api/v1/namespaces/default/configmaps/absent');
  const res = await c.get('/metrics', { accept: 'text/plain' });
  t.equal(res.status, 200);
  t.match(res.headers['content-type'], /^text\/plain/);
  t.match(res.text, /# TYPE apiserver_request_total counter/);
  const line = res.text.split('\n').find((l) => l.startsWith('apiserver_request_total{') && l.includes('verb="LIST"') && l.includes('resource="configmaps"') && l.includes('code="200"'));
  t.ok(line, 'a LIST configmaps 200 series');
  t.ok(Number(line?.split(' ').pop()) >= 3, `counted (${line})`);
  t.ok(res.text.split('\n').some((l) => l.startsWith('apiserver_request_total{') && l.includes('verb="GET"') && l.includes('code="404"')), 'a 404 series');
  t.match(res.text, /apiserver_request_duration_seconds_bucket/);
});

t.test('legacy /api and /apis', async (t) => {
  const apiRes = await c.get('/api');
  t.equal(apiRes.headers['content-type'], 'application/json');
  t.match(apiRes.body, { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0' }] });
  const apis = await c.get('/apis');
  t.equal(apis.body.kind, 'APIGroupList');
  const groups = new Map((apis.body.groups as any[]).map((g) => [g.name, g]));
  for (const g of ['apps', 'discovery.k8s.io', 'coordination.k8s.io', 'events.k8s.io']) t.ok(groups.has(g), `group ${g}`);
  t.match(groups.get('apps'), { preferredVersion: { groupVersion: 'apps/v1', version: 'v1' } });
  t.same((groups.get('apps').versions as any[]).map((v) => v.version), ['v1', 'v1beta1']);
  t.notOk(groups.has(''), 'the core group is not in /apis');
  const apps = await c.get('/apis/apps');
  t.match(apps.body, { kind: 'APIGroup', name: 'apps', preferredVersion: { version: 'v1' } });
});

t.test('APIResourceLists list subresources', async (t) => {
  const core = await c.get('/api/v1');
  t.match(core.body, { kind: 'APIResourceList', groupVersion: 'v1' });
  const names = new Map((core.body.resources as any[]).map((r) => [r.name, r]));
  for (const n of ['pods', 'pods/status', 'pods/binding', 'pods/ephemeralcontainers', 'services', 'services/status', 'namespaces', 'namespaces/finalize', 'configmaps', 'events', 'nodes']) {
    t.ok(names.has(n), n);
  }
  t.match(names.get('pods'), { kind: 'Pod', namespaced: true, singularName: 'pod', shortNames: ['po'], verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'] });
  t.match(names.get('namespaces'), { namespaced: false });
  const apps = await c.get('/apis/apps/v1');
  const scale = (apps.body.resources as any[]).find((r) => r.name === 'deployments/scale');
  t.match(scale, { kind: 'Scale', group: 'autoscaling', version: 'v1' });
  t.equal((await c.get('/api/v2')).status, 404);
  t.equal((await c.get('/apis/apps/v9')).status, 404);
  t.equal((await c.get('/apis/nothing.example.com')).status, 404);
});

const aggregatedCases = [
  { name: 'kubectl\'s Accept', accept: kubectlAccept, type: v2, version: 'v2' },
  { name: 'v2 only', accept: v2, type: v2, version: 'v2' },
  { name: 'v2beta1 only', accept: `${v2beta1},application/json`, type: v2beta1, version: 'v2beta1' },
];
for (const ac of aggregatedCases) {
  t.test(`aggregated discovery with ${ac.name}`, async (t) => {
    const core = await c.get('/api', { accept: ac.accept });
    t.equal(core.status, 200);
    t.equal(core.headers['content-type'], ac.type, 'exactly the aggregated Content-Type');
    t.match(core.body, { kind: 'APIGroupDiscoveryList', apiVersion: `apidiscovery.k8s.io/${ac.version}` });
    t.equal(core.body.items.length, 1);
    const v1 = core.body.items[0].versions[0];
    t.equal(v1.version, 'v1');
    const pods = (v1.resources as any[]).find((r) => r.resource === 'pods');
    t.match(pods, { responseKind: { group: '', version: 'v1', kind: 'Pod' }, scope: 'Namespaced', singularResource: 'pod' });
    t.same((pods.subresources as any[]).map((s) => s.subresource).sort(), ['attach', 'binding', 'ephemeralcontainers', 'eviction', 'exec', 'log', 'status']);
    t.match((pods.subresources as any[]).find((s) => s.subresource === 'eviction'), { responseKind: { group: 'policy', version: 'v1', kind: 'Eviction' }, verbs: ['create'] });
    const apis = await c.get('/apis', { accept: ac.accept });
    t.equal(apis.headers['content-type'], ac.type);
    const apps = (apis.body.items as any[]).find((g) => g.metadata.name === 'apps');
    t.same((apps.versions as any[]).map((v) => v.version), ['v1', 'v1beta1'], 'preferred version first');
    const deploy = (apps.versions[0].resources as any[]).find((r) => r.resource === 'deployments');
    t.ok((deploy.subresources as any[]).some((s) => s.subresource === 'scale' && s.responseKind.kind === 'Scale' && s.responseKind.group === 'autoscaling'));
    t.notOk((apis.body.items as any[]).some((g) => g.metadata.name === ''), 'no core group in /apis');
  });
}

t.test('a plain Accept gets the legacy form', async (t) => {
  for (const accept of ['application/json', '*/*', 'application/json;g=apidiscovery.k8s.io;v=v9;as=APIGroupDiscoveryList,application/json']) {
    const res = await c.get('/apis', { accept });
    t.equal(res.body.kind, 'APIGroupList', accept);
    t.equal(res.headers['content-type'], 'application/json');
  }
});

t.test('/openapi/v3 index and documents', async (t) => {
  const index = await c.get('/openapi/v3');
  t.equal(index.status, 200);
  const paths = index.body.paths as Record<string, { serverRelativeURL: string }>;
  for (const p of ['api/v1', 'apis/apps/v1', 'apis/apps/v1beta1', 'apis/events.k8s.io/v1']) {
    t.match(paths[p]?.serverRelativeURL, new RegExp(`^/openapi/v3/${p.replace(/\./g, '\\.')}\\?hash=\\w+`), p);
  }
  const doc = await c.get(paths['apis/apps/v1'].serverRelativeURL);
  t.equal(doc.status, 200);
  t.match(doc.body, { openapi: /^3\./ });
  const schema = doc.body.components.schemas['io.k8s.api.apps.v1.Deployment'];
  t.ok(schema, 'Deployment schema');
  t.same(schema['x-kubernetes-group-version-kind'], [{ group: 'apps', version: 'v1', kind: 'Deployment' }]);
  const item = doc.body.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}'];
  t.ok(item?.patch, 'a patch operation');
  t.same(item.patch['x-kubernetes-group-version-kind'], { group: 'apps', version: 'v1', kind: 'Deployment' });
  const params = [...(item.parameters ?? []), ...(item.patch.parameters ?? [])].map((p: any) => p.name ?? p.$ref);
  t.ok(params.some((p: string) => /fieldValidation/.test(p)), 'fieldValidation parameter');
  const core = await c.get(paths['api/v1'].serverRelativeURL);
  t.ok(core.body.components.schemas['io.k8s.api.core.v1.Pod']);
  t.equal((await c.get('/openapi/v3/apis/nothing/v1')).status, 404);
  t.equal((await c.get('/openapi/v3/apis/apps/v7')).status, 404);
});

t.test('non-resource paths refuse writes and unknown paths are 404 Status', async (t) => {
  const post = await c.post('/version', {});
  t.equal(post.status, 405);
  const unknown = await c.get('/nothing/here');
  t.equal(unknown.status, 404);
  t.match(unknown.body, { kind: 'Status', reason: 'NotFound' });
});
