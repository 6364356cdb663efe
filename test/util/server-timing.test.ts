// The Server-Timing header as the API server writes it and `capstan trace` reads it back:
// names outside the token alphabet, quoted descriptions with separators inside, unknown
// parameters and several header lines.
import t from 'tap';
import { formatServerTiming, parseServerTiming, timingToken } from '../../src/util/server-timing.js';

t.test('what is formatted parses back', async (t) => {
  const entries = [
    { name: 'authn', dur: 0.125, start: 0.01 },
    { name: 'admission.webhook.validating.deny.example.com', dur: 12.5, start: 3 },
    { name: 'admission.policy.p', dur: 1, start: 2, desc: 'binding b, "quoted"; and more' },
    { name: 'total', dur: 20, start: 0 },
  ];
  const header = formatServerTiming(entries);
  t.match(header, /^authn;dur=0\.125;start=0\.010, admission\.webhook\.validating\.deny\.example\.com;dur=12\.500;start=3\.000, /);
  t.strictSame(parseServerTiming(header), entries);
});

t.test('names become tokens; odd input is read as browsers read it', async (t) => {
  t.equal(timingToken('admission.mutating.ServiceAccount'), 'admission.mutating.ServiceAccount');
  t.equal(timingToken('a b/c'), 'a_b_c');
  t.strictSame(parseServerTiming(['cache;desc="Cache Read";dur=23.2;unknown=1', 'db;dur=53, bad name;dur=1, app']), [
    { name: 'cache', dur: 23.2, desc: 'Cache Read' },
    { name: 'db', dur: 53 },
    { name: 'app', dur: 0 },
  ]);
  t.strictSame(parseServerTiming(undefined), []);
});
