// Server-side apply of hostile YAML, sent by the real Python client (python3-kubernetes) and
// over plain HTTPS: an alias bomb is refused before anything expands it, an apply drops the
// fields the schema does not know like every other write, and ordinary anchors still work.
import t from 'tap';
import { writeAdminKubeconfig } from '../../src/cli/pki-files.js';
import { startAPIServer } from '../helpers/api.js';
import { pythonApplyConfigMap } from '../helpers/python-kubernetes.js';

const api = await startAPIServer(t);
const c = api.client;
const kubeconfig = writeAdminKubeconfig(api.dir, api.pki, `https://127.0.0.1:${api.port}`);
const cms = '/api/v1/namespaces/default/configmaps';
const apply = { contentType: 'application/apply-patch+yaml' };

/** A "billion laughs" ConfigMap: `levels` lists of nine aliases of the level below. */
function laughs(name: string, levels: number): string {
  const lines = ['apiVersion: v1', 'kind: ConfigMap', `metadata: {name: ${name}}`, 'l0: &l0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
  for (let i = 1; i < levels; i++) lines.push(`l${i}: &l${i} [${Array(9).fill(`*l${i - 1}`).join(',')}]`);
  return `${lines.join('\n')}\n`;
}

t.test('a billion-laughs apply is 400 and stores nothing', async (t) => {
  for (const levels of [9, 10]) {
    const body = laughs(`lol${levels}`, levels);
    t.ok(body.length < 600, `${levels} levels in ${body.length} bytes`);
    const res = await pythonApplyConfigMap(kubeconfig, `lol${levels}`, body);
    t.equal(res.status, 400, 'python client: 400');
    t.match(res.body, { kind: 'Status', reason: 'BadRequest', message: /document contains excessive aliasing/ });
    t.equal((await c.get(`${cms}/lol${levels}`)).status, 404, 'nothing stored');
  }
  const list = await c.get(cms);
  t.equal(list.status, 200, 'lists still answer');
  t.equal(list.body.items.filter((i: any) => i.metadata.name.startsWith('lol')).length, 0);
});

t.test('a YAML bomb in a plain create is refused the same way', async (t) => {
  const res = await c.post(cms, laughs('lol-post', 9), { contentType: 'application/yaml' });
  t.equal(res.status, 400);
  t.match(res.body.message, /excessive aliasing/);
});

t.test('an anchor that contains itself is 400', async (t) => {
  const res = await c.patch(`${cms}/self?fieldManager=m`, 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: self}\nx: &x\n  y: *x\n', apply);
  t.equal(res.status, 400);
  t.match(res.body.message, /anchor value contains itself/);
});

t.test('aliases that expand past 3 MiB are 413', async (t) => {
  const big = 'x'.repeat(600_000);
  const body = `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: wide}\ndata:\n  a: &a "${big}"\n  b: *a\n  c: *a\n  d: *a\n  e: *a\n  f: *a\n`;
  t.ok(body.length < 3 * 1024 * 1024, 'the body itself is under the limit');
  const res = await c.patch(`${cms}/wide?fieldManager=m`, body, apply);
  t.equal(res.status, 413);
  t.equal(res.body.reason, 'RequestEntityTooLarge');
  t.equal((await c.get(`${cms}/wide`)).status, 404);
});

t.test('ordinary anchors and aliases still apply', async (t) => {
  const manifest = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: anchors\n  labels: &labels {app: web, tier: front}\n  annotations: *labels\ndata: {k: v}\n';
  const res = await pythonApplyConfigMap(kubeconfig, 'anchors', manifest);
  t.equal(res.status, 201);
  t.same(res.body.metadata.annotations, { app: 'web', tier: 'front' });
});

t.test('apply drops unknown fields, as every other write does', async (t) => {
  const manifest = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: unknown\n  bogus: 1\ndata: {k: v}\nspec:\n  lots: [1, 2, 3]\n';
  const res = await pythonApplyConfigMap(kubeconfig, 'unknown', manifest);
  t.equal(res.status, 201);
  const stored = (await c.get(`${cms}/unknown`)).body;
  t.same(stored.data, { k: 'v' });
  t.notOk('spec' in stored, 'spec is not stored');
  t.notOk('bogus' in stored.metadata, 'metadata.bogus is not stored');
  const owned = JSON.stringify(stored.metadata.managedFields);
  t.notMatch(owned, /f:spec|f:bogus/, 'nor recorded as owned');

  const again = await c.patch(`${cms}/unknown?fieldManager=python`, manifest, apply);
  t.equal(again.status, 200);
  t.equal(again.headers.warning, '299 - "unknown field \\"metadata.bogus\\"", 299 - "unknown field \\"spec\\""', 'Warn (the default) says which');
  t.notOk('spec' in again.body);
});

t.test('apply honours fieldValidation=Strict and Ignore for unknown fields', async (t) => {
  const manifest = 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: strict}\ndata: {k: v}\nextra: 1\n';
  const strict = await c.patch(`${cms}/strict?fieldManager=m&fieldValidation=Strict`, manifest, apply);
  t.equal(strict.status, 400);
  t.match(strict.body.message, /strict decoding error: unknown field "extra"/);
  t.equal((await c.get(`${cms}/strict`)).status, 404);
  const ignore = await c.patch(`${cms}/strict?fieldManager=m&fieldValidation=Ignore`, manifest, apply);
  t.equal(ignore.status, 201);
  t.equal(ignore.headers.warning, undefined);
  t.notOk('extra' in ignore.body);
});
