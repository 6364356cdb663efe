// Request tracing through the real API server: Server-Timing only when the request opts in
// (X-Capstan-Trace: 1) or the server says so (--server-timing), naming every stage of a create
// (authentication to watch delivery) and of a get; a request slower than the threshold —
// a validating webhook that sleeps — logged in one line naming the webhook's stage; and the
// /metrics histograms with upstream's names and labels.
import t from 'tap';
import { fixtures, startAPIServer } from '../../helpers/api.js';
import { startWebhookServer } from '../../helpers/webhook-server.js';
import { parseServerTiming } from '../../../src/util/server-timing.js';

const api = await startAPIServer(t, { trace: { slowRequestThresholdMs: 250 } });
const c = api.client;
const traced = { headers: { 'X-Capstan-Trace': '1' } };
const names = (header: unknown) => parseServerTiming(header as string).map((e) => e.name);

t.test('Server-Timing only when the request opts in', async (t) => {
  const plain = await c.post('/api/v1/namespaces/default/configmaps', fixtures.configMap('plain'));
  t.equal(plain.status, 201);
  t.equal(plain.headers['server-timing'], undefined, 'no header without X-Capstan-Trace');
  const off = await c.get('/api/v1/namespaces/default/configmaps/plain', { headers: { 'X-Capstan-Trace': '0' } });
  t.equal(off.headers['server-timing'], undefined, 'X-Capstan-Trace: 0 is no');

  // A watcher is open: the create's reply waits until it was handed the event.
  const list = await c.get('/api/v1/namespaces/default/configmaps');
  const w = await c.watch(`/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${list.body.metadata.resourceVersion}`);
  t.teardown(() => w.close());
  const res = await c.post('/api/v1/namespaces/default/configmaps', fixtures.configMap('traced'), traced);
  t.equal(res.status, 201, res.text);
  const entries = parseServerTiming(res.headers['server-timing'] as string);
  const got = entries.map((e) => e.name);
  for (const stage of ['authn', 'authz', 'decode', 'admission.validating.NamespaceLifecycle', 'admission.mutating.MutatingAdmissionWebhook',
    'admission.validating.ValidatingAdmissionPolicy', 'admission.validating.ValidatingAdmissionWebhook', 'validation', 'storage.create', 'watch', 'encode', 'total']) {
    t.ok(got.includes(stage), `create has stage ${stage}: ${got.join(', ')}`);
  }
  t.ok(got.indexOf('authn') < got.indexOf('authz') && got.indexOf('authz') < got.indexOf('decode') && got.indexOf('decode') < got.indexOf('validation') &&
    got.indexOf('validation') < got.indexOf('storage.create') && got.indexOf('storage.create') < got.indexOf('watch') && got.indexOf('watch') < got.indexOf('encode'), 'in pipeline order');
  const total = entries.find((e) => e.name === 'total')!;
  for (const e of entries) {
    t.ok(e.dur >= 0 && e.start !== undefined && e.start + e.dur <= total.dur + 0.01, `${e.name} lies inside the request`);
  }
  const ev = await w.next();
  t.equal(ev?.object.metadata.name, 'traced', 'the watcher got the event');

  const get = await c.get('/api/v1/namespaces/default/configmaps/traced', traced);
  t.strictSame(names(get.headers['server-timing']), ['authn', 'authz', 'read', 'encode', 'total'], 'a get');
  const update = await c.put('/api/v1/namespaces/default/configmaps/traced', { ...get.body, data: { changed: 'yes' } }, traced);
  t.equal(update.status, 200, update.text);
  const updateStages = names(update.headers['server-timing']);
  for (const stage of ['decode', 'storage.get', 'validation', 'storage.update', 'watch', 'encode']) t.ok(updateStages.includes(stage), `update has ${stage}: ${updateStages.join(', ')}`);
  const del = await c.delete('/api/v1/namespaces/default/configmaps/traced', undefined, traced);
  t.equal(del.status, 200, del.text);
  const deleteStages = names(del.headers['server-timing']);
  for (const stage of ['admission.validating.NamespaceLifecycle', 'storage.get', 'storage.delete', 'watch']) t.ok(deleteStages.includes(stage), `delete has ${stage}: ${deleteStages.join(', ')}`);
  const refused = await c.as({ token: undefined, cert: undefined, key: undefined }).get('/api/v1/namespaces/default/secrets', traced);
  t.equal(refused.status, 403);
  t.match(refused.headers['server-timing'], /^authn;dur=[\d.]+;start=[\d.]+, authz;dur=/, 'a refused request has its stages too');
});

