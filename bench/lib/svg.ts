// A small SVG chart kit for the HTML report: linear and log scales with ticks, axes, a legend,
// lines and points. Strings in, a self-contained <svg> string out; no DOM, no dependencies.

export const esc = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export interface Scale {
  (v: number): number;
  log: boolean;
  domain: [number, number];
  ticks(): number[];
}

/** Round numbers for tick labels: 1k, 2.5M, 0.01, 300µ is not attempted (units live in the axis label). */
export function fmtNum(v: number): string {
  const a = Math.abs(v);
  if (a >= 1e9) return `${+(v / 1e9).toPrecision(3)}G`;
  if (a >= 1e6) return `${+(v / 1e6).toPrecision(3)}M`;
  if (a >= 1e4) return `${+(v / 1e3).toPrecision(3)}k`;
  if (a === 0) return '0';
  return `${+v.toPrecision(3)}`;
}

function niceStep(span: number, count: number): number {
  const raw = span / Math.max(1, count);
  const mag = 10 ** Math.floor(Math.log10(raw));
  const f = raw / mag;
  return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
}

export function linearScale(domain: [number, number], range: [number, number]): Scale {
  let [d0, d1] = domain;
  if (d0 === d1) { d0 -= Math.abs(d0) / 2 || 1; d1 += Math.abs(d1) / 2 || 1; }
  const step = niceStep(d1 - d0, 5);
  d0 = Math.floor(d0 / step) * step;
  d1 = Math.ceil(d1 / step) * step;
  const f = ((v: number) => range[0] + ((v - d0) / (d1 - d0)) * (range[1] - range[0])) as Scale;
  f.log = false;
  f.domain = [d0, d1];
  f.ticks = () => {
    const out: number[] = [];
    for (let v = d0; v <= d1 + step / 2; v += step) out.push(+v.toPrecision(12));
    return out;
  };
  return f;
}

/** Log10 scale over whole decades; ticks at 1, (2, 5,) 10 … as the number of decades allows. */
export function logScale(domain: [number, number], range: [number, number]): Scale {
  const lo = Math.floor(Math.log10(Math.max(domain[0], Number.MIN_VALUE)));
  let hi = Math.ceil(Math.log10(Math.max(domain[1], Number.MIN_VALUE)));
  if (hi === lo) hi = lo + 1;
  const f = ((v: number) => range[0] + ((Math.log10(v) - lo) / (hi - lo)) * (range[1] - range[0])) as Scale;
  f.log = true;
  f.domain = [10 ** lo, 10 ** hi];
  f.ticks = () => {
    const mult = hi - lo <= 2 ? [1, 2, 5] : [1];
    const out: number[] = [];
    for (let e = lo; e <= hi; e++) for (const m of mult) if (e < hi || m === 1) out.push(+(m * 10 ** e).toPrecision(12));
    return out;
  };
  return f;
}

export const PALETTE = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#17becf', '#7f7f7f', '#bcbd22'];

export interface Series {
  name: string;
  points: [number, number][];
  /** 'line' joins the points; 'points' draws a marker per point; 'both' does both. */
  draw: 'line' | 'points' | 'both';
  /** data-* attributes for the series' element (the test reads them back). */
  data?: Record<string, string | number>;
  /** data-* attributes per point marker, by point index. */
  pointData?: (i: number) => Record<string, string | number>;
}

export interface ChartOptions {
  title: string;
  x: { label: string; log?: boolean; domain?: [number, number] };
  y: { label: string; log?: boolean; domain?: [number, number] };
  series: Series[];
  data?: Record<string, string | number>;
  width?: number;
  height?: number;
}

const attrs = (d?: Record<string, string | number>) => Object.entries(d ?? {}).map(([k, v]) => ` data-${k}="${esc(String(v))}"`).join('');
const r1 = (v: number) => Math.round(v * 10) / 10;

