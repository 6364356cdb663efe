// The networkpolicy suite's rows as metrics (one per shape and number of policies) and the
// nft shape's ratios against the iptables shape at the same size.
import { Recorder, type SuiteOutput } from './suite.js';

export interface PolicyRow { shape: string; policies: number; load: number; p50: number; p99: number; mean: number; change: number; changeMax: number }

const label = (shape: string) => (shape === 'nft' ? 'capstan-policy (nft, addon)' : 'iptables chain per policy');

export function emitPolicyRows(rows: PolicyRow[], report: string): SuiteOutput {
  const rec = new Recorder();
  for (const r of rows) {
    const x = { name: 'policies', value: r.policies };
    const baseline = r.shape !== 'nft';
    rec.metric({ figure: 'first-packet connect', system: label(r.shape), baseline, unit: 'ms', given: { p50: r.p50, p99: r.p99, mean: r.mean }, x });
    rec.metric({ figure: 'initial load', system: label(r.shape), baseline, unit: 'ms', samples: [r.load], x });
    if (r.policies > 0) rec.metric({ figure: 'change → committed', system: label(r.shape), baseline, unit: 'ms', given: { p50: r.change, max: r.changeMax }, x });
  }
  for (const a of rec.metrics.filter((m) => !m.baseline)) {
    const b = rec.metrics.find((m) => m.baseline && m.figure === a.figure && m.x!.value === a.x!.value);
    if (!b) continue;
    rec.ratio(a, b, 'p50');
    if (a.figure === 'first-packet connect') rec.ratio(a, b, 'p99');
  }
  return rec.output(report);
}
