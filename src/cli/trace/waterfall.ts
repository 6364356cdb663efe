// The terminal waterfall of `capstan trace`: per request its method, path, status and time,
// then one row per stage the API server reported, a bar placed and sized on the request's own
// server time (stages that overlap, like validating webhooks, overlap here too).
import type { RecordedRequest } from './proxy.js';

const WIDTH = 40;

function ms(v: number): string {
  return v >= 100 ? `${v.toFixed(0)} ms` : v >= 10 ? `${v.toFixed(1)} ms` : `${v.toFixed(2)} ms`;
}

function bar(start: number, dur: number, total: number): string {
  if (total <= 0) return ' '.repeat(WIDTH);
  const from = Math.min(WIDTH - 1, Math.floor((start / total) * WIDTH));
  const len = Math.max(1, Math.min(WIDTH - from, Math.round((dur / total) * WIDTH)));
  return ' '.repeat(from) + '█'.repeat(len) + ' '.repeat(WIDTH - from - len);
}

export function renderWaterfall(requests: RecordedRequest[]): string {
  const out: string[] = [];
  const nameWidth = Math.max(12, ...requests.flatMap((r) => r.stages.map((s) => s.name.length + 4)));
  for (const r of requests) {
    const server = r.stages.find((s) => s.name === 'total');
    const status = r.error ? `error: ${r.error}` : String(r.status);
    out.push(`${r.method} ${r.path} ${status} ${ms(r.totalMs || r.headersMs)}${server ? ` (server ${ms(server.dur)})` : ''}`);
    const total = server?.dur ?? Math.max(0, ...r.stages.map((s) => (s.start ?? 0) + s.dur));
    let at = 0;
    const placed = r.stages.filter((s) => s.name !== 'total').map((s) => {
      const start = s.start ?? at;
      at = start + s.dur;
      return { ...s, start };
    });
    for (const [i, s] of placed.entries()) {
      // A stage inside another (a webhook inside its plugin, a storage read inside admission) is indented under it.
      const depth = placed.filter((o, j) => o !== s && o.start <= s.start && o.start + o.dur >= s.start + s.dur && (o.dur > s.dur || j < i)).length;
      const name = `${'  '.repeat(depth)}${s.name}`;
      out.push(`  ${name.padEnd(nameWidth)} ${ms(s.dur).padStart(9)} |${bar(s.start, s.dur, total)}|`);
    }
  }
  const head = `capstan trace: ${requests.length} request${requests.length === 1 ? '' : 's'}; bars are scaled to each request's time in the API server\n`;
  return head + out.join('\n') + (out.length ? '\n' : '');
}