function extent(vals: number[], log: boolean): [number, number] {
  const v = log ? vals.filter((x) => x > 0) : vals;
  if (!v.length) return log ? [1, 10] : [0, 1];
  return [Math.min(...v, log ? Infinity : 0), Math.max(...v)];
}

export function chart(o: ChartOptions): string {
  const W = o.width ?? 560, H = o.height ?? 340;
  const m = { l: 64, r: 16, t: 28, b: 48 };
  const legendH = 16 * o.series.length;
  const plotB = H - m.b - legendH;
  const xs = o.series.flatMap((s) => s.points.map((p) => p[0]));
  const ys = o.series.flatMap((s) => s.points.map((p) => p[1]));
  const x = (o.x.log ? logScale : linearScale)(o.x.domain ?? extent(xs, !!o.x.log), [m.l, W - m.r]);
  const y = (o.y.log ? logScale : linearScale)(o.y.domain ?? extent(ys, !!o.y.log), [plotB, m.t]);
  const parts: string[] = [];
  parts.push(`<text class="title" x="${m.l}" y="16" font-size="13" font-weight="bold">${esc(o.title)}</text>`);
  for (const t of x.ticks()) {
    const px = r1(x(t));
    parts.push(`<line x1="${px}" x2="${px}" y1="${m.t}" y2="${plotB}" stroke="#eee"/>`);
    parts.push(`<text class="tick x-tick" data-value="${t}" x="${px}" y="${plotB + 14}" font-size="10" text-anchor="middle">${fmtNum(t)}</text>`);
  }
  for (const t of y.ticks()) {
    const py = r1(y(t));
    parts.push(`<line x1="${m.l}" x2="${W - m.r}" y1="${py}" y2="${py}" stroke="#eee"/>`);
    parts.push(`<text class="tick y-tick" data-value="${t}" x="${m.l - 4}" y="${py + 3}" font-size="10" text-anchor="end">${fmtNum(t)}</text>`);
  }
  parts.push(`<line class="axis" x1="${m.l}" x2="${W - m.r}" y1="${plotB}" y2="${plotB}" stroke="#333"/>`);
  parts.push(`<line class="axis" x1="${m.l}" x2="${m.l}" y1="${m.t}" y2="${plotB}" stroke="#333"/>`);
  parts.push(`<text class="x-label" x="${(m.l + W - m.r) / 2}" y="${plotB + 30}" font-size="11" text-anchor="middle">${esc(o.x.label)}${o.x.log ? ' (log)' : ''}</text>`);
  parts.push(`<text class="y-label" transform="translate(14 ${(m.t + plotB) / 2}) rotate(-90)" font-size="11" text-anchor="middle">${esc(o.y.label)}${o.y.log ? ' (log)' : ''}</text>`);
  o.series.forEach((s, i) => {
    const color = PALETTE[i % PALETTE.length]!;
    const pts = s.points.filter(([px, py]) => (!o.x.log || px > 0) && (!o.y.log || py > 0));
    const g: string[] = [];
    if (s.draw !== 'points') g.push(`<polyline class="line" fill="none" stroke="${color}" stroke-width="1.5" points="${pts.map(([px, py]) => `${r1(x(px))},${r1(y(py))}`).join(' ')}"/>`);
    if (s.draw !== 'line') pts.forEach(([px, py], k) => g.push(`<circle class="pt" r="3" fill="${color}" cx="${r1(x(px))}" cy="${r1(y(py))}" data-x="${px}" data-y="${py}"${attrs(s.pointData?.(k))}/>`));
    parts.push(`<g class="series" data-name="${esc(s.name)}" data-points="${pts.length}"${attrs(s.data)}>${g.join('')}</g>`);
    const ly = plotB + 40 + 16 * i;
    parts.push(`<g class="legend-item"><rect x="${m.l}" y="${ly - 8}" width="10" height="10" fill="${color}"/><text x="${m.l + 16}" y="${ly + 1}" font-size="11">${esc(s.name)}</text></g>`);
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" class="chart" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif"${attrs(o.data)}>${parts.join('')}</svg>`;
}
