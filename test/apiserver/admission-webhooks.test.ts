// Admission webhooks through the real API server, each served by a test HTTPS server on
// loopback with its own CA: a mutating webhook (url) adding a label by JSONPatch with a
// warning, a validating one (service, resolved to its endpoint) refusing a bad object,
// selectors, dry run, failurePolicy Fail and Ignore when the webhook is down, the timeout,
// reinvocation, and keep-alive.
import t from 'tap';
import { createServer } from 'node:net';
import { fixtures, startAPIServer } from '../helpers/api.js';
import { jsonPatch, startWebhookServer } from '../helpers/webhook-server.js';
import { bytes, envelope, int, msg, str } from '../helpers/protobuf-wire.js';

const api = await startAPIServer(t);
const c = api.client;
const AR = '/apis/admissionregistration.k8s.io/v1';

const webhook = (name: string, clientConfig: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  name, clientConfig, sideEffects: 'None', admissionReviewVersions: ['v1'],
  rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
  ...extra,
});

async function configure(kind: 'mutating' | 'validating', name: string, webhooks: unknown[]): Promise<void> {
  const res = await c.post(`${AR}/${kind}webhookconfigurations`, { apiVersion: 'admissionregistration.k8s.io/v1', kind: kind === 'mutating' ? 'MutatingWebhookConfiguration' : 'ValidatingWebhookConfiguration', metadata: { name }, webhooks });
  if (res.status !== 201) throw new Error(res.text);
}

async function remove(kind: 'mutating' | 'validating', name: string): Promise<void> {
  await c.delete(`${AR}/${kind}webhookconfigurations/${name}`);
}

/** The watch cache feeds the plugins: wait until a probe object shows the configuration is live. */
async function until(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 100; i++) { if (await check()) return; await new Promise((r) => setTimeout(r, 50)); }
  throw new Error('configuration never took effect');
}

async function freePort(): Promise<number> {
  return new Promise((res) => { const s = createServer(); s.listen(0, '127.0.0.1', () => { const p = (s.address() as { port: number }).port; s.close(() => res(p)); }); });
}