t.test('deletecollection: each item\'s admission and delete are stages, one entry per stage with its runs', async (t) => {
  for (const n of ['dc-1', 'dc-2', 'dc-3']) t.equal((await c.post('/api/v1/namespaces/default/configmaps', fixtures.configMap(n, { batch: 'dc' }))).status, 201);
  const res = await c.delete('/api/v1/namespaces/default/configmaps?labelSelector=batch%3Ddc', undefined, traced);
  t.equal(res.status, 200, res.text);
  t.equal(res.body.items.length, 3);
  const entries = parseServerTiming(res.headers['server-timing'] as string);
  const byName = Object.fromEntries(entries.map((e) => [e.name, e]));
  t.ok(byName.read, 'the list of what to delete is a stage');
  t.equal(byName['admission.validating.NamespaceLifecycle']?.desc, '3 runs', `each item is admitted: ${res.headers['server-timing']}`);
  t.equal(byName['storage.delete']?.desc, '3 runs', 'and deleted');
  t.equal(entries.filter((e) => e.name === 'storage.delete').length, 1, 'one entry per stage, however many items');
});

t.test('--server-timing sends it on every reply', async (t) => {
  const always = await startAPIServer(t, { trace: { serverTiming: true } });
  const res = await always.client.get('/api/v1/namespaces/default');
  t.equal(res.status, 200);
  t.strictSame(names(res.headers['server-timing']), ['authn', 'authz', 'read', 'encode', 'total']);
  const cached = await always.client.get('/api/v1/namespaces?resourceVersion=0');
  t.strictSame(names(cached.headers['server-timing']), ['authn', 'authz', 'read', 'encode', 'total'], 'a list from the watch cache never reaches storage');
});

t.test('a request slower than the threshold is logged with its stages, naming the slow webhook', async (t) => {
  const hook = await startWebhookServer(t, async (req) => {
    if (req.object?.metadata?.labels?.slow) await new Promise((r) => setTimeout(r, 600));
    return { allowed: true };
  });
  const res = await c.post('/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', {
    apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: 'slow' },
    webhooks: [{ name: 'slow.example.com', clientConfig: { url: `https://127.0.0.1:${hook.port}/`, caBundle: hook.caBundle }, sideEffects: 'None', admissionReviewVersions: ['v1'],
      rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }] }],
  });
  t.equal(res.status, 201, res.text);
  // The plugin reads configurations from the watch cache: wait until the webhook is called.
  for (let i = 0; !hook.reviews.length; i++) {
    if (i > 100) throw new Error('the webhook was never called');
    await c.post('/api/v1/namespaces/default/configmaps', { ...fixtures.configMap(`probe-${i}`) });
  }
  const slow = await c.post('/api/v1/namespaces/default/configmaps', fixtures.configMap('slow', { slow: 'yes' }));
  t.equal(slow.status, 201);
  const lines = api.logs.filter((l) => l.includes('Trace[')).map((l) => JSON.parse(l));
  const line = lines.find((l) => l.stages['admission.webhook.validating.slow.example.com'] >= 600);
  t.ok(line, 'the slow create is logged');
  t.ok(line.totalMs >= 250, 'over the threshold');
  t.match(line.msg, /^Trace\[\d+\]: "Create" url:\/api\/v1\/namespaces\/default\/configmaps,.*verb:POST,code:201 \(total time: \d+ms\): authn [\d.]+ms, authz /);
  t.match(line.msg, /admission\.webhook\.validating\.slow\.example\.com [\d.]+ms/);
  await c.delete('/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/slow');
});

