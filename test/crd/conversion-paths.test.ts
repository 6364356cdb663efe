// Where a CRD conversion webhook meets the rest of the request path, through kubectl:
// admission webhooks whose rules name a converted version get the object in that version
// (matchPolicy Equivalent converts, Exact matches only that version) and their JSONPatch is
// converted back; server-side apply in a converted version is tracked in that version; and
// objects stored before the storage version moved are converted when read, listed and watched
// (through the webhook, or by apiVersion alone for conversion None).
import t from 'tap';
import { join } from 'node:path';
import { startAPIServer } from '../helpers/api.js';
import { kubectlFor, eventually } from '../helpers/kubectl.js';
import { jsonPatch, startWebhookServer, type ReviewRequest } from '../helpers/webhook-server.js';
import { writeKubeconfig } from '../../src/client/index.js';

const api = await startAPIServer(t);
const kubeconfig = join(api.dir, 'admin.kubeconfig');
writeKubeconfig(kubeconfig, { server: `https://127.0.0.1:${api.port}`, caPem: api.pki.ca.certPem, certPem: api.pki.admin.certPem, keyPem: api.pki.admin.keyPem });
const k = kubectlFor(t, kubeconfig);

// v1: spec.hostPort "h:p"; v2: spec.host, spec.port.
function convert(obj: any, to: string): any {
  const out = structuredClone(obj);
  out.apiVersion = to;
  if (to.endsWith('/v2') && obj.spec?.hostPort !== undefined) {
    const [host, port] = String(obj.spec.hostPort).split(':');
    out.spec = { host, port: Number(port) };
  } else if (to.endsWith('/v1') && obj.spec?.host !== undefined) {
    out.spec = { hostPort: `${obj.spec.host}:${obj.spec.port}` };
  }
  return out;
}
const hook = await startWebhookServer(t, (req: ReviewRequest, path) => {
  if (path === '/convert') return { result: { status: 'Success' }, convertedObjects: (req.objects as any[]).map((o) => convert(o, req.desiredAPIVersion)) };
  if (path === '/mutate') {
    return { allowed: true, ...jsonPatch([
      { op: 'add', path: '/metadata/labels', value: { ...req.object.metadata.labels, 'seen-as': req.object.apiVersion.split('/')[1] } },
      { op: 'replace', path: '/spec/port', value: 8443 },
    ]) };
  }
  if (req.object?.spec?.host === 'bad.test') return { allowed: false, status: { code: 403, reason: 'Forbidden', message: `spec.host bad.test is refused (seen in ${req.object.apiVersion})` } };
  return { allowed: true };
});
const reviewsAt = (path: string) => hook.reviews.filter((r) => r.path === path);

const crd = (group: string, plural: string, kind: string, storage: 'v1' | 'v2', strategy: 'Webhook' | 'None') => `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: ${plural}.${group}}
spec:
  group: ${group}
  scope: Namespaced
  names: {plural: ${plural}, singular: ${kind.toLowerCase()}, kind: ${kind}}
  conversion:
${strategy === 'Webhook' ? `    strategy: Webhook
    webhook:
      conversionReviewVersions: [v1]
      clientConfig: {caBundle: ${hook.caBundle}, url: "https://127.0.0.1:${hook.port}/convert"}` : '    strategy: None'}
  versions:
  - name: v1
    served: true
    storage: ${storage === 'v1'}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, properties: ${strategy === 'Webhook' ? '{hostPort: {type: string}}' : '{size: {type: integer}}'}}
  - name: v2
    served: true
    storage: ${storage === 'v2'}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, properties: ${strategy === 'Webhook' ? '{host: {type: string}, port: {type: integer, default: 80}}' : '{size: {type: integer}, color: {type: string, default: blue}}'}}
`;

async function served(group: string, plural: string): Promise<void> {
  await k.ok(['wait', '--for=condition=Established', '--timeout=20s', `crd/${plural}.${group}`]);
  await eventually(async () => (await k(['get', `${plural}.v2.${group}`])).code === 0, 15_000, `${plural} v2 served`);
}

const webhookConfig = (kind: 'Mutating' | 'Validating', path: string, matchPolicy: 'Equivalent' | 'Exact') => `apiVersion: admissionregistration.k8s.io/v1
kind: ${kind}WebhookConfiguration
metadata: {name: widgets-${path}}
webhooks:
- name: ${path}.widgets.example.com
  clientConfig: {url: "https://127.0.0.1:${hook.port}/${path}", caBundle: ${hook.caBundle}}
  rules: [{operations: [CREATE, UPDATE], apiGroups: [adm.example.com], apiVersions: [v2], resources: [widgets]}]
  matchPolicy: ${matchPolicy}
  objectSelector: {matchLabels: {admit: "yes"}}
  sideEffects: None
  admissionReviewVersions: [v1]
`;