t.test('configurations are validated as upstream', async (t) => {
  const res = await c.post(`${AR}/validatingwebhookconfigurations`, { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: 'bad' }, webhooks: [{ name: 'short', clientConfig: { url: 'http://127.0.0.1/' }, admissionReviewVersions: ['v1'], timeoutSeconds: 31 }] });
  t.equal(res.status, 422);
  t.match(res.body.message, 'webhooks[0].name: Invalid value: "short": should be a domain with at least three segments separated by dots');
  t.match(res.body.message, 'webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun');
  t.match(res.body.message, 'webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds');
  t.match(res.body.message, `webhooks[0].clientConfig.url: Invalid value: "http://127.0.0.1/": 'https' is the only allowed URL scheme`);
  const ok = await c.post(`${AR}/mutatingwebhookconfigurations`, { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingWebhookConfiguration', metadata: { name: 'defaults' }, webhooks: [webhook('d.example.com', { service: { namespace: 'default', name: 'nothing' } }, { rules: [{ operations: ['CREATE'], apiGroups: ['nothing.example.com'], apiVersions: ['v1'], resources: ['things'] }] })] });
  t.equal(ok.status, 201, ok.text);
  t.match(ok.body.webhooks[0], { failurePolicy: 'Fail', matchPolicy: 'Equivalent', timeoutSeconds: 10, reinvocationPolicy: 'Never', namespaceSelector: {}, objectSelector: {}, clientConfig: { service: { port: 443 } } });
  await remove('mutating', 'defaults');
});

t.test('a mutating webhook adds a label by JSONPatch and warns; a validating one behind a Service refuses', async (t) => {
  const hook = await startWebhookServer(t, (req, path) => {
    if (path === '/mutate') return { allowed: true, warnings: ['labelled by the test webhook'], ...jsonPatch([{ op: 'add', path: '/metadata/labels', value: { ...req.object.metadata.labels, mutated: 'true' } }]) };
    if (req.object?.data?.bad) return { allowed: false, status: { code: 403, reason: 'Forbidden', message: 'bad data' } };
    return { allowed: true };
  }, ['hook.webhooks.svc']);
  await c.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'webhooks' } });
  await c.post('/api/v1/namespaces/webhooks/services', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'hook' }, spec: { ports: [{ name: 'https', port: 443, targetPort: 9443 }] } });
  await c.post('/api/v1/namespaces/webhooks/endpoints', { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'hook' }, subsets: [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ name: 'https', port: hook.port }] }] });
  await configure('mutating', 'label', [webhook('label.example.com', { url: `https://127.0.0.1:${hook.port}/mutate`, caBundle: hook.caBundle })]);
  await configure('validating', 'deny', [webhook('deny.example.com', { service: { namespace: 'webhooks', name: 'hook', path: '/validate' }, caBundle: hook.caBundle })]);
  await until(async () => {
    await c.delete('/api/v1/namespaces/default/configmaps/probe');
    const r = await c.post('/api/v1/namespaces/default/configmaps', fixtures.configMap('probe', {}, { bad: 'x' }));
    return r.status === 403;
  });

  const res = await c.post('/api/v1/namespaces/default/configmaps', fixtures.configMap('good', { app: 'x' }));
  t.equal(res.status, 201, res.text);
  t.strictSame(res.body.metadata.labels, { app: 'x', mutated: 'true' });
  t.equal(res.headers.warning, '299 - "labelled by the test webhook"');
  const sent = hook.reviews.filter((r) => r.request.name === 'good');
  t.strictSame(sent.map((r) => r.path), ['/mutate', '/validate'], 'mutating first, then validating');
  t.match(sent[0].request, { operation: 'CREATE', namespace: 'default', kind: { group: '', version: 'v1', kind: 'ConfigMap' }, resource: { group: '', version: 'v1', resource: 'configmaps' }, dryRun: false, userInfo: { username: 'kubernetes-admin' } });
  t.strictSame(sent[1].request.object.metadata.labels, { app: 'x', mutated: 'true' }, 'the validating webhook sees the mutated object');

  const bad = await c.post('/api/v1/namespaces/default/configmaps', fixtures.configMap('bad', {}, { bad: 'yes' }));
  t.equal(bad.status, 403);
  t.equal(bad.body.reason, 'Forbidden');
  t.equal(bad.body.message, 'admission webhook "deny.example.com" denied the request: bad data');
  t.equal((await c.get('/api/v1/namespaces/default/configmaps/bad')).status, 404, 'nothing stored');

  const dry = await c.post('/api/v1/namespaces/default/configmaps?dryRun=All', fixtures.configMap('dry'));
  t.equal(dry.status, 201);
  t.equal(hook.reviews.at(-1)!.request.dryRun, true, 'dry runs are sent, marked as such');
  t.equal(hook.connections, 2, 'one kept-alive connection per CA bundle and target');
  await remove('mutating', 'label');
  await remove('validating', 'deny');
});

t.test('selectors: only namespaces and objects that match are sent', async (t) => {
  const hook = await startWebhookServer(t, () => ({ allowed: false, status: { message: 'selected' } }));
  await c.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'hooked', labels: { hooked: 'yes' } } });
  await configure('validating', 'selective', [webhook('selective.example.com', { url: `https://127.0.0.1:${hook.port}/`, caBundle: hook.caBundle }, {
    namespaceSelector: { matchLabels: { hooked: 'yes' } }, objectSelector: { matchExpressions: [{ key: 'skip', operator: 'DoesNotExist' }] },
  })]);
  await until(async () => (await c.post('/api/v1/namespaces/hooked/configmaps?dryRun=All', fixtures.configMap('probe'))).status === 400);
  const res = await c.post('/api/v1/namespaces/hooked/configmaps', fixtures.configMap('x'));
  t.equal(res.status, 400);
  t.equal(res.body.message, 'admission webhook "selective.example.com" denied the request: selected');
  t.equal((await c.post('/api/v1/namespaces/hooked/configmaps', fixtures.configMap('skipped', { skip: 'me' }))).status, 201, 'objectSelector');
  t.equal((await c.post('/api/v1/namespaces/default/configmaps', fixtures.configMap('elsewhere'))).status, 201, 'namespaceSelector');
  await remove('validating', 'selective');
});

