// CRD conversion strategy Webhook through kubectl: a Widget is stored in v1 (spec.hostPort
// "h:p") and served in v2 too (spec.host, spec.port), converted by a test webhook over HTTPS
// with its caBundle, by url and by service. Reading and writing v2 sends ConversionReviews
// (one per list); v1 never does; a failing or unreachable webhook fails the request as upstream.
import t from 'tap';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { startAPIServer } from '../helpers/api.js';
import { kubectlFor, eventually } from '../helpers/kubectl.js';
import { startWebhookServer, type ReviewRequest } from '../helpers/webhook-server.js';
import { writeKubeconfig } from '../../src/client/index.js';

const api = await startAPIServer(t);
const kubeconfig = join(api.dir, 'admin.kubeconfig');
writeKubeconfig(kubeconfig, { server: `https://127.0.0.1:${api.port}`, caPem: api.pki.ca.certPem, certPem: api.pki.admin.certPem, keyPem: api.pki.admin.keyPem });
const k = kubectlFor(t, kubeconfig);

let failWith: string | null = null;
let dropOne = false;
function convert(obj: any, to: string): any {
  const out = structuredClone(obj);
  out.apiVersion = to;
  if (to.endsWith('/v2') && obj.spec?.hostPort !== undefined) {
    const [host, port] = String(obj.spec.hostPort).split(':');
    out.spec = { host, port: Number(port) };
  } else if (to.endsWith('/v1') && obj.spec?.host !== undefined) {
    out.spec = { hostPort: `${obj.spec.host}:${obj.spec.port}` };
  }
  out.metadata.labels = { ...obj.metadata.labels, converted: 'true' };
  return out;
}
const hook = await startWebhookServer(t, (req: ReviewRequest) => {
  if (failWith) return { result: { status: 'Failed', message: failWith } };
  const converted = (req.objects as any[]).map((o) => convert(o, req.desiredAPIVersion));
  return { result: { status: 'Success' }, convertedObjects: dropOne ? converted.slice(1) : converted };
}, ['widget-conversion.hooks.svc']);
const conversions = () => hook.reviews.length;

const crd = (clientConfig: string) => `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.conv.example.com}
spec:
  group: conv.example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget}
  conversion:
    strategy: Webhook
    webhook:
      conversionReviewVersions: [v1]
      clientConfig:
        caBundle: ${hook.caBundle}
        ${clientConfig}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, properties: {hostPort: {type: string}}}
  - name: v2
    served: true
    storage: false
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, properties: {host: {type: string}, port: {type: integer, default: 80}}}
`;

t.test('conversion webhook by url', async (t) => {
  await k.ok(['apply', '-f', '-'], crd(`url: "https://127.0.0.1:${hook.port}/convert"`));
  await k.ok(['wait', '--for=condition=Established', '--timeout=20s', 'crd/widgets.conv.example.com']);
  await eventually(async () => (await k(['get', 'widgets.v2.conv.example.com'])).code === 0, 15_000, 'v2 served');

  await t.test('a v2 object is converted to v1 for storage, and back for reading', async (t) => {
    const before = conversions();
    await k.ok(['create', '-f', '-'], 'apiVersion: conv.example.com/v2\nkind: Widget\nmetadata: {name: one}\nspec: {host: example.test}\n');
    const review = hook.reviews.slice(before).find((r) => r.request.desiredAPIVersion === 'conv.example.com/v1');
    t.ok(review, 'a ConversionReview asked for v1');
    t.equal(review!.path, '/convert');
    t.match(review!.request.objects, [{ apiVersion: 'conv.example.com/v2', kind: 'Widget', spec: { host: 'example.test', port: 80 } }], 'sent in v2, defaulted in v2 first');
    t.equal(await k.ok(['get', 'widgets.v1.conv.example.com', 'one', '-o', 'jsonpath={.spec.hostPort} {.metadata.labels.converted}']), 'example.test:80 true', 'stored in v1; the webhook may set labels');
    t.equal(await k.ok(['get', 'widgets.v2.conv.example.com', 'one', '-o', 'jsonpath={.apiVersion} {.spec.host} {.spec.port}']), 'conv.example.com/v2 example.test 80');
  });

  await t.test('the storage version never calls the webhook', async (t) => {
    const before = conversions();
    await k.ok(['create', '-f', '-'], 'apiVersion: conv.example.com/v1\nkind: Widget\nmetadata: {name: two}\nspec: {hostPort: "b.test:8080"}\n');
    await k.ok(['get', 'widgets.v1.conv.example.com', '-o', 'json']);
    await k.ok(['patch', 'widgets.v1.conv.example.com', 'two', '--type=merge', '-p', '{"metadata":{"labels":{"x":"y"}}}']);
    t.equal(conversions(), before);
  });

  await t.test('a list in v2 is one review; a patch in v2 is applied in v2', async (t) => {
    const before = conversions();
    const list = JSON.parse(await k.ok(['get', 'widgets.v2.conv.example.com', '-o', 'json']));
    t.same(list.items.map((i: any) => `${i.metadata.name} ${i.spec.host}:${i.spec.port}`).sort(), ['one example.test:80', 'two b.test:8080']);
    t.same(hook.reviews.slice(before).map((r) => r.request.objects.length), [2], 'both objects in one ConversionReview');
    await k.ok(['patch', 'widgets.v2.conv.example.com', 'two', '--type=merge', '-p', '{"spec":{"port":9090}}']);
    t.equal(await k.ok(['get', 'widgets.v1.conv.example.com', 'two', '-o', 'jsonpath={.spec.hostPort}']), 'b.test:9090');
  });

  await t.test('a webhook that answers Failed fails the request with its message', async (t) => {
    failWith = 'cannot convert today';
    t.teardown(() => { failWith = null; });
    const r = await k(['get', 'widgets.v2.conv.example.com', 'one']);
    t.not(r.code, 0);
    t.match(r.stderr, /Error from server \(InternalError\): .*conversion webhook for conv\.example\.com\/v1, Kind=Widget failed: cannot convert today/);
    const w = await k(['create', '-f', '-'], 'apiVersion: conv.example.com/v2\nkind: Widget\nmetadata: {name: three}\nspec: {host: c.test}\n');
    t.match(w.stderr, /conversion webhook for conv\.example\.com\/v2, Kind=Widget failed: cannot convert today/);
    t.equal((await k(['get', 'widgets.v1.conv.example.com', 'three'])).code, 1, 'nothing was stored');
  });

  await t.test('an answer with objects missing is refused', async (t) => {
    dropOne = true;
    t.teardown(() => { dropOne = false; });
    const r = await k(['get', 'widgets.v2.conv.example.com']);
    t.match(r.stderr, /Error from server \(InternalError\): .*conversion webhook for conv\.example\.com\/v1, Kind=Widget returned 1 objects, expected 2/);
  });
});

