// The kubelet's `/metrics/resource`: Prometheus text with upstream's (STABLE) metric names and
// an explicit timestamp on every sample (the time the figure was measured, in ms), rendered
// from a stats summary; and the reader metrics-server-style scrapers use on it.
import type { Summary } from './summary.js';

const families: [name: string, type: 'counter' | 'gauge', help: string][] = [
  ['container_cpu_usage_seconds_total', 'counter', 'Cumulative cpu time consumed by the container in core-seconds'],
  ['container_memory_working_set_bytes', 'gauge', 'Current working set of the container in bytes'],
  ['container_start_time_seconds', 'gauge', 'Start time of the container since unix epoch in seconds'],
  ['node_cpu_usage_seconds_total', 'counter', 'Cumulative cpu time consumed by the node in core-seconds'],
  ['node_memory_working_set_bytes', 'gauge', 'Current working set of the node in bytes'],
  ['pod_cpu_usage_seconds_total', 'counter', 'Cumulative cpu time consumed by the pod in core-seconds'],
  ['pod_memory_working_set_bytes', 'gauge', 'Current working set of the pod in bytes'],
  ['resource_scrape_error', 'gauge', '1 if there was an error while getting container metrics, 0 otherwise'],
];

const escape = (v: string) => v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
const labels = (l: Record<string, string>) => `{${Object.entries(l).map(([k, v]) => `${k}="${escape(v)}"`).join(',')}}`;
const ms = (iso: string) => Date.parse(iso);

export function renderResourceMetrics(s: Summary, scrapeError = false): string {
  const samples = new Map<string, string[]>(families.map(([n]) => [n, []]));
  const add = (name: string, l: Record<string, string>, value: number, time?: string) =>
    samples.get(name)!.push(`${name}${Object.keys(l).length ? labels(l) : ''} ${value}${time ? ` ${ms(time)}` : ''}`);
  for (const p of s.pods) {
    const pl = { namespace: p.podRef.namespace, pod: p.podRef.name };
    for (const c of p.containers) {
      const cl = { container: c.name, ...pl };
      if (c.cpu) add('container_cpu_usage_seconds_total', cl, c.cpu.usageCoreNanoSeconds / 1e9, c.cpu.time);
      if (c.memory) add('container_memory_working_set_bytes', cl, c.memory.workingSetBytes, c.memory.time);
      add('container_start_time_seconds', cl, ms(c.startTime) / 1000, c.cpu?.time ?? c.memory?.time);
    }
    if (p.cpu) add('pod_cpu_usage_seconds_total', pl, p.cpu.usageCoreNanoSeconds / 1e9, p.cpu.time);
    if (p.memory) add('pod_memory_working_set_bytes', pl, p.memory.workingSetBytes, p.memory.time);
  }
  if (s.node.cpu) add('node_cpu_usage_seconds_total', {}, s.node.cpu.usageCoreNanoSeconds / 1e9, s.node.cpu.time);
  if (s.node.memory) add('node_memory_working_set_bytes', {}, s.node.memory.workingSetBytes, s.node.memory.time);
  add('resource_scrape_error', {}, scrapeError ? 1 : 0);
  let out = '';
  for (const [name, type, help] of families) {
    const lines = samples.get(name)!;
    if (!lines.length) continue;
    out += `# HELP ${name} [STABLE] ${help}\n# TYPE ${name} ${type}\n${lines.join('\n')}\n`;
  }
  return out;
}

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
  /** ms since the epoch; absent when the line carries none. */
  timestamp?: number;
}

/** The samples of a Prometheus text exposition (comments skipped; malformed lines throw). */
export function parseSamples(text: string): Sample[] {
  const out: Sample[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+(\S+)(?:\s+(-?\d+))?$/.exec(line);
    if (!m) throw new Error(`malformed metrics line: ${JSON.stringify(line.slice(0, 200))}`);
    const l: Record<string, string> = {};
    for (const lm of (m[3] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      l[lm[1]] = lm[2].replace(/\\(.)/g, (_s, c: string) => (c === 'n' ? '\n' : c));
    }
    out.push({ name: m[1], labels: l, value: Number(m[4]), ...(m[5] ? { timestamp: Number(m[5]) } : {}) });
  }
  return out;
}