t.test('failurePolicy Fail and Ignore when the webhook is down, and the timeout', async (t) => {
  const down = await freePort();
  await configure('validating', 'down', [webhook('down.example.com', { url: `https://127.0.0.1:${down}/` }, { objectSelector: { matchLabels: { probe: 'down' } } })]);
  await until(async () => (await c.post('/api/v1/namespaces/default/configmaps?dryRun=All', fixtures.configMap('p', { probe: 'down' }))).status === 500);
  const res = await c.post('/api/v1/namespaces/default/configmaps', fixtures.configMap('fail', { probe: 'down' }));
  t.equal(res.status, 500);
  t.equal(res.body.reason, 'InternalError');
  t.equal(res.body.message, `Internal error occurred: failed calling webhook "down.example.com": failed to call webhook: Post "https://127.0.0.1:${down}/?timeout=10s": dial tcp 127.0.0.1:${down}: connect: connection refused`);
  await remove('validating', 'down');

  await configure('validating', 'ignored', [webhook('ignored.example.com', { url: `https://127.0.0.1:${down}/` }, { failurePolicy: 'Ignore', objectSelector: { matchLabels: { probe: 'ignored' } } })]);
  const ignored = await c.post('/api/v1/namespaces/default/configmaps', fixtures.configMap('ignored', { probe: 'ignored' }));
  t.equal(ignored.status, 201, 'Ignore lets the request through');
  await remove('validating', 'ignored');

  const silent = await startWebhookServer(t, () => null);
  await configure('validating', 'slow', [webhook('slow.example.com', { url: `https://127.0.0.1:${silent.port}/`, caBundle: silent.caBundle }, { timeoutSeconds: 1, objectSelector: { matchLabels: { probe: 'slow' } } })]);
  await until(async () => silent.reviews.length > 0 || (await c.post('/api/v1/namespaces/default/configmaps?dryRun=All', fixtures.configMap('p', { probe: 'slow' }))).status === 500);
  const slow = await c.post('/api/v1/namespaces/default/configmaps', fixtures.configMap('slow', { probe: 'slow' }));
  t.equal(slow.status, 500);
  t.equal(slow.body.message, `Internal error occurred: failed calling webhook "slow.example.com": failed to call webhook: Post "https://127.0.0.1:${silent.port}/?timeout=1s": context deadline exceeded`);
  await remove('validating', 'slow');
});

t.test('reinvocationPolicy IfNeeded: called again after a later webhook changed the object', async (t) => {
  const hook = await startWebhookServer(t, (_req, path) => {
    if (path === '/first') return { allowed: true };
    return { allowed: true, ...jsonPatch([{ op: 'add', path: '/metadata/annotations', value: { second: 'was here' } }]) };
  });
  const rule = { objectSelector: { matchLabels: { probe: 'reinvoke' } } };
  await configure('mutating', 'a-first', [webhook('first.example.com', { url: `https://127.0.0.1:${hook.port}/first`, caBundle: hook.caBundle }, { ...rule, reinvocationPolicy: 'IfNeeded' })]);
  await configure('mutating', 'b-second', [webhook('second.example.com', { url: `https://127.0.0.1:${hook.port}/second`, caBundle: hook.caBundle }, rule)]);
  await until(async () => {
    const r = await c.post('/api/v1/namespaces/default/configmaps?dryRun=All', fixtures.configMap('p', { probe: 'reinvoke' }));
    return r.body.metadata?.annotations?.second === 'was here' && hook.reviews.some((x) => x.path === '/first');
  });
  hook.reviews.length = 0;
  const res = await c.post('/api/v1/namespaces/default/configmaps', fixtures.configMap('re', { probe: 'reinvoke' }));
  t.equal(res.status, 201);
  t.strictSame(hook.reviews.map((r) => r.path), ['/first', '/second', '/first']);
  t.strictSame(hook.reviews[2].request.object.metadata.annotations, { second: 'was here' });
  await remove('mutating', 'a-first');
  await remove('mutating', 'b-second');
});

