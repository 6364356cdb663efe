// Kubernetes quantities: parsing, rounding up as resource.Quantity does, lenient fallbacks.
import t from 'tap';
import { milliValue, parseQuantity, quantityValue, value } from '../../src/util/quantity.js';

t.test('quantities', async (t) => {
  const cases: [string, 'milli' | 'value', number][] = [
    ['100m', 'milli', 100], ['0.1', 'milli', 100], ['1', 'milli', 1000], ['1.5', 'milli', 1500], ['2500m', 'milli', 2500],
    ['1e3', 'value', 1000], ['1E', 'value', 1e18], ['1k', 'value', 1000], ['1M', 'value', 1e6], ['2G', 'value', 2e9],
    ['1Ki', 'value', 1024], ['128Mi', 'value', 134217728], ['1.5Gi', 'value', 1610612736], ['1m', 'value', 1], ['0.5m', 'milli', 1],
    ['110', 'value', 110], ['.5', 'milli', 500], ['+1', 'value', 1],
  ];
  for (const [q, kind, want] of cases) t.equal(kind === 'milli' ? milliValue(q) : value(q), want, `${q} (${kind})`);
  for (const bad of ['', 'abc', '1Kb', '1.2.3', '1 Gi', '--1', '1.5e3m']) t.throws(() => parseQuantity(bad), /quantities must match/, `"${bad}" is rejected`);
});

t.test('quantityValue gives null and the lenient forms their fallback on malformed input', async (t) => {
  const cases: [unknown, number | null][] = [['1500m', 1.5], [2, 2], ['2e-3', 0.002], [' 1Ki ', 1024], ['x', null], [undefined, null], [NaN, null], [{}, null]];
  for (const [q, want] of cases) t.equal(quantityValue(q), want, String(q));
  t.equal(milliValue(undefined, 0), 0);
  t.equal(milliValue('bad', 7), 7);
  t.equal(milliValue('250m', 0), 250);
  t.equal(value('1.5', 0), 2, 'fractional base units round up');
  t.throws(() => value(undefined), /quantities must match/);
});