t.test('conversion webhook by service, and an unreachable one', async (t) => {
  await k.ok(['create', 'namespace', 'hooks']);
  await k.ok(['apply', '-n', 'hooks', '-f', '-'], `apiVersion: v1
kind: Service
metadata: {name: widget-conversion}
spec: {ports: [{name: https, port: 443, targetPort: 9443}]}
---
apiVersion: v1
kind: Endpoints
metadata: {name: widget-conversion}
subsets: [{addresses: [{ip: 127.0.0.1}], ports: [{name: https, port: ${hook.port}}]}]
`);
  await k.ok(['apply', '-f', '-'], crd('service: {namespace: hooks, name: widget-conversion, path: /by-service}'));
  await eventually(async () => { const before = conversions(); const r = await k(['get', 'widgets.v2.conv.example.com', 'one', '-o', 'jsonpath={.spec.host}']); return r.stdout === 'example.test' && hook.reviews.slice(before).some((x) => x.path === '/by-service'); }, 15_000, 'converted through the service');
  t.pass('the service\'s endpoint was called, verified as widget-conversion.hooks.svc');
  const w = await api.client.watch('/apis/conv.example.com/v2/namespaces/default/widgets?watch=true');
  t.teardown(() => w.close());
  const initial = [await w.next(10_000), await w.next(10_000)];
  t.same(initial.map((e) => `${e?.type} ${e?.object.apiVersion} ${e?.object.metadata.name} ${e?.object.spec.host}`).sort(), ['ADDED conv.example.com/v2 one example.test', 'ADDED conv.example.com/v2 two b.test'], 'a watch in v2 starts with the objects in v2');
  await k.ok(['patch', 'widgets.v1.conv.example.com', 'two', '--type=merge', '-p', '{"spec":{"hostPort":"b.test:7070"}}']);
  const modified = await w.next(10_000);
  t.match(modified, { type: 'MODIFIED', object: { apiVersion: 'conv.example.com/v2', spec: { host: 'b.test', port: 7070 } } }, 'a change made in v1 arrives converted');

  const downPort = await new Promise<number>((res) => { const s = createServer(); s.listen(0, '127.0.0.1', () => { const p = (s.address() as { port: number }).port; s.close(() => res(p)); }); });
  await k.ok(['apply', '-f', '-'], crd(`url: "https://127.0.0.1:${downPort}/convert"`));
  let r = { code: 0, stderr: '', stdout: '' };
  await eventually(async () => { r = await k(['get', 'widgets.v2.conv.example.com', 'one']); return r.code !== 0; }, 15_000, 'the new clientConfig in use');
  t.match(r.stderr, new RegExp(`conversion webhook for conv\\.example\\.com/v1, Kind=Widget failed: Post "https://127\\.0\\.0\\.1:${downPort}/convert\\?timeout=30s": dial tcp 127\\.0\\.0\\.1:${downPort}: connect: connection refused`));
  t.equal(await k.ok(['get', 'widgets.v1.conv.example.com', 'one', '-o', 'jsonpath={.spec.hostPort}']), 'example.test:80', 'the storage version is still served');
});
