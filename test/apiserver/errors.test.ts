// Bad input as a client sees it: the right Status code, reason and causes, and nothing written.
import t from 'tap';
import { fixtures, startAPIServer } from '../helpers/api.js';

const api = await startAPIServer(t);
const c = api.client;
const cms = '/api/v1/namespaces/default/configmaps';

async function names(path: string): Promise<string[]> {
  const res = await c.get(path);
  return (res.body.items as any[]).map((i) => i.metadata.name).sort();
}

t.test('malformed JSON is 400 and writes nothing', async (t) => {
  const before = await names(cms);
  for (const body of ['{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"', 'not json', '[1,2', '"just a string"', '[]']) {
    const res = await c.post(cms, body);
    t.equal(res.status, 400, `${body} → 400`);
    t.match(res.body, { kind: 'Status', status: 'Failure', reason: 'BadRequest', code: 400 });
  }
  t.same(await names(cms), before, 'list unchanged');
});

t.test('an empty body is 400', async (t) => {
  const res = await c.post(cms, '');
  t.equal(res.status, 400);
  t.equal(res.body.reason, 'BadRequest');
});

t.test('YAML bodies are accepted with application/yaml', async (t) => {
  const yaml = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-yaml\ndata:\n  key: value\n';
  const res = await c.post(cms, yaml, { contentType: 'application/yaml' });
  t.equal(res.status, 201);
  t.equal(res.body.data.key, 'value');
  const got = await c.get(`${cms}/from-yaml`);
  t.equal(got.body.data.key, 'value');
  const yamlReply = await c.get(`${cms}/from-yaml`, { accept: 'application/yaml' });
  t.match(yamlReply.headers['content-type'], /application\/yaml/);
  t.match(yamlReply.text, /name: from-yaml/);
});

t.test('malformed YAML is 400', async (t) => {
  const res = await c.post(cms, 'metadata: [unclosed\n  name: x', { contentType: 'application/yaml' });
  t.equal(res.status, 400);
  t.equal(res.body.reason, 'BadRequest');
});

t.test('an unknown Content-Type is 415', async (t) => {
  const res = await c.post(cms, fixtures.configMap('ct'), { contentType: 'text/plain' });
  t.equal(res.status, 415);
  t.equal(res.body.reason, 'UnsupportedMediaType');
});

const invalidCases = [
  {
    name: 'Deployment with replicas -1',
    path: '/apis/apps/v1/namespaces/default/deployments',
    body: fixtures.deployment('neg', { replicas: -1 }),
    field: 'spec.replicas', kind: 'Deployment', group: 'apps',
  },
  {
    name: 'Pod without containers',
    path: '/api/v1/namespaces/default/pods',
    body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'empty' }, spec: { containers: [] } },
    field: 'spec.containers', kind: 'Pod', group: '',
  },
  {
    name: 'Service with port 0',
    path: '/api/v1/namespaces/default/services',
    body: fixtures.service('port-zero', { ports: [{ port: 0 }] }),
    field: 'spec.ports[0].port', kind: 'Service', group: '',
  },
  {
    name: 'Service with port 70000',
    path: '/api/v1/namespaces/default/services',
    body: fixtures.service('port-big', { ports: [{ port: 70000 }] }),
    field: 'spec.ports[0].port', kind: 'Service', group: '',
  },
  {
    name: 'ConfigMap with an invalid name',
    path: cms,
    body: fixtures.configMap('Not_A_Name'),
    field: 'metadata.name', kind: 'ConfigMap', group: '',
  },
  {
    name: 'Service whose name starts with a digit (names are DNS-1035 labels)',
    path: '/api/v1/namespaces/default/services',
    body: fixtures.service('1abc'),
    field: 'metadata.name', kind: 'Service', group: '',
  },
  {
    name: 'Service whose name has a dot',
    path: '/api/v1/namespaces/default/services',
    body: fixtures.service('a.b'),
    field: 'metadata.name', kind: 'Service', group: '',
  },
  {
    name: 'Namespace whose name has a dot (names are DNS-1123 labels)',
    path: '/api/v1/namespaces',
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'a.b' } },
    field: 'metadata.name', kind: 'Namespace', group: '',
  },
  {
    name: 'ConfigMap with an invalid label key',
    path: cms,
    body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'bad-label', labels: { 'bad key': 'x' } } },
    field: 'metadata.labels', kind: 'ConfigMap', group: '',
  },
  {
    name: 'Deployment whose selector does not match its template',
    path: '/apis/apps/v1/namespaces/default/deployments',
    body: { ...fixtures.deployment('mismatch'), spec: { ...fixtures.deployment('mismatch').spec, selector: { matchLabels: { app: 'other' } } } },
    field: 'spec.template.metadata.labels', kind: 'Deployment', group: 'apps',
  },
];
for (const ic of invalidCases) {
  t.test(`422 Invalid: ${ic.name}`, async (t) => {
    const res = await c.post(ic.path, ic.body);
    t.equal(res.status, 422);
    t.match(res.body, { kind: 'Status', reason: 'Invalid', code: 422, details: { kind: ic.kind, group: ic.group } });
    const fields = (res.body.details?.causes ?? []).map((x: any) => x.field);
    t.ok(fields.includes(ic.field), `causes name ${ic.field} (got ${fields.join(', ')})`);
    t.match(res.body.message, new RegExp(`is invalid: .*${ic.field.replace(/[[\].]/g, '\\$&')}`));
    t.equal(new Set(res.body.details.causes.map((x: any) => `${x.field} ${x.message}`)).size, res.body.details.causes.length, 'no cause is reported twice');
    const name = ic.body.metadata.name;
    t.equal((await c.get(`${ic.path}/${name}`)).status, 404, 'nothing was written');
  });
}

