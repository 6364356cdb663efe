// The scheduler suite's rows as metrics: time to all bound per mode at each node count (a
// scaling figure), pods/s as the rate, the API rows against the in-memory fake as anchor, and
// the create → bound latencies as raw samples.
import { Recorder, type SuiteOutput } from './suite.js';
import type { Metric } from './schema.js';

export interface SchedRow { nodes: number; mode: string; seconds: number; podsPerSec: number }

export function emitScheduler(pods: number, rows: SchedRow[], latencies: [number, number[]][], report: string): SuiteOutput {
  const rec = new Recorder();
  const figure = `${pods} pods scheduled`;
  const fake = new Map<number, Metric>();
  for (const r of rows) {
    const m = rec.metric({ figure, system: r.mode, baseline: r.mode.startsWith('FakeClientset'), unit: 's', samples: [r.seconds], rate: r.podsPerSec, x: { name: 'nodes', value: r.nodes } });
    if (m.baseline) fake.set(r.nodes, m);
  }
  for (const m of rec.metrics.filter((x) => x.system.startsWith('API'))) {
    const anchor = fake.get(m.x!.value);
    if (anchor) rec.ratio(m, anchor, 'rate');
  }
  for (const [nodes, samples] of latencies) rec.metric({ figure: `pod create → bound while creating, ${nodes} nodes`, system: 'capstan API', unit: 'ms', samples });
  return rec.output(report);
}
