// Admission webhooks end to end: real kubectl against `capstan up`, with a test webhook server
// (HTTPS, its own CA as caBundle) on loopback. A mutating webhook adds a label, a validating
// one refuses a bad object with its message; with the webhook down, failurePolicy Fail
// refuses and Ignore lets through; a webhook that does not answer in time fails the request.
import t from 'tap';
import { createServer } from 'node:net';
import { startCapstanUp } from '../helpers/capstan-up.js';
import { eventually, kubectlFor } from '../helpers/kubectl.js';
import { jsonPatch, startWebhookServer } from '../helpers/webhook-server.js';

const up = await startCapstanUp(t);
const k = kubectlFor(t, up.kubeconfig);

const hook = await startWebhookServer(t, (req, path) => {
  if (path === '/mutate') return { allowed: true, ...jsonPatch([{ op: 'add', path: '/metadata/labels', value: { ...req.object.metadata.labels, webhook: 'mutated' } }]) };
  if (path === '/slow') return null;
  if (req.object?.data?.forbidden) return { allowed: false, status: { code: 403, reason: 'Forbidden', message: 'data.forbidden is not allowed here' } };
  return { allowed: true, warnings: ['checked by the test webhook'] };
});
const downPort = await new Promise<number>((res) => { const s = createServer(); s.listen(0, '127.0.0.1', () => { const p = (s.address() as { port: number }).port; s.close(() => res(p)); }); });

const configuration = (kind: 'Mutating' | 'Validating', name: string, url: string, extra = '') => `apiVersion: admissionregistration.k8s.io/v1
kind: ${kind}WebhookConfiguration
metadata: {name: ${name}}
webhooks:
- name: ${name}.example.com
  clientConfig: {url: "${url}", caBundle: ${hook.caBundle}}
  rules: [{operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [configmaps]}]
  namespaceSelector: {matchLabels: {webhooks: "${name}"}}
  sideEffects: None
  admissionReviewVersions: [v1]
${extra}`;

async function namespaceFor(name: string): Promise<void> {
  await k.ok(['create', 'namespace', name]);
  await k.ok(['label', 'namespace', name, `webhooks=${name}`]);
}

const configMap = (name: string, data = 'ok: "1"') => `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${name}}\ndata: {${data}}\n`;

t.test('a mutating webhook adds a label; a validating one refuses a bad object', async (t) => {
  await namespaceFor('label');
  await k.ok(['apply', '-f', '-'], configuration('Mutating', 'label', `https://127.0.0.1:${hook.port}/mutate`));
  await k.ok(['apply', '-f', '-'], configuration('Validating', 'label', `https://127.0.0.1:${hook.port}/validate`).replace('name: label}', 'name: check}').replace('label.example.com', 'check.example.com'));
  t.match(await k.ok(['get', 'validatingwebhookconfigurations']), /^NAME\s+WEBHOOKS\s+AGE\ncheck\s+1\s/);
  await eventually(async () => (await k(['create', '-n', 'label', '-f', '-', '--dry-run=server', '-o', 'jsonpath={.metadata.labels.webhook}'], configMap('probe'))).stdout === 'mutated', 15_000, 'the webhook to be live');
  const created = await k(['create', '-n', 'label', '-f', '-'], configMap('good'));
  t.equal(created.code, 0, created.stderr);
  t.match(created.stderr, 'Warning: checked by the test webhook');
  t.equal(await k.ok(['get', 'configmap', 'good', '-n', 'label', '-o', 'jsonpath={.metadata.labels.webhook}']), 'mutated');
  const refused = await k(['create', '-n', 'label', '-f', '-'], configMap('bad', 'forbidden: "yes"'));
  t.not(refused.code, 0);
  t.match(refused.stderr, 'Error from server (Forbidden): error when creating "STDIN": admission webhook "check.example.com" denied the request: data.forbidden is not allowed here');
  t.equal((await k(['get', 'configmap', 'bad', '-n', 'label'])).code, 1, 'nothing stored');
});

t.test('the webhook down: failurePolicy Fail refuses, Ignore lets through; the timeout', async (t) => {
  await namespaceFor('down');
  await k.ok(['apply', '-f', '-'], configuration('Validating', 'down', `https://127.0.0.1:${downPort}/`));
  await eventually(async () => (await k(['create', '-n', 'down', '-f', '-', '--dry-run=server'], configMap('probe'))).code !== 0, 15_000, 'the webhook to be live');
  const failed = await k(['create', '-n', 'down', '-f', '-'], configMap('downcm'));
  t.not(failed.code, 0);
  t.match(failed.stderr, `Error from server (InternalError): error when creating "STDIN": Internal error occurred: failed calling webhook "down.example.com": failed to call webhook: Post "https://127.0.0.1:${downPort}/?timeout=10s": dial tcp 127.0.0.1:${downPort}: connect: connection refused`);
  await k.ok(['apply', '-f', '-'], configuration('Validating', 'down', `https://127.0.0.1:${downPort}/`, '  failurePolicy: Ignore\n'));
  await eventually(async () => (await k(['create', '-n', 'down', '-f', '-'], configMap('downcm'))).code === 0, 15_000, 'Ignore to let the request through');

  await namespaceFor('slow');
  await k.ok(['apply', '-f', '-'], configuration('Validating', 'slow', `https://127.0.0.1:${hook.port}/slow`, '  timeoutSeconds: 2\n'));
  await eventually(async () => hook.reviews.some((r) => r.path === '/slow') || (await k(['create', '-n', 'slow', '-f', '-', '--dry-run=server'], configMap('probe'))).code !== 0, 15_000, 'the webhook to be live');
  const slow = await k(['create', '-n', 'slow', '-f', '-'], configMap('slowcm'));
  t.not(slow.code, 0);
  t.match(slow.stderr, `failed calling webhook "slow.example.com": failed to call webhook: Post "https://127.0.0.1:${hook.port}/slow?timeout=2s": context deadline exceeded`);
});
