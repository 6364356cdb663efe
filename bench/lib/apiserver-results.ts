// The apiserver suite's rows (API server beside a raw-store baseline) as metrics and ratios.
import type { BenchResult } from './latency.js';
import { Recorder, type SuiteOutput } from './suite.js';
import type { Metric } from './schema.js';

type Figure = BenchResult | { p50Ms: number; p99Ms: number; opsPerSec?: number };
export interface ApiRow { what: string; api: Figure; raw: Figure; rawName: string }

export function emitRows(byBackend: [string, ApiRow[]][], report: string): SuiteOutput {
  const rec = new Recorder();
  for (const [backend, rows] of byBackend) {
    const seen = new Map<Figure, Metric>();
    const metric = (f: Figure, figure: string, system: string, baseline: boolean) => {
      const known = seen.get(f);
      if (known) return known;
      const m = rec.metric({
        figure, system, baseline, unit: 'ms',
        samples: 'samples' in f ? f.samples : undefined,
        rate: f.opsPerSec,
        given: 'samples' in f ? undefined : { p50: f.p50Ms, p99: f.p99Ms },
      });
      seen.set(f, m);
      return m;
    };
    for (const r of rows) {
      const figure = `${backend}: ${r.what}`;
      const api = metric(r.api, figure, 'capstan API server', false);
      const raw = metric(r.raw, figure, r.rawName, true);
      rec.ratio(api, raw, 'p50');
      rec.ratio(api, raw, 'p99');
      if (r.api.opsPerSec && r.raw.opsPerSec) rec.ratio(api, raw, 'rate');
    }
  }
  return rec.output(report);
}
