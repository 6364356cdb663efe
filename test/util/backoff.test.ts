import t from 'tap';
import { Backoff, KeyedBackoff, backoffDelay } from '../../src/util/backoff.js';
import { seededRandom } from './seeded.js';

t.test('backoffDelay: initial × factor^n, capped', async (t) => {
  const cases: [Parameters<typeof backoffDelay>[0], number, number][] = [
    [{ initialMs: 100, maxMs: 10_000 }, 0, 100],
    [{ initialMs: 100, maxMs: 10_000 }, 3, 800],
    [{ initialMs: 100, maxMs: 10_000 }, 7, 10_000],
    [{ initialMs: 100, maxMs: 10_000 }, 5000, 10_000],
    [{ initialMs: 10, maxMs: 1000, factor: 3 }, 2, 90],
  ];
  for (const [p, n, want] of cases) t.equal(backoffDelay(p, n), want, `${JSON.stringify(p)} after ${n}`);
});

t.test('Backoff: doubles per failure up to max; reset starts over', async (t) => {
  const b = new Backoff({ initialMs: 500, maxMs: 7_000 });
  t.same([b.next(), b.next(), b.next(), b.next(), b.next(), b.next()], [500, 1000, 2000, 4000, 7000, 7000]);
  t.equal(b.failures, 6);
  b.reset();
  t.equal(b.next(), 500);
});

t.test('Backoff: jitter stays within [d, d × (1 + jitter)]', async (t) => {
  const { random } = seededRandom('backoff jitter');
  const b = new Backoff({ initialMs: 100, maxMs: 5_000, jitter: 0.5 }, random);
  for (let i = 0; i < 50; i++) {
    const d = backoffDelay(b.policy, i);
    const got = b.next();
    t.ok(got >= d && got <= d * 1.5, `attempt ${i}: ${got} in [${d}, ${d * 1.5}]`);
  }
});

t.test('KeyedBackoff: per key; forget and forgetPrefix reset', async (t) => {
  const k = new KeyedBackoff({ initialMs: 5, maxMs: 40 });
  t.same([k.next('a'), k.next('a'), k.next('b'), k.next('a')], [5, 10, 5, 20]);
  t.equal(k.failures('a'), 3);
  t.equal(k.get('a'), 20);
  k.forget('a');
  t.equal(k.get('a'), 0);
  t.equal(k.next('a'), 5);
  k.next('p/1'); k.next('p/2');
  k.forgetPrefix('p/');
  t.same([k.failures('p/1'), k.failures('p/2'), k.failures('b')], [0, 0, 1]);
});

t.test('KeyedBackoff: an entry untouched for resetAfterMs starts over', async (t) => {
  let now = 0;
  const k = new KeyedBackoff({ initialMs: 10, maxMs: 100, resetAfterMs: 200 }, () => now);
  k.next('x'); k.next('x');
  now = 200;
  t.equal(k.get('x'), 20, 'still fresh at exactly resetAfterMs');
  now = 201;
  t.equal(k.get('x'), 0, 'stale after');
  t.equal(k.next('x'), 10);
});
