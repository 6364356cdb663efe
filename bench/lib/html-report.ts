// results.json as one self-contained HTML page: the machine and versions, each suite's status,
// the ratios against every anchor, and the plots (bench/lib/plots.ts). Inline CSS and SVG
// only: no scripts, no fonts, no external URLs, so it opens anywhere and offline.
import type { BenchRun, Metric, SuiteResult } from './schema.js';
import { cdfCharts, scalingCharts, timelineCharts } from './plots.js';
import { esc, fmtNum } from './svg.js';

const num = (v: number | null | undefined) => (v == null ? '—' : fmtNum(v));
const ratio = (v: number) => `${v >= 10 ? v.toFixed(1) : v >= 0.1 ? v.toFixed(2) : v.toPrecision(2)}×`;
const gib = (b: number) => `${(b / 2 ** 30).toFixed(1)} GiB`;

function metricsTable(s: SuiteResult): string {
  const rows = s.metrics.map((m: Metric) => `<tr data-metric="${esc(m.id)}"><td>${esc(m.figure)}${m.x ? ` <small>(${esc(m.x.name)} ${m.x.value})</small>` : ''}</td><td>${esc(m.system)}${m.baseline ? ' <small>baseline</small>' : ''}</td><td>${esc(m.unit)}</td><td>${m.summary.n}</td><td>${num(m.summary.p50)}</td><td>${num(m.summary.p99)}</td><td>${num(m.summary.mean)}</td><td>${num(m.summary.rate)}</td></tr>`);
  return `<table class="metrics"><tr><th>figure</th><th>system</th><th>unit</th><th>n</th><th>p50</th><th>p99</th><th>mean</th><th>rate/s</th></tr>${rows.join('')}</table>`;
}

function ratiosTable(run: BenchRun): string {
  const rows = run.suites.flatMap((s) => s.ratios.map((r) => {
    const good = r.better === 'lower' ? r.value <= 1 : r.value >= 1;
    const c = s.metrics.find((m) => m.id === r.capstan);
    const at = c?.x ? `${c.x.value} ${c.x.name}` : '';
    return `<tr class="ratio" data-suite="${esc(s.name)}" data-capstan="${esc(r.capstan)}" data-anchor="${esc(r.anchor)}" data-stat="${r.stat}" data-ratio="${r.value}"><td>${esc(s.name)}</td><td>${esc(r.figure)}</td><td>${esc(at)}</td><td>${r.stat}</td><td>${esc(c?.system ?? '')}</td><td>${esc(r.anchorName)}</td><td class="${good ? 'good' : 'bad'}">${ratio(r.value)}</td><td>${r.better} is better</td></tr>`;
  }));
  if (!rows.length) return '<p>No ratios in this run.</p>';
  return `<table id="ratios"><tr><th>suite</th><th>figure</th><th>at</th><th>stat</th><th>capstan</th><th>anchor</th><th>capstan ÷ anchor</th><th></th></tr>${rows.join('')}</table>`;
}

function suiteSection(s: SuiteResult): string {
  const head = `<h2 id="suite-${esc(s.name)}">${esc(s.name)}: ${esc(s.title)}</h2><p class="status ${s.status}" data-status="${s.status}">${s.status} in ${s.seconds.toFixed(1)} s${s.reason ? ` — ${esc(s.reason)}` : ''}</p>`;
  if (s.status !== 'passed') return `<section class="suite" data-suite="${esc(s.name)}">${head}</section>`;
  const params = Object.entries(s.parameters).map(([k, v]) => `${esc(k)} = ${esc(Array.isArray(v) ? v.join(',') : String(v))}`).join('; ');
  const plots = [...scalingCharts(s), ...timelineCharts(s), ...cdfCharts(s)];
  return `<section class="suite" data-suite="${esc(s.name)}">${head}<p class="params">${params}${s.report ? ` · report: <code>${esc(s.report)}</code>` : ''}</p><div class="plots">${plots.join('\n')}</div>${metricsTable(s)}</section>`;
}

export function renderReport(run: BenchRun): string {
  const m = run.machine, v = run.versions;
  const load = (l: number[]) => l.map((x) => x.toFixed(2)).join(' ');
  const summary = run.suites.map((s) => `<tr data-suite="${esc(s.name)}" data-seconds="${s.seconds}"${s.cpuSeconds === undefined ? '' : ` data-cpu-seconds="${s.cpuSeconds}"`}><td><a href="#suite-${esc(s.name)}">${esc(s.name)}</a></td><td class="${s.status}">${s.status}</td>` +
    `<td>${s.seconds.toFixed(1)} s</td><td>${Math.round((100 * s.seconds) / (run.seconds || 1))}%</td><td>${s.cpuSeconds === undefined ? '—' : `${s.cpuSeconds.toFixed(1)} s`}</td>` +
    `<td>${s.loadAverage ? `${s.loadAverage.start[0]!.toFixed(1)}–${s.loadAverage.end[0]!.toFixed(1)}` : '—'}</td><td>${esc(s.reason ?? '')}</td></tr>`).join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>capstan bench ${esc(run.startedAt)}</title>
<style>
body{font-family:sans-serif;margin:24px;max-width:1200px;color:#222}
table{border-collapse:collapse;margin:8px 0 16px}td,th{border:1px solid #ccc;padding:3px 8px;font-size:13px;text-align:left}
.good{color:#161}.bad{color:#a11}.failed{color:#a11}.skipped{color:#777}.passed{color:#161}
.plots{display:flex;flex-wrap:wrap;gap:12px}svg.chart{border:1px solid #ddd;background:#fff}small{color:#666}
</style></head><body>
<h1>capstan bench${run.quick ? ' (quick)' : ''}</h1>
<p id="machine">${esc(run.startedAt)} · ${run.seconds.toFixed(0)} s · ${m.cpus} × ${esc(m.model)} · kernel ${esc(m.kernel)} · ${gib(m.memoryBytes)} ·
load average ${load(m.loadAverage.start)} at the start, ${load(m.loadAverage.end)} at the end</p>
<p id="versions">capstan ${esc(v.capstan ?? 'unknown')} · Node ${esc(v.node)} · containerd ${esc(v.containerd ?? 'not installed')} · nft ${esc(v.nft ?? 'not installed')}</p>
<table id="suites"><tr><th>suite</th><th>status</th><th>wall time</th><th>share of the run</th><th>CPU</th><th>load (1 min)</th><th>note</th></tr>${summary}</table>
<h2>Ratios against each anchor</h2>
${ratiosTable(run)}
${run.suites.map(suiteSection).join('\n')}
</body></html>
`;
}