t.test('admission webhooks on a version the conversion webhook serves', async (t) => {
  await k.ok(['apply', '-f', '-'], crd('adm.example.com', 'widgets', 'Widget', 'v1', 'Webhook'));
  await served('adm.example.com', 'widgets');
  await k.ok(['apply', '-f', '-'], webhookConfig('Mutating', 'mutate', 'Equivalent'));
  await k.ok(['apply', '-f', '-'], webhookConfig('Validating', 'validate', 'Exact'));
  const v1Widget = (name: string, hostPort: string) => `apiVersion: adm.example.com/v1\nkind: Widget\nmetadata: {name: ${name}, labels: {admit: "yes"}}\nspec: {hostPort: "${hostPort}"}\n`;
  await eventually(async () => (await k(['create', '--dry-run=server', '-f', '-', '-o', 'jsonpath={.metadata.labels.seen-as}'], v1Widget('probe', 'p.test:1'))).stdout === 'v2', 15_000, 'the mutating webhook to be live');

  await t.test('Equivalent: a v1 request reaches a webhook for v2 in v2, and its patch comes back to v1', async (t) => {
    const before = reviewsAt('/mutate').length;
    const beforeValidate = reviewsAt('/validate').length;
    const r = await k(['create', '-f', '-'], v1Widget('one', 'a.test:80'));
    t.equal(r.code, 0, r.stderr);
    const review = reviewsAt('/mutate').slice(before).find((x) => x.request.operation === 'CREATE');
    t.match(review?.request, { kind: { group: 'adm.example.com', version: 'v2', kind: 'Widget' }, object: { apiVersion: 'adm.example.com/v2', spec: { host: 'a.test', port: 80 } } }, 'the webhook saw the v2 form');
    t.equal(await k.ok(['get', 'widgets.v1.adm.example.com', 'one', '-o', 'jsonpath={.spec.hostPort} {.metadata.labels.seen-as}']), 'a.test:8443 v2', 'the v2 patch stored in v1');
    t.equal(reviewsAt('/validate').length, beforeValidate, 'Exact: a validating webhook for v2 is not sent a v1 request');
  });

  await t.test('Exact: a v2 request reaches the validating webhook, which refuses with its message', async (t) => {
    const r = await k(['create', '-f', '-'], 'apiVersion: adm.example.com/v2\nkind: Widget\nmetadata: {name: bad, labels: {admit: "yes"}}\nspec: {host: bad.test}\n');
    t.not(r.code, 0);
    t.match(r.stderr, 'Error from server (Forbidden): error when creating "STDIN": admission webhook "validate.widgets.example.com" denied the request: spec.host bad.test is refused (seen in adm.example.com/v2)');
    t.equal((await k(['get', 'widgets.v1.adm.example.com', 'bad'])).code, 1, 'nothing stored');
    const ok = await k(['create', '-f', '-'], 'apiVersion: adm.example.com/v2\nkind: Widget\nmetadata: {name: two, labels: {admit: "yes"}}\nspec: {host: b.test}\n');
    t.equal(ok.code, 0, ok.stderr);
    t.equal(await k.ok(['get', 'widgets.v2.adm.example.com', 'two', '-o', 'jsonpath={.spec.host}:{.spec.port}']), 'b.test:8443');
  });

  await t.test('an update: object and oldObject both in v2', async (t) => {
    const before = reviewsAt('/validate').length;
    await k.ok(['label', 'widgets.v2.adm.example.com', 'two', 'touched=yes']);
    const review = reviewsAt('/validate').slice(before).find((x) => x.request.operation === 'UPDATE');
    t.match(review?.request, { object: { apiVersion: 'adm.example.com/v2', spec: { host: 'b.test', port: 8443 } }, oldObject: { apiVersion: 'adm.example.com/v2', spec: { host: 'b.test', port: 8443 } } });
  });
});

t.test('server-side apply in a version the conversion webhook serves', async (t) => {
  const widget = (port: number) => `apiVersion: adm.example.com/v2\nkind: Widget\nmetadata: {name: applied}\nspec: {host: ssa.test, port: ${port}}\n`;
  const created = await k(['apply', '--server-side', '-f', '-'], widget(7000));
  t.equal(created.code, 0, created.stderr);
  t.match(created.stdout, 'widget.adm.example.com/applied serverside-applied');
  t.equal(await k.ok(['get', 'widgets.v1.adm.example.com', 'applied', '-o', 'jsonpath={.spec.hostPort}']), 'ssa.test:7000', 'stored in v1');
  await k.ok(['apply', '--server-side', '-f', '-'], widget(7001));
  t.equal(await k.ok(['get', 'widgets.v1.adm.example.com', 'applied', '-o', 'jsonpath={.spec.hostPort}']), 'ssa.test:7001', 'an apply of a change updates it');
  const managed = JSON.parse(await k.ok(['get', 'widgets.v2.adm.example.com', 'applied', '-o', 'jsonpath={.metadata.managedFields}']));
  t.match(managed, [{ manager: 'kubectl', operation: 'Apply', apiVersion: 'adm.example.com/v2', fieldsV1: { 'f:spec': { 'f:host': {}, 'f:port': {} } } }], 'ownership recorded in the version applied');
  const conflict = await k(['apply', '--server-side', '--field-manager=other', '-f', '-'], widget(7002));
  t.not(conflict.code, 0);
  t.match(conflict.stderr, /Apply failed with 1 conflict: conflict with "kubectl": \.spec\.port/);
});

