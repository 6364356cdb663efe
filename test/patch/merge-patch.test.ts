import t from 'tap';
import { applyPatch, patchKindFor } from '../../src/apiserver/patch/index.js';

t.test('JSON merge patch (RFC 7386)', async (t) => {
  const original = { metadata: { name: 'web', labels: { app: 'web', tier: 'fe' } }, spec: { replicas: 1, args: ['a', 'b'] } };
  const cases: { name: string; patch: unknown; want: unknown }[] = [
    { name: 'kubectl scale', patch: { spec: { replicas: 3 } }, want: { metadata: original.metadata, spec: { replicas: 3, args: ['a', 'b'] } } },
    { name: 'kubectl label --overwrite and removal', patch: { metadata: { labels: { tier: null, env: 'prod' } } }, want: { metadata: { name: 'web', labels: { app: 'web', env: 'prod' } }, spec: original.spec } },
    { name: 'arrays are replaced', patch: { spec: { args: ['c'] } }, want: { metadata: original.metadata, spec: { replicas: 1, args: ['c'] } } },
    { name: 'nulls inside new objects are dropped', patch: { status: { a: null, b: 1 } }, want: { ...original, status: { b: 1 } } },
    { name: 'null on a missing key is a no-op', patch: { nope: null }, want: original },
    { name: 'an object replaces a scalar', patch: { spec: { replicas: { x: 1 } } }, want: { metadata: original.metadata, spec: { replicas: { x: 1 }, args: ['a', 'b'] } } },
  ];
  for (const c of cases) t.same(applyPatch('merge', original, c.patch, undefined), c.want, c.name);
  t.same(original.metadata.labels, { app: 'web', tier: 'fe' }, 'original untouched');
});

t.test('a merge patch must be an object', async (t) => {
  for (const body of [[{ spec: {} }], 'x', 3, null]) {
    t.throws(() => applyPatch('merge', {}, body, undefined), { name: 'PatchError', code: 400 }, JSON.stringify(body));
  }
});

t.test('the result shares nothing with the inputs', async (t) => {
  const original = { spec: { template: { labels: { a: '1' } } } };
  const result = applyPatch('merge', original, { spec: { replicas: 1 } }, undefined) as typeof original;
  result.spec.template.labels.a = 'changed';
  t.equal(original.spec.template.labels.a, '1');
});

t.test('a "__proto__" key is data, never a prototype', async (t) => {
  for (const kind of ['merge', 'strategic'] as const) {
    const r = applyPatch(kind, {}, JSON.parse('{"__proto__":{"polluted":true}}'), undefined) as Record<string, unknown>;
    t.equal(Object.getPrototypeOf(r), Object.prototype, kind);
    t.ok(Object.hasOwn(r, '__proto__'), kind);
    t.equal((r as { polluted?: unknown }).polluted, undefined, kind);
  }
  const j = applyPatch('json', {}, [{ op: 'add', path: '/__proto__', value: { polluted: true } }], undefined) as Record<string, unknown>;
  t.equal(Object.getPrototypeOf(j), Object.prototype, 'json');
  t.ok(Object.hasOwn(j, '__proto__'), 'json');
});

t.test('content types map to patch kinds', async (t) => {
  t.equal(patchKindFor('application/json-patch+json'), 'json');
  t.equal(patchKindFor('application/merge-patch+json; charset=utf-8'), 'merge');
  t.equal(patchKindFor('application/strategic-merge-patch+json'), 'strategic');
  t.equal(patchKindFor('application/apply-patch+yaml'), undefined);
  t.equal(patchKindFor('application/json'), undefined);
});