t.test('fieldValidation', async (t) => {
  const path = '/apis/apps/v1/namespaces/default/deployments';
  const withUnknown = (name: string) => {
    const d = fixtures.deployment(name) as any;
    d.spec.foo = 'bar';
    return d;
  };
  await t.test('Strict: unknown field is 400 and nothing is written', async (t) => {
    const res = await c.post(`${path}?fieldValidation=Strict`, withUnknown('strict'));
    t.equal(res.status, 400);
    t.equal(res.body.reason, 'BadRequest');
    t.match(res.body.message, /unknown field "spec\.foo"/);
    t.equal((await c.get(`${path}/strict`)).status, 404);
  });
  await t.test('Warn: 201 with a Warning header', async (t) => {
    const res = await c.post(`${path}?fieldValidation=Warn`, withUnknown('warn'));
    t.equal(res.status, 201);
    t.equal(res.headers.warning, '299 - "unknown field \\"spec.foo\\""');
    t.notOk('foo' in res.body.spec, 'the unknown field is not stored');
  });
  await t.test('default is Warn', async (t) => {
    const res = await c.post(path, withUnknown('warn-default'));
    t.equal(res.status, 201);
    t.match(res.headers.warning, /unknown field/);
  });
  await t.test('Ignore: 201, no warning, field dropped', async (t) => {
    const res = await c.post(`${path}?fieldValidation=Ignore`, withUnknown('ignore'));
    t.equal(res.status, 201);
    t.equal(res.headers.warning, undefined);
    const got = await c.get(`${path}/ignore`);
    t.notOk('foo' in got.body.spec);
  });
  await t.test('unknown fieldValidation value is 400', async (t) => {
    const res = await c.post(`${path}?fieldValidation=Loose`, fixtures.deployment('loose'));
    t.equal(res.status, 400);
  });
  await t.test('Strict also applies to updates', async (t) => {
    const cur = (await c.get(`${path}/ignore`)).body;
    cur.spec.bar = 1;
    const res = await c.put(`${path}/ignore?fieldValidation=Strict`, cur);
    t.equal(res.status, 400);
    t.match(res.body.message, /unknown field "spec\.bar"/);
  });
});