t.test('a ValidatingAdmissionPolicy binding is its own stage', async (t) => {
  const AR = '/apis/admissionregistration.k8s.io/v1';
  const policy = await c.post(`${AR}/validatingadmissionpolicies`, { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name: 'no-deny-label' },
    spec: { matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }] }, validations: [{ expression: "!has(object.metadata.labels) || !('deny' in object.metadata.labels)" }] } });
  t.equal(policy.status, 201, policy.text);
  const binding = await c.post(`${AR}/validatingadmissionpolicybindings`, { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name: 'no-deny-label-binding' },
    spec: { policyName: 'no-deny-label', validationActions: ['Deny'] } });
  t.equal(binding.status, 201, binding.text);
  let refused;
  for (let i = 0; ; i++) {
    if (i > 100) throw new Error('the policy never took effect');
    refused = await c.post('/api/v1/namespaces/default/configmaps', fixtures.configMap(`denied-${i}`, { deny: 'x' }), traced);
    if (refused.status !== 201) break;
  }
  t.equal(refused.status, 422, refused.text);
  const stage = parseServerTiming(refused.headers['server-timing'] as string).find((e) => e.name === 'admission.policy.no-deny-label');
  t.ok(stage, String(refused.headers['server-timing']));
  t.equal(stage?.desc, 'binding no-deny-label-binding');
  const metrics = await c.get('/metrics');
  t.match(metrics.text, /apiserver_validating_admission_policy_check_duration_seconds_count\{[^}]*policy="no-deny-label",policy_binding="no-deny-label-binding",enforcement_action="deny",error_type="no_error"\} [1-9]/);
  await c.delete(`${AR}/validatingadmissionpolicybindings/no-deny-label-binding`);
});

t.test('/metrics carries the per-stage histograms with upstream names and labels', async (t) => {
  const res = await c.get('/metrics');
  t.equal(res.status, 200);
  const series = (name: string, labels: Record<string, string>) => res.text.split('\n').find((l) => l.startsWith(`${name}{`) && Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)));
  t.ok(series('apiserver_request_duration_seconds_bucket', { verb: 'POST', dry_run: '', group: '', version: 'v1', resource: 'configmaps', subresource: '', scope: 'namespace', component: 'apiserver' }), 'request duration');
  t.ok(series('apiserver_request_duration_seconds_bucket', { verb: 'GET', resource: 'configmaps', scope: 'resource' }), 'get of one object has scope resource');
  t.ok(series('apiserver_request_total', { verb: 'LIST', resource: 'configmaps', code: '200' }), 'request total');
  t.ok(series('apiserver_response_sizes_bucket', { verb: 'POST', resource: 'configmaps', version: 'v1', component: 'apiserver' }), 'response sizes');
  t.ok(series('apiserver_admission_step_admission_duration_seconds_bucket', { type: 'validate', operation: 'CREATE', rejected: 'false' }), 'admission step');
  t.ok(series('apiserver_admission_controller_admission_duration_seconds_bucket', { name: 'NamespaceLifecycle', type: 'validate', operation: 'CREATE', rejected: 'false' }), 'admission controller');
  t.ok(series('apiserver_admission_webhook_admission_duration_seconds_bucket', { name: 'slow.example.com', type: 'validate', operation: 'CREATE', rejected: 'false' }), 'admission webhook');
  t.ok(series('etcd_request_duration_seconds_bucket', { operation: 'create', type: 'configmaps' }), 'storage');
  t.ok(series('capstan_apiserver_request_stage_duration_seconds_bucket', { stage: 'admission.validating', verb: 'POST', resource: 'configmaps' }), 'stages');
  const refused = series('apiserver_request_duration_seconds_count', { verb: 'LIST', resource: 'secrets', scope: 'namespace' });
  t.ok(refused, 'refused requests are counted too');
});
