// The report's plots, chosen from the metrics alone: a log–log scaling chart for every figure
// measured at several x values (proxy sync time against Services, one line per mode), a CDF
// for every latency figure with raw samples (one line per system), and events per second over
// time for every figure with event times (pods Running). Each SVG carries the metric ids and
// values as data-* attributes, so a reader (or a test) can match it to results.json.
import type { Metric, SuiteResult } from './schema.js';
import { TIME_UNITS } from './schema.js';
import { chart, type Series } from './svg.js';

const groupBy = <T>(xs: T[], key: (x: T) => string): Map<string, T[]> => {
  const m = new Map<string, T[]>();
  for (const x of xs) m.set(key(x), [...(m.get(key(x)) ?? []), x]);
  return m;
};

/** The value a scaling chart plots for a metric: its median, else its mean. */
export const scalingValue = (m: Metric): number | null => m.summary.p50 ?? m.summary.mean;

export function scalingCharts(s: SuiteResult): string[] {
  const withX = s.metrics.filter((m) => m.x && (scalingValue(m) ?? 0) > 0);
  return [...groupBy(withX, (m) => m.figure)].map(([figure, ms]) => {
    const series: Series[] = [...groupBy(ms, (m) => m.system)].map(([system, pts]) => {
      const sorted = [...pts].sort((a, b) => a.x!.value - b.x!.value);
      return { name: system, draw: 'both', points: sorted.map((m) => [m.x!.value, scalingValue(m)!]), pointData: (i) => ({ metric: sorted[i]!.id }) };
    });
    return chart({
      title: `${s.name}: ${figure}`, data: { plot: 'scaling', suite: s.name, figure },
      x: { label: ms[0]!.x!.name, log: true }, y: { label: `${figure} (${ms[0]!.unit}, p50)`, log: true }, series,
    });
  });
}

export function cdfCharts(s: SuiteResult): string[] {
  const latency = s.metrics.filter((m) => TIME_UNITS.includes(m.unit) && m.samples.length >= 2 && m.samples.every((v) => v >= 0));
  return [...groupBy(latency, (m) => `${m.figure}\u0000${m.x ? m.x.value : ''}`)].map(([, ms]) => {
    const series: Series[] = ms.map((m) => {
      const sorted = [...m.samples].sort((a, b) => a - b);
      return { name: m.system, draw: 'line', points: sorted.map((v, i) => [v, (i + 1) / sorted.length]), data: { metric: m.id, n: sorted.length } };
    });
    const all = ms.flatMap((m) => m.samples);
    const lo = Math.min(...all), hi = Math.max(...all);
    const log = lo > 0 && hi / lo > 50;
    const figure = `${ms[0]!.figure}${ms[0]!.x ? ` at ${ms[0]!.x.value} ${ms[0]!.x.name}` : ''}`;
    return chart({
      title: `${s.name}: ${figure}`, data: { plot: 'cdf', suite: s.name, figure },
      x: { label: `latency (${ms[0]!.unit})`, log }, y: { label: 'fraction ≤ x', domain: [0, 1] }, series,
    });
  });
}

/** Bucket width (s) giving about 30 buckets over `span` seconds, a round number. */
export function bucketWidth(span: number): number {
  const raw = Math.max(span / 30, 0.05);
  const mag = 10 ** Math.floor(Math.log10(raw));
  const f = raw / mag;
  return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
}

export function timelineCharts(s: SuiteResult): string[] {
  const timed = s.metrics.filter((m) => m.times && m.times.length > 0);
  return [...groupBy(timed, (m) => m.figure)].map(([figure, ms]) => {
    const span = Math.max(...ms.flatMap((m) => m.times!));
    const w = bucketWidth(span);
    const buckets = Math.max(1, Math.ceil(span / w + 1e-9));
    const series: Series[] = ms.map((m) => {
      const counts = new Array<number>(buckets).fill(0);
      for (const t of m.times!) counts[Math.min(buckets - 1, Math.floor(t / w))]!++;
      return {
        name: m.system, draw: 'both', points: counts.map((c, i) => [(i + 0.5) * w, c / w]),
        data: { metric: m.id, total: m.times!.length, bucket: w }, pointData: (i) => ({ count: counts[i]! }),
      };
    });
    return chart({
      title: `${s.name}: ${figure}`, data: { plot: 'timeline', suite: s.name, figure },
      x: { label: 'seconds since start' }, y: { label: `${ms[0]!.unit.includes('/s') ? ms[0]!.unit : 'events/s'} (per ${w} s)` }, series,
    });
  });
}
