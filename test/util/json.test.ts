import t from 'tap';
import { deepCopy, stableStringify } from '../../src/util/json.js';
import { seededRandom } from './seeded.js';

t.test('stableStringify: sorted keys at every depth, JSON otherwise', async (t) => {
  const cases: [unknown, string][] = [
    [{ b: 1, a: { d: [1, { y: 2, x: 1 }], c: null } }, '{"a":{"c":null,"d":[1,{"x":1,"y":2}]},"b":1}'],
    [{ a: undefined, b: 2 }, '{"b":2}'],
    [[1, undefined, 'x'], '[1,null,"x"]'],
    [{ 10: 'a', 9: 'b', x: 'c' }, '{"10":"a","9":"b","x":"c"}'],
    ['s"q', '"s\\"q"'],
    [42, '42'],
    [null, 'null'],
    [{ when: new Date(0) }, '{"when":"1970-01-01T00:00:00.000Z"}'],
  ];
  for (const [v, want] of cases) t.equal(stableStringify(v), want, want);
});

t.test('stableStringify: key order does not matter; the value round-trips through JSON.parse', async (t) => {
  const { random } = seededRandom('stableStringify shuffle');
  const gen = (depth: number): unknown => {
    const r = random();
    if (depth > 3 || r < 0.3) return [1, 'a', true, null, 2.5][Math.floor(random() * 5)];
    if (r < 0.6) return Array.from({ length: Math.floor(random() * 4) }, () => gen(depth + 1));
    return Object.fromEntries(Array.from({ length: Math.floor(random() * 5) }, (_, i) => [`k${Math.floor(random() * 20)}${i}`, gen(depth + 1)]));
  };
  const shuffled = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(shuffled);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).sort(() => random() - 0.5).map(([k, x]) => [k, shuffled(x)]));
    return v;
  };
  for (let i = 0; i < 100; i++) {
    const v = gen(0);
    const text = stableStringify(v);
    t.equal(stableStringify(shuffled(v)), text);
    t.same(JSON.parse(text), v);
  }
});

t.test('deepCopy: a copy the caller owns; undefined passes through', async (t) => {
  const v = { a: [{ b: 1 }] };
  const c = deepCopy(v);
  c.a[0]!.b = 2;
  t.equal(v.a[0]!.b, 1);
  t.equal(deepCopy(undefined), undefined);
});

t.test('deepCopy: as structuredClone for what is not plain JSON', async (t) => {
  const parsed = JSON.parse('{"__proto__": {"polluted": true}, "when": null, "list": [1, "x", null, {"k": [true]}]}');
  const c = deepCopy(parsed);
  t.same(c, parsed);
  t.equal(Object.getPrototypeOf(c), Object.prototype, 'an own "__proto__" key stays a key');
  t.equal((c as { polluted?: boolean }).polluted, undefined);
  t.ok(Object.hasOwn(c, '__proto__'));
  const when = new Date(0), bytes = Buffer.from('ab');
  const mixed = deepCopy({ when, bytes: new Uint8Array(bytes), missing: undefined });
  t.not(mixed.when, when);
  t.equal(mixed.when.getTime(), 0);
  t.same([...mixed.bytes], [0x61, 0x62]);
  t.ok(Object.hasOwn(mixed, 'missing'), 'an undefined member is kept, as structuredClone keeps it');
  const cyclic: Record<string, unknown> = { name: 'loop' };
  let deep: Record<string, unknown> = cyclic;
  for (let i = 0; i < 300; i++) deep = (deep.next = {});
  deep.back = cyclic;
  const copy = deepCopy(cyclic);
  let walk = copy;
  for (let i = 0; i < 300; i++) walk = walk.next as Record<string, unknown>;
  t.equal(typeof walk.back, 'object', 'a cycle is copied (by structuredClone past the plain depth)');
});
