// The work queue's metrics under upstream's names (k8s.io/client-go/util/workqueue and
// component-base's workqueue provider), labelled by queue `name`. Counters and histograms are
// fed as the queue works; the gauges are read from the live queues when /metrics is scraped.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { metricOn } from '../log/metrics.js';
import type { Clock } from './clock.js';

/** What a queue tells its gauges at scrape time. */
export interface QueueGauges {
  depth(): number;
  /** Seconds of work in flight, summed over keys being processed. */
  unfinishedSeconds(): number;
  /** Seconds the longest-running key has been processed. */
  longestRunningSeconds(): number;
}

interface Families {
  adds: Counter;
  retries: Counter;
  queueDuration: Histogram;
  workDuration: Histogram;
  gauges: Gauge[];
  /** Live queues by name, for the gauges' collect; a newer queue of one name replaces the older. */
  live: Map<string, QueueGauges>;
}

const families = new WeakMap<Registry, Families>();
// Upstream's buckets: 10ns to 10s, ×10.
const buckets = [1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1, 10];

function gauge(registry: Registry, name: string, help: string, live: Map<string, QueueGauges>, read: (q: QueueGauges) => number): Gauge {
  return metricOn(registry, name, () => new Gauge({
    name, help, labelNames: ['name'], registers: [registry],
    collect() {
      for (const [queue, q] of live) this.set({ name: queue }, read(q));
    },
  }));
}

function familiesOn(registry: Registry): Families {
  let f = families.get(registry);
  if (f) return f;
  const live = new Map<string, QueueGauges>();
  const counter = (name: string, help: string) => metricOn(registry, name, () => new Counter({ name, help, labelNames: ['name'], registers: [registry] }));
  const histogram = (name: string, help: string) => metricOn(registry, name, () => new Histogram({ name, help, labelNames: ['name'], buckets, registers: [registry] }));
  f = {
    adds: counter('workqueue_adds_total', 'Total number of adds handled by workqueue'),
    retries: counter('workqueue_retries_total', 'Total number of retries handled by workqueue'),
    queueDuration: histogram('workqueue_queue_duration_seconds', 'How long in seconds an item stays in workqueue before being requested.'),
    workDuration: histogram('workqueue_work_duration_seconds', 'How long in seconds processing an item from workqueue takes.'),
    gauges: [
      gauge(registry, 'workqueue_depth', 'Current depth of workqueue', live, (q) => q.depth()),
      gauge(registry, 'workqueue_unfinished_work_seconds', 'How many seconds of work has done that is in progress and hasn\'t been observed by work_duration. Large values indicate stuck threads. One can deduce the number of stuck threads by observing the rate at which this increases.', live, (q) => q.unfinishedSeconds()),
      gauge(registry, 'workqueue_longest_running_processor_seconds', 'How many seconds has the longest running processor for workqueue been running.', live, (q) => q.longestRunningSeconds()),
    ],
    live,
  };
  families.set(registry, f);
  return f;
}

/** One queue's view of the metrics: timestamps per key, fed by the queue's add/get/done. */
export class QueueMetrics implements QueueGauges {
  private f: Families;
  private addedAt = new Map<string, number>();
  private startedAt = new Map<string, number>();

  constructor(readonly name: string, registry: Registry, private clock: Clock, readonly depth: () => number) {
    this.f = familiesOn(registry);
    this.f.live.set(name, this);
  }

  /** A key entered the dirty set. */
  added(key: string): void {
    this.f.adds.inc({ name: this.name });
    if (!this.addedAt.has(key)) this.addedAt.set(key, this.clock.now());
  }

  /** A key was handed to a worker. */
  started(key: string): void {
    const at = this.addedAt.get(key);
    if (at !== undefined) this.f.queueDuration.observe({ name: this.name }, (this.clock.now() - at) / 1000);
    this.addedAt.delete(key);
    this.startedAt.set(key, this.clock.now());
  }

  /** A worker finished a key. */
  finished(key: string): void {
    const at = this.startedAt.get(key);
    if (at !== undefined) this.f.workDuration.observe({ name: this.name }, (this.clock.now() - at) / 1000);
    this.startedAt.delete(key);
  }

  retried(): void {
    this.f.retries.inc({ name: this.name });
  }

  unfinishedSeconds(): number {
    const now = this.clock.now();
    let total = 0;
    for (const at of this.startedAt.values()) total += now - at;
    return total / 1000;
  }

  longestRunningSeconds(): number {
    const now = this.clock.now();
    let longest = 0;
    for (const at of this.startedAt.values()) longest = Math.max(longest, now - at);
    return longest / 1000;
  }

  /** The queue shut down: its gauges read zero until a newer queue takes the name. */
  close(): void {
    if (this.f.live.get(this.name) !== this) return;
    this.f.live.delete(this.name);
    for (const g of this.f.gauges) g.set({ name: this.name }, 0);
  }
}
