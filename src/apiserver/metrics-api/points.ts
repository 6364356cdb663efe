// What a scrape of one kubelet's /metrics/resource yields, and metrics-server's arithmetic on
// two of them: CPU as the rate of the cumulative counter between two scrapes (or, for a
// container first seen, since its start), memory as the latest working set.
import { parseSamples } from '../../api/stats/resource-metrics.js';

export interface Point {
  /** Cumulative CPU in core-seconds. */
  cpu: number;
  /** Working set in bytes. */
  memory: number;
  /** ms since the epoch, when the kubelet measured it. */
  at: number;
  /** Container start, ms since the epoch (0 when unknown). */
  start: number;
}

export interface NodeScrape {
  node?: Point;
  /** `namespace/pod` → container name → point. */
  pods: Map<string, Map<string, Point>>;
}

export function parseScrape(text: string, scrapedAt: number): NodeScrape {
  const out: NodeScrape = { pods: new Map() };
  const node: Partial<Point> = {};
  const container = (l: Record<string, string>): Partial<Point> => {
    const key = `${l.namespace}/${l.pod}`;
    let pod = out.pods.get(key);
    if (!pod) out.pods.set(key, pod = new Map());
    let p = pod.get(l.container);
    if (!p) pod.set(l.container, p = { cpu: NaN, memory: NaN, at: 0, start: 0 });
    return p;
  };
  for (const s of parseSamples(text)) {
    const at = s.timestamp ?? scrapedAt;
    switch (s.name) {
      case 'node_cpu_usage_seconds_total': Object.assign(node, { cpu: s.value, at }); break;
      case 'node_memory_working_set_bytes': node.memory = s.value; node.at ??= at; break;
      case 'container_cpu_usage_seconds_total': Object.assign(container(s.labels), { cpu: s.value, at }); break;
      case 'container_memory_working_set_bytes': container(s.labels).memory = s.value; break;
      case 'container_start_time_seconds': container(s.labels).start = s.value * 1000; break;
    }
  }
  if (node.cpu !== undefined && node.memory !== undefined) out.node = { cpu: node.cpu, memory: node.memory, at: node.at ?? scrapedAt, start: 0 };
  for (const [key, pod] of out.pods) {
    for (const [name, p] of pod) if (!Number.isFinite(p.cpu) || !Number.isFinite(p.memory) || !p.at) pod.delete(name);
    if (!pod.size) out.pods.delete(key);
  }
  return out;
}

export interface Usage {
  /** nanocores */
  cpu: number;
  /** bytes */
  memory: number;
  /** When measured (ms) and over how long the CPU rate was taken (ms). */
  at: number;
  windowMs: number;
}

/** Usage from two points of one object; null when no rate can be taken yet (metrics-server skips it). */
export function usageBetween(prev: Point | undefined, cur: Point): Usage | null {
  let from = prev;
  // A restarted container (new start time) or one first seen: its counter began at its start.
  if (cur.start && (!from || from.start !== cur.start || from.at < cur.start)) from = { cpu: 0, memory: 0, at: cur.start, start: cur.start };
  if (!from || cur.at <= from.at || cur.cpu < from.cpu) return null;
  return { cpu: Math.round(((cur.cpu - from.cpu) / ((cur.at - from.at) / 1000)) * 1e9), memory: cur.memory, at: cur.at, windowMs: cur.at - from.at };
}

/** A CPU quantity from nanocores, as resource.Quantity writes it ("250m", "1234567n"). */
export function cpuQuantity(nanocores: number): string {
  const n = Math.max(0, Math.round(nanocores));
  if (n === 0) return '0';
  if (n % 1e9 === 0) return String(n / 1e9);
  if (n % 1e6 === 0) return `${n / 1e6}m`;
  if (n % 1e3 === 0) return `${n / 1e3}u`;
  return `${n}n`;
}

/** A memory quantity from bytes, in the binary suffixes resource.Quantity uses ("12Mi", "5000Ki"). */
export function memoryQuantity(bytes: number): string {
  let n = Math.max(0, Math.round(bytes));
  if (n === 0) return '0';
  for (const suffix of ['', 'Ki', 'Mi', 'Gi', 'Ti']) {
    if (n % 1024 !== 0 || suffix === 'Ti') return `${n}${suffix}`;
    n /= 1024;
  }
  return String(n);
}

/** A metav1.Duration as Go prints it ("15.002s", "1m0.5s"). */
export function goDuration(ms: number): string {
  const s = ms / 1000;
  if (s < 60) return `${+s.toFixed(9)}s`;
  const m = Math.floor(s / 60);
  return `${m}m${+(s - m * 60).toFixed(9)}s`;
}