t.test('CONNECT: an exec upgrade goes through the chain, with the PodExecOptions', async (t) => {
  const hook = await startWebhookServer(t, () => ({ allowed: false, status: { code: 403, reason: 'Forbidden', message: 'no exec here' } }));
  await configure('validating', 'noexec', [webhook('noexec.example.com', { url: `https://127.0.0.1:${hook.port}/`, caBundle: hook.caBundle }, {
    rules: [{ operations: ['CONNECT'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods/exec'] }],
  })]);
  t.equal((await c.post('/api/v1/namespaces/default/pods', fixtures.pod('target'))).status, 201);
  const upgrade = () => c.request('GET', '/api/v1/namespaces/default/pods/target/exec?command=ls&command=-l&stdout=true&container=main', {
    headers: { Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Version': '13', 'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==', 'Sec-WebSocket-Protocol': 'v5.channel.k8s.io' },
  });
  await until(async () => (await upgrade()).status === 403);
  const res = await upgrade();
  t.equal(res.status, 403);
  t.equal(res.body.message, 'admission webhook "noexec.example.com" denied the request: no exec here');
  const sent = hook.reviews.at(-1)!.request;
  t.match(sent, { operation: 'CONNECT', name: 'target', namespace: 'default', subResource: 'exec', kind: { kind: 'PodExecOptions' }, object: { kind: 'PodExecOptions', command: ['ls', '-l'], stdout: true, container: 'main' } });
  await remove('validating', 'noexec');
});

t.test('webhook configurations sent as protobuf (by typed clients) decode with upstream\'s field numbers', async (t) => {
  // generated.proto: {metadata 1, webhooks 2}; a webhook {name 1, clientConfig 2 {url 3, service 1
  // {namespace 1, name 2, path 3, port 4}, caBundle 2}, rules 3 {operations 1, Rule 2 {apiGroups 1,
  // apiVersions 2, resources 3, scope 4}}, failurePolicy 4, namespaceSelector 5, sideEffects 6,
  // timeoutSeconds 7, admissionReviewVersions 8, matchPolicy 9}, then Mutating: reinvocationPolicy
  // 10, objectSelector 11, matchConditions 12; Validating: objectSelector 10, matchConditions 11.
  const selector = (field: number, key: string, value: string) => msg(field, msg(1, str(1, key), str(2, value)));
  const common = [
    str(1, 'pb.example.com'),
    msg(2, msg(1, str(1, 'hooks'), str(2, 'pb-hook'), str(3, '/check'), int(4, 8443)), bytes(2, Buffer.from('CA'))),
    msg(3, str(1, 'CREATE'), str(1, 'UPDATE'), msg(2, str(1, ''), str(2, 'v1'), str(3, 'configmaps'), str(4, 'Namespaced'))),
    str(4, 'Ignore'), selector(5, 'team', 'a'), str(6, 'None'), int(7, 5), str(8, 'v1'), str(9, 'Exact'),
  ];
  const expected = {
    name: 'pb.example.com',
    clientConfig: { service: { namespace: 'hooks', name: 'pb-hook', path: '/check', port: 8443 }, caBundle: Buffer.from('CA').toString('base64') },
    rules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'], scope: 'Namespaced' }],
    failurePolicy: 'Ignore', namespaceSelector: { matchLabels: { team: 'a' } }, sideEffects: 'None', timeoutSeconds: 5,
    admissionReviewVersions: ['v1'], matchPolicy: 'Exact', objectSelector: { matchLabels: { tier: 'web' } },
    matchConditions: [{ name: 'c', expression: 'true' }],
  };
  const condition = (field: number) => msg(field, str(1, 'c'), str(2, 'true'));
  const mutating = envelope('admissionregistration.k8s.io/v1', 'MutatingWebhookConfiguration', msg(1, str(1, 'pb-mutating')),
    msg(2, ...common, str(10, 'IfNeeded'), selector(11, 'tier', 'web'), condition(12)));
  const m = await c.request('POST', '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations', { body: mutating, contentType: 'application/vnd.kubernetes.protobuf' });
  t.equal(m.status, 201, m.text);
  t.strictSame((m.body as { webhooks: unknown[] }).webhooks, [{ ...expected, reinvocationPolicy: 'IfNeeded' }]);
  const validating = envelope('admissionregistration.k8s.io/v1', 'ValidatingWebhookConfiguration', msg(1, str(1, 'pb-validating')),
    msg(2, ...common, selector(10, 'tier', 'web'), condition(11)));
  const v = await c.request('POST', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', { body: validating, contentType: 'application/vnd.kubernetes.protobuf' });
  t.equal(v.status, 201, v.text);
  t.strictSame((v.body as { webhooks: unknown[] }).webhooks, [expected]);
  for (const [kind, name] of [['mutating', 'pb-mutating'], ['validating', 'pb-validating']]) await c.delete(`/apis/admissionregistration.k8s.io/v1/${kind}webhookconfigurations/${name}`);
});
