// The scheduler suite's rows as metrics: time to all bound per mode at each node count (a
// scaling figure), pods/s as the rate, the API rows against the in-memory fake as anchor, and
// the create → bound latencies as raw samples.
import { Recorder, type SuiteOutput } from './suite.js';
import type { Metric } from './schema.js';

export interface SchedRow { nodes: number; mode: string; seconds: number; podsPerSec: number }

export function emitScheduler(pods: number, rows: SchedRow[], latencies: [number, number[]][], report: string): SuiteOutput {
  const rec = new Recorder();
  const figure = `${pods} pods scheduled`;
  // The API rows are anchored on the fake run of the same node count and the same pods
  // (plain or constrained).
  const fake = new Map<string, Metric>();
  const anchorKey = (nodes: number, mode: string) => `${nodes}/${mode.includes('constrained')}`;
  for (const r of rows) {
    const m = rec.metric({ figure, system: r.mode, baseline: r.mode.startsWith('FakeClientset'), unit: 's', samples: [r.seconds], rate: r.podsPerSec, x: { name: 'nodes', value: r.nodes } });
    if (m.baseline) fake.set(anchorKey(r.nodes, r.mode), m);
  }
  for (const m of rec.metrics.filter((x) => x.system.startsWith('API'))) {
    const anchor = fake.get(anchorKey(m.x!.value, m.system));
    if (anchor) rec.ratio(m, anchor, 'rate');
  }
  for (const [nodes, samples] of latencies) rec.metric({ figure: `pod create → bound while creating, ${nodes} nodes`, system: 'capstan API', unit: 'ms', samples });
  return rec.output(report);
}
