// `capstan bench compare A.json B.json`: two runs side by side, figure by figure (matched by
// suite and metric id), with the change from A to B; then the ratios against each anchor.
import type { BenchRun, Metric, Ratio } from './schema.js';
import { esc, fmtNum } from './svg.js';

export interface CompareRow { suite: string; figure: string; system: string; stat: string; unit: string; a: number | null; b: number | null; change: number | null }

/** The statistic a figure is compared on: its rate when it has one, else its median. */
function headline(m: Metric): { stat: string; value: number | null } {
  if (m.summary.rate !== undefined) return { stat: 'rate', value: m.summary.rate };
  if (m.summary.p50 !== null) return { stat: 'p50', value: m.summary.p50 };
  return { stat: 'mean', value: m.summary.mean };
}

const change = (a: number | null, b: number | null) => (a != null && b != null && a !== 0 ? (b - a) / Math.abs(a) : null);

export function compareRuns(a: BenchRun, b: BenchRun): { metrics: CompareRow[]; ratios: CompareRow[] } {
  const metrics: CompareRow[] = [], ratios: CompareRow[] = [];
  const suites = [...new Set([...a.suites, ...b.suites].map((s) => s.name))];
  for (const name of suites) {
    const sa = a.suites.find((s) => s.name === name), sb = b.suites.find((s) => s.name === name);
    const ids = [...new Set([...(sa?.metrics ?? []), ...(sb?.metrics ?? [])].map((m) => m.id))];
    for (const id of ids) {
      const ma = sa?.metrics.find((m) => m.id === id), mb = sb?.metrics.find((m) => m.id === id);
      const ref = (ma ?? mb)!;
      const stat = headline(ref).stat;
      const pick = (m?: Metric) => (m ? (stat === 'rate' ? m.summary.rate ?? null : stat === 'p50' ? m.summary.p50 : m.summary.mean) : null);
      const va = pick(ma), vb = pick(mb);
      metrics.push({ suite: name, figure: `${ref.figure}${ref.x ? ` @${ref.x.value} ${ref.x.name}` : ''}`, system: ref.system, stat, unit: stat === 'rate' ? '/s' : ref.unit, a: va, b: vb, change: change(va, vb) });
    }
    const key = (r: Ratio) => `${r.capstan}|${r.anchor}|${r.stat}`;
    const keys = [...new Set([...(sa?.ratios ?? []), ...(sb?.ratios ?? [])].map(key))];
    for (const k of keys) {
      const ra = sa?.ratios.find((r) => key(r) === k), rb = sb?.ratios.find((r) => key(r) === k);
      const ref = (ra ?? rb)!;
      ratios.push({ suite: name, figure: ref.figure, system: `vs ${ref.anchorName}`, stat: ref.stat, unit: '×', a: ra?.value ?? null, b: rb?.value ?? null, change: change(ra?.value ?? null, rb?.value ?? null) });
    }
  }
  return { metrics, ratios };
}

const pct = (c: number | null) => (c == null ? '—' : `${c >= 0 ? '+' : ''}${(c * 100).toFixed(1)}%`);
const cell = (v: number | null) => (v == null ? '—' : fmtNum(v));

function textTable(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.min(60, Math.max(h.length, ...rows.map((r) => r[i]!.length))));
  const line = (cells: string[]) => cells.map((c, i) => (i >= cells.length - 3 ? c.padStart(widths[i]!) : c.slice(0, widths[i]).padEnd(widths[i]!))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

const runLine = (label: string, r: BenchRun) => `${label}: ${r.startedAt}, capstan ${r.versions.capstan ?? '?'}, ${r.machine.cpus} × ${r.machine.model}, load ${r.machine.loadAverage.start[0]!.toFixed(1)}${r.quick ? ', quick' : ''}`;

export function compareText(a: BenchRun, b: BenchRun): string {
  const { metrics, ratios } = compareRuns(a, b);
  const rows = (rs: CompareRow[]) => rs.map((r) => [r.suite, r.figure, r.system, `${r.stat} ${r.unit}`, cell(r.a), cell(r.b), pct(r.change)]);
  return [runLine('A', a), runLine('B', b), '',
    textTable(['suite', 'figure', 'system', 'stat', 'A', 'B', 'change'], rows(metrics)), '',
    'Ratios (capstan ÷ anchor):',
    textTable(['suite', 'figure', 'anchor', 'stat', 'A', 'B', 'change'], rows(ratios)), ''].join('\n');
}

export function compareHTML(a: BenchRun, b: BenchRun): string {
  const { metrics, ratios } = compareRuns(a, b);
  const table = (rs: CompareRow[]) => `<table><tr><th>suite</th><th>figure</th><th>system</th><th>stat</th><th>A</th><th>B</th><th>change</th></tr>${rs.map((r) =>
    `<tr data-change="${r.change ?? ''}"><td>${esc(r.suite)}</td><td>${esc(r.figure)}</td><td>${esc(r.system)}</td><td>${esc(`${r.stat} ${r.unit}`)}</td><td>${cell(r.a)}</td><td>${cell(r.b)}</td><td>${pct(r.change)}</td></tr>`).join('')}</table>`;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>capstan bench compare</title>
<style>body{font-family:sans-serif;margin:24px}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:3px 8px;font-size:13px}</style></head><body>
<h1>capstan bench compare</h1><p>${esc(runLine('A', a))}<br>${esc(runLine('B', b))}</p>${table(metrics)}<h2>Ratios (capstan ÷ anchor)</h2>${table(ratios)}</body></html>\n`;
}