t.test('objects stored before the storage version moved are converted on read', async (t) => {
  await t.test('conversion Webhook', async (t) => {
    await k.ok(['apply', '-f', '-'], crd('store.example.com', 'gadgets', 'Gadget', 'v1', 'Webhook'));
    await served('store.example.com', 'gadgets');
    await k.ok(['create', '-f', '-'], 'apiVersion: store.example.com/v1\nkind: Gadget\nmetadata: {name: old}\nspec: {hostPort: "old.test:81"}\n');
    await k.ok(['apply', '-f', '-'], crd('store.example.com', 'gadgets', 'Gadget', 'v2', 'Webhook'));
    await eventually(async () => (await k(['get', 'crd', 'gadgets.store.example.com', '-o', 'jsonpath={.status.storedVersions}'])).stdout === '["v1","v2"]', 15_000, 'v2 to be recorded as a stored version');
    await eventually(async () => (await k(['create', '-f', '-'], 'apiVersion: store.example.com/v2\nkind: Gadget\nmetadata: {name: new}\nspec: {host: new.test, port: 82}\n')).code === 0, 15_000, 'v2 objects to be created');
    await eventually(async () => (await k(['get', 'gadgets.v2.store.example.com', 'old', '-o', 'jsonpath={.spec.host}'])).stdout !== '', 15_000, 'the new storage version in use');
    t.equal(await k.ok(['get', 'gadgets.v2.store.example.com', 'old', '-o', 'jsonpath={.apiVersion} {.spec.host}:{.spec.port}']), 'store.example.com/v2 old.test:81', 'get in v2');
    t.equal(await k.ok(['get', 'gadgets.v1.store.example.com', 'old', '-o', 'jsonpath={.spec.hostPort}']), 'old.test:81', 'get in v1');
    const list = JSON.parse(await k.ok(['get', 'gadgets.v2.store.example.com', '-o', 'json']));
    t.same(list.items.map((i: any) => `${i.metadata.name} ${i.spec.host}:${i.spec.port}`).sort(), ['new new.test:82', 'old old.test:81'], 'list in v2');
    const listV1 = JSON.parse(await k.ok(['get', 'gadgets.v1.store.example.com', '-o', 'json']));
    t.same(listV1.items.map((i: any) => `${i.metadata.name} ${i.spec.hostPort}`).sort(), ['new new.test:82', 'old old.test:81'], 'list in v1');
    const w = await api.client.watch('/apis/store.example.com/v2/namespaces/default/gadgets?watch=true');
    t.teardown(() => w.close());
    const initial = [await w.next(10_000), await w.next(10_000)];
    t.same(initial.map((e) => `${e?.type} ${e?.object.metadata.name} ${e?.object.spec.host}:${e?.object.spec.port}`).sort(), ['ADDED new new.test:82', 'ADDED old old.test:81'], 'watch in v2');
    await k.ok(['patch', 'gadgets.v2.store.example.com', 'old', '--type=merge', '-p', '{"spec":{"port":91}}']);
    t.match(await w.next(10_000), { type: 'MODIFIED', object: { spec: { host: 'old.test', port: 91 } } }, 'a patch in v2 of the old object');
    t.equal(await k.ok(['get', 'gadgets.v1.store.example.com', 'old', '-o', 'jsonpath={.spec.hostPort}']), 'old.test:91');
  });

  await t.test('conversion None: apiVersion is rewritten', async (t) => {
    await k.ok(['apply', '-f', '-'], crd('plain.example.com', 'things', 'Thing', 'v1', 'None'));
    await served('plain.example.com', 'things');
    await k.ok(['create', '-f', '-'], 'apiVersion: plain.example.com/v1\nkind: Thing\nmetadata: {name: old}\nspec: {size: 3}\n');
    await k.ok(['apply', '-f', '-'], crd('plain.example.com', 'things', 'Thing', 'v2', 'None'));
    await eventually(async () => (await k(['get', 'crd', 'things.plain.example.com', '-o', 'jsonpath={.status.storedVersions}'])).stdout === '["v1","v2"]', 15_000, 'v2 recorded');
    await eventually(async () => (await k(['get', 'things.v2.plain.example.com', 'old', '-o', 'jsonpath={.apiVersion} {.spec.size} {.spec.color}'])).stdout === 'plain.example.com/v2 3 blue', 15_000, 'read in v2, defaulted in v2');
    t.equal(await k.ok(['get', 'things.v1.plain.example.com', 'old', '-o', 'jsonpath={.apiVersion} {.spec.size}']), 'plain.example.com/v1 3');
  });
});
