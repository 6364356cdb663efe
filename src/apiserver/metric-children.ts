// The per-request metrics' series, found by a key the caller builds from strings it already
// has. prom-client turns every observation's label object into its series' key (spreading,
// validating and joining every label) — more than the observation itself, three times a
// request. Here the first observation of a label set goes through prom-client's public API,
// which creates the series; later ones update that series the way prom-client would. Should
// prom-client keep its series elsewhere (another version), every observation simply takes
// the public path.
import type { Counter, Histogram } from 'prom-client';

interface HistogramSeries { sum: number; count: number; bucketValues: Record<number, number> }
interface CounterSeries { value: number }
interface Internals<S> { hashMap?: Record<string, S>; sortedLabelNames?: string[]; upperBounds?: number[] }
type Labels = Record<string, string>;

interface Found<S> { map: Record<string, S>; hash: string; series: S }

/** prom-client's key of a label set: `name:value,` for each label name, sorted, that is set. */
function seriesKey(sortedNames: string[], labels: Labels): string {
  let key = '';
  for (const name of sortedNames) if (labels[name] !== undefined) key += `${name}:${labels[name]},`;
  return key;
}

function find<S>(metric: Internals<S>, labels: Labels): Found<S> | undefined {
  const map = metric.hashMap;
  if (!map || !metric.sortedLabelNames) return undefined;
  const hash = seriesKey(metric.sortedLabelNames, labels);
  const series = map[hash];
  return series ? { map, hash, series } : undefined;
}

/** Still the series prom-client reports (not dropped by a reset since). */
function current<S>(metric: Internals<S>, f: Found<S> | undefined): f is Found<S> {
  return !!f && metric.hashMap === f.map && f.map[f.hash] === f.series;
}

const MAX_SERIES = 10_000;

export class HistogramChildren {
  private readonly found = new Map<string, Found<HistogramSeries>>();

  constructor(private readonly metric: Histogram<string>) {}

  /** Observes `value` in the series of `labels()`, which `key` names uniquely. */
  observe(key: string, labels: () => Labels, value: number): void {
    const internals = this.metric as unknown as Internals<HistogramSeries>;
    const f = this.found.get(key);
    if (!current(internals, f) || !Number.isFinite(value) || !internals.upperBounds) {
      const l = labels();
      this.metric.observe(l, value);
      const seen = find(internals, l);
      if (seen && this.found.size < MAX_SERIES) this.found.set(key, seen);
      return;
    }
    const s = f.series;
    s.sum += value;
    s.count += 1;
    // As prom-client: the first bucket the value fits; above the last, only the count (+Inf).
    const bounds = internals.upperBounds;
    for (let i = 0; i < bounds.length; i++) {
      if (value <= bounds[i]) {
        if (Object.hasOwn(s.bucketValues, bounds[i])) s.bucketValues[bounds[i]] += 1;
        break;
      }
    }
  }
}

export class CounterChildren {
  private readonly found = new Map<string, Found<CounterSeries>>();

  constructor(private readonly metric: Counter<string>) {}

  /** Adds one to the series of `labels()`, which `key` names uniquely. */
  inc(key: string, labels: () => Labels): void {
    const internals = this.metric as unknown as Internals<CounterSeries>;
    const f = this.found.get(key);
    if (!current(internals, f)) {
      const l = labels();
      this.metric.inc(l);
      const seen = find(internals, l);
      if (seen && this.found.size < MAX_SERIES) this.found.set(key, seen);
      return;
    }
    f.series.value += 1;
  }
}