t.test('duplicate fields follow fieldValidation', async (t) => {
  const json = (name: string) => `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${name}"},"data":{"a":"1"},"data":{"b":"2"}}`;
  const strict = await c.post(`${cms}?fieldValidation=Strict`, json('dup-strict'));
  t.equal(strict.status, 400, 'Strict: 400');
  t.match(strict.body.message, /strict decoding error: duplicate field "data"/);
  t.equal((await c.get(`${cms}/dup-strict`)).status, 404);
  const warn = await c.post(`${cms}?fieldValidation=Warn`, json('dup-warn'));
  t.equal(warn.status, 201, 'Warn: created');
  t.equal(warn.headers.warning, '299 - "duplicate field \\"data\\""');
  t.same(warn.body.data, { b: '2' }, 'the last value wins');
  const ignore = await c.post(`${cms}?fieldValidation=Ignore`, json('dup-ignore'));
  t.equal(ignore.status, 201);
  t.equal(ignore.headers.warning, undefined);
  const nested = await c.post(`${cms}?fieldValidation=Strict`, '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"dup-nested","labels":{"a":"1","a":"2"}}}');
  t.equal(nested.status, 400, 'nested duplicates count');
  t.match(nested.body.message, /duplicate field "a"/);
  const sameKeyElsewhere = await c.post(`${cms}?fieldValidation=Strict`, '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"dup-none","labels":{"name":"x"}},"data":{"name":"y","kind":"z"}}');
  t.equal(sameKeyElsewhere.status, 201, 'one key in different objects is no duplicate');
  const yaml = (name: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  a: "1"\ndata:\n  b: "2"\n`;
  const yamlStrict = await c.post(`${cms}?fieldValidation=Strict`, yaml('ydup-strict'), { contentType: 'application/yaml' });
  t.equal(yamlStrict.status, 400, 'YAML Strict: 400');
  t.match(yamlStrict.body.message, /line 7: key "data" already set in map/);
  const yamlWarn = await c.post(cms, yaml('ydup-warn'), { contentType: 'application/yaml' });
  t.equal(yamlWarn.status, 201, 'YAML Warn: created');
  t.match(yamlWarn.headers.warning, /line 7: key \\"data\\" already set in map/);
  const patch = await c.patch(`${cms}/dup-warn?fieldValidation=Strict`, '{"data":{"c":"1","c":"2"}}');
  t.equal(patch.status, 400, 'duplicates in a patch body under Strict');
});

const base64Cases: Array<[string, string, unknown]> = [
  ['ConfigMap binaryData', cms, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b64-cm' }, binaryData: { a: 'not base64!' } }],
  ['Secret data', '/api/v1/namespaces/default/secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'b64-secret' }, data: { a: 'abc' } }],
];
for (const [name, path, body] of base64Cases) {
  t.test(`${name} that is not base64 is 400`, async (t) => {
    const res = await c.post(path, body);
    t.equal(res.status, 400);
    t.match(res.body.message, /illegal base64 data at input byte \d+/);
    t.equal((await c.get(`${path}/${(body as any).metadata.name}`)).status, 404);
  });
}

t.test('base64 values that are valid are accepted', async (t) => {
  const res = await c.post(cms, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b64-ok' }, binaryData: { a: 'AAE=', b: '', c: 'aGVsbG8gd29ybGQ=' } });
  t.equal(res.status, 201);
});

t.test('namespaced resources across namespaces are only listed and watched', async (t) => {
  const post = await c.post('/api/v1/configmaps', fixtures.configMap('nowhere'));
  t.equal(post.status, 405);
  t.equal(post.body.reason, 'MethodNotAllowed');
  const get = await c.get('/api/v1/configmaps/twice');
  t.equal(get.status, 404);
  t.equal(get.body.message, 'the server could not find the requested resource');
  t.equal((await c.delete('/api/v1/configmaps')).status, 405);
  t.equal((await c.get('/api/v1/configmaps')).status, 200, 'list works');
});

t.test('a body over 3 MiB is 413', async (t) => {
  const big = fixtures.configMap('big', {}, { blob: 'x'.repeat(3 * 1024 * 1024 + 10) });
  const res = await c.post(cms, big);
  t.equal(res.status, 413);
  t.match(res.body, { kind: 'Status', reason: 'RequestEntityTooLarge', code: 413 });
  t.equal((await c.get(`${cms}/big`)).status, 404);
});

const notFoundPaths = [
  '/api/v1/namespaces/default/widgets',
  '/api/v1/widgets',
  '/apis/nogroup.example.com/v1/things',
  '/apis/apps/v7/deployments',
  '/api/v1/namespaces/default/nodes',
];
for (const path of notFoundPaths) {
  t.test(`unknown resource ${path} is a 404 Status`, async (t) => {
    const res = await c.get(path);
    t.equal(res.status, 404);
    t.match(res.body, { kind: 'Status', status: 'Failure', reason: 'NotFound', code: 404 });
  });
}

t.test('a path that does not decode is 400 and the server lives on', async (t) => {
  for (const path of ['/api/v1/namespaces/%ZZ/pods', '/apis/apps/v1/namespaces/default/deployments/%E0%A4%A', '/api/v1/namespaces/default/configmaps/%']) {
    const res = await c.get(path);
    t.equal(res.status, 400, path);
    t.match(res.body, { kind: 'Status', reason: 'BadRequest', code: 400 });
  }
  t.equal((await c.get('/version')).status, 200, 'still serving');
});

t.test('a missing object is 404 with details', async (t) => {
  const res = await c.get('/apis/apps/v1/namespaces/default/deployments/nope');
  t.equal(res.status, 404);
  t.match(res.body, { reason: 'NotFound', message: 'deployments.apps "nope" not found', details: { name: 'nope', group: 'apps', kind: 'deployments' } });
});

t.test('objects in a missing namespace are 404 namespaces "x" not found', async (t) => {
  const res = await c.post('/api/v1/namespaces/x/configmaps', fixtures.configMap('in-x'));
  t.equal(res.status, 404);
  t.match(res.body, { reason: 'NotFound', message: 'namespaces "x" not found' });
  const pod = await c.post('/api/v1/namespaces/x/pods', fixtures.pod('in-x'));
  t.equal(pod.status, 404);
  t.equal(pod.body.message, 'namespaces "x" not found');
});

const wrongBodies = [
  { name: 'wrong kind', body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'wk' } } },
  { name: 'wrong apiVersion', body: { apiVersion: 'apps/v1', kind: 'ConfigMap', metadata: { name: 'wv' } } },
  { name: 'metadata not an object', body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: 'wm' } },
  { name: 'namespace differs from the URL', body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'wn', namespace: 'kube-system' } } },
  { name: 'field of the wrong type', body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'wt' }, data: 'nope' } },
];
for (const wb of wrongBodies) {
  t.test(`400 for ${wb.name}`, async (t) => {
    const res = await c.post(cms, wb.body);
    t.equal(res.status, 400);
    t.equal(res.body.reason, 'BadRequest');
    t.equal((await c.get(`${cms}/${(wb.body.metadata as any).name ?? 'wm'}`)).status, 404);
  });
}

t.test('creating an existing object is 409 AlreadyExists', async (t) => {
  t.equal((await c.post(cms, fixtures.configMap('twice'))).status, 201);
  const res = await c.post(cms, fixtures.configMap('twice'));
  t.equal(res.status, 409);
  t.match(res.body, { reason: 'AlreadyExists', message: 'configmaps "twice" already exists', details: { name: 'twice', kind: 'configmaps' } });
});

t.test('PUT to a name different from the body is 400', async (t) => {
  const res = await c.put(`${cms}/twice`, fixtures.configMap('other'));
  t.equal(res.status, 400);
});

t.test('unsupported methods are 405', async (t) => {
  const res = await c.post(`${cms}/twice`, fixtures.configMap('twice'));
  t.equal(res.status, 405);
  t.equal(res.body.reason, 'MethodNotAllowed');
});

const acceptCases: Array<[string, number, RegExp]> = [
  ['application/xml', 406, /./],
  ['text/html', 406, /./],
  ['application/xml, application/json', 200, /^application\/json/],
  ['application/vnd.kubernetes.protobuf, application/json', 200, /^application\/json/],
  ['application/vnd.kubernetes.protobuf', 200, /^application\/json/],
  ['*/*', 200, /^application\/json/],
  ['application/yaml', 200, /^application\/yaml/],
];
for (const [accept, status, type] of acceptCases) {
  t.test(`Accept ${accept} → ${status}`, async (t) => {
    const res = await c.get(cms, { accept });
    t.equal(res.status, status);
    if (status === 406) t.match(res.body, { kind: 'Status', reason: 'NotAcceptable', code: 406 });
    else t.match(res.headers['content-type'], type);
  });
}

t.test('an invalid label selector is 400', async (t) => {
  const res = await c.get(`${cms}?labelSelector=${encodeURIComponent('a in (b')}`);
  t.equal(res.status, 400);
  t.equal(res.body.reason, 'BadRequest');
});

t.test('an invalid continue token is 400', async (t) => {
  const res = await c.get(`${cms}?limit=1&continue=garbage`);
  t.equal(res.status, 400);
});
