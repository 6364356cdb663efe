// Deeply nested bodies on every write verb: past the nesting limit (100, see
// src/apiserver/limits.ts) a body is 400 before anything walks it, a JSON patch that would
// build a deeper object is 422, and nothing is ever a 500 "Maximum call stack size exceeded".
import t from 'tap';
import { fixtures, startAPIServer } from '../helpers/api.js';

const api = await startAPIServer(t);
const c = api.client;
const cms = '/api/v1/namespaces/default/configmaps';
const json = (contentType: string) => ({ contentType });
const mergePatch = json('application/merge-patch+json');
const smp = json('application/strategic-merge-patch+json');
const jsonPatch = json('application/json-patch+json');
const apply = json('application/apply-patch+yaml');

/** `levels` nested objects as JSON text: {"a":{"a":…1…}}. */
const nested = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
/** Block YAML sequences nested `levels` deep on one line: - - - 1. */
const nestedYAML = (levels: number, indent: number) => `${' '.repeat(indent)}${'- '.repeat(levels)}1`;

await c.post(cms, fixtures.configMap('target', {}, { k: 'v' }));

const deep = 10_000;
const verbs: Array<[string, () => Promise<{ status: number; body: any }>]> = [
  ['create (POST)', () => c.post(cms, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep-post"},"x":${nested(deep)}}`)],
  ['create (POST, YAML)', () => c.post(cms, `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: deep-yaml}\nx:\n${nestedYAML(deep, 1)}\n`, json('application/yaml'))],
  ['update (PUT)', () => c.put(`${cms}/target`, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"target"},"x":${nested(deep)}}`)],
  ['JSON merge patch', () => c.patch(`${cms}/target`, `{"x":${nested(deep)}}`, mergePatch)],
  ['strategic merge patch', () => c.patch(`${cms}/target`, `{"x":${nested(deep)}}`, smp)],
  ['JSON patch', () => c.patch(`${cms}/target`, `[{"op":"add","path":"/x","value":${nested(deep)}}]`, jsonPatch)],
  ['apply (JSON)', () => c.patch(`${cms}/target?fieldManager=m`, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"target"},"x":${nested(deep)}}`, apply)],
  ['apply (flow YAML)', () => c.patch(`${cms}/target?fieldManager=m`, `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: target}\nx: ${'{a: '.repeat(deep)}1${'}'.repeat(deep)}\n`, apply)],
  ['apply (block YAML)', () => c.patch(`${cms}/target?fieldManager=m`, `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: target}\nx:\n${nestedYAML(deep, 1)}\n`, apply)],
];

for (const [verb, send] of verbs) {
  t.test(`${verb}: ${deep} levels is 400`, async (t) => {
    const res = await send();
    t.equal(res.status, 400);
    t.match(res.body, { kind: 'Status', reason: 'BadRequest', message: /exceeded max depth of 100/ });
    const target = await c.get(`${cms}/target`);
    t.same(target.body.data, { k: 'v' }, 'the target is unchanged');
    t.notOk('x' in target.body);
  });
}

t.test('nesting up to the limit is decoded, and unknown fields are dropped as usual', async (t) => {
  // 1 (object) + 99 under "x" = 100 levels.
  const atLimit = nested(99);
  const post = await c.post(cms, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"at-limit"},"x":${atLimit}}`);
  t.equal(post.status, 201);
  t.notOk('x' in post.body);
  t.equal((await c.patch(`${cms}/target`, `{"x":${atLimit}}`, mergePatch)).status, 200);
  t.equal((await c.patch(`${cms}/target`, `{"x":${atLimit}}`, smp)).status, 200);
  t.equal((await c.patch(`${cms}/target?fieldManager=m`, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"target"},"x":${atLimit}}`, apply)).status, 200);
  t.equal((await c.post(cms, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"at-limit"},"x":${nested(100)}}`)).status, 400, 'one more level is 400');
});

t.test('deep content kept as sent (managedFields) at the limit is no 500', async (t) => {
  // root, metadata, managedFields, entry, fieldsV1 and 95 more: 100 levels.
  const fieldsV1 = JSON.parse(`${'{"f:a":'.repeat(96)}{}${'}'.repeat(96)}`);
  const body = { ...fixtures.configMap('deep-mf'), metadata: { name: 'deep-mf', managedFields: [{ manager: 'x', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1 }] } };
  const res = await c.post(cms, body);
  t.ok(res.status < 500, `answered ${res.status}`);
  const got = await c.get(`${cms}/deep-mf`);
  t.ok(got.status === 200 || got.status === 404);
  t.equal((await c.get(cms)).status, 200, 'lists still answer');
});

t.test('a JSON patch may not build deeper objects than a body may be', async (t) => {
  // Copying a subtree into itself doubles its depth each time.
  const ops = [{ op: 'add', path: '/metadata/annotations', value: {} }, { op: 'add', path: '/x', value: { a: { a: {} } } }];
  let path = '/x';
  for (let i = 0; i < 16; i++) {
    ops.push({ op: 'copy', from: '/x', path: `${path}/b` } as any);
    path += '/b';
  }
  const res = await c.patch(`${cms}/target`, ops, jsonPatch);
  t.equal(res.status, 422);
  t.match(res.body, { reason: 'Invalid', message: /exceeded max depth of 100/ });
  // The body nests 99 deep; the value lands four levels down: 101.
  const addDeep = await c.patch(`${cms}/target`, [
    { op: 'add', path: '/x', value: { a: { b: {} } } },
    { op: 'add', path: '/x/a/b/c', value: JSON.parse(nested(97)) },
  ], jsonPatch);
  t.equal(addDeep.status, 422, 'a deep value placed further down');
});

t.test('JSON patch: more than 10000 operations is 413, copies past 3 MiB are 422', async (t) => {
  const many = Array.from({ length: 10_001 }, () => ({ op: 'test', path: '/data/k', value: 'v' }));
  const tooMany = await c.patch(`${cms}/target`, many, jsonPatch);
  t.equal(tooMany.status, 413);
  t.match(tooMany.body, { reason: 'RequestEntityTooLarge', message: 'The allowed maximum operations in a JSON patch is 10000, got 10001' });
  const copies = [{ op: 'add', path: '/data/big', value: 'x'.repeat(200_000) }];
  for (let i = 0; i < 20; i++) copies.push({ op: 'copy', from: '/data/big', path: `/data/c${i}` } as any);
  const copied = await c.patch(`${cms}/target`, copies, jsonPatch);
  t.equal(copied.status, 422);
  t.match(copied.body.message, /accumulated size increase of copy is \d+, exceeding the limit 3145728/);
  t.same((await c.get(`${cms}/target`)).body.data, { k: 'v' });
});
