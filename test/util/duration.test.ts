import t from 'tap';
import { formatDuration, formatSeconds, parseDuration } from '../../src/util/duration.js';

t.test('parseDuration: Go durations as flags take them, in ms', async (t) => {
  const cases: [string, number][] = [['300ms', 300], ['40s', 40_000], ['5m', 300_000], ['1h30m', 5_400_000], ['1.5h', 5_400_000], ['0s', 0], ['2m30s500ms', 150_500]];
  for (const [text, want] of cases) t.equal(parseDuration(text), want, text);
  for (const bad of ['', '10', '5d', 'm', '1h 2m', '-1s']) t.throws(() => parseDuration(bad), /invalid duration/, `"${bad}" is rejected`);
});

t.test('formatDuration: Go time.Duration.String()', async (t) => {
  const cases: [number, string][] = [
    [0, '0s'], [1, '1ns'], [1500, '1.5µs'], [300e6, '300ms'], [1e9, '1s'], [1.5e9, '1.5s'],
    [80e9, '1m20s'], [300e9, '5m0s'], [3600e9, '1h0m0s'], [3723e9, '1h2m3s'], [-2e9, '-2s'],
  ];
  for (const [ns, want] of cases) t.equal(formatDuration(ns), want, String(ns));
});

t.test('formatSeconds: ms rounded to whole seconds as the kubelet prints back-off', async (t) => {
  const cases: [number, string][] = [[10_000, '10s'], [9_600, '10s'], [80_000, '1m20s'], [300_000, '5m0s'], [0, '0s']];
  for (const [ms, want] of cases) t.equal(formatSeconds(ms), want, String(ms));
});

t.test('formatDuration and parseDuration round-trip whole milliseconds', async (t) => {
  const { random } = (await import('./seeded.js')).seededRandom('duration round trip');
  for (let i = 0; i < 200; i++) {
    const ms = Math.floor(random() * 10 * 3_600_000);
    const text = formatDuration(ms * 1e6);
    t.equal(parseDuration(text), ms, `${ms} ms → ${text}`);
  }
});
