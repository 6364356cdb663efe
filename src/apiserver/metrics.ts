// Prometheus metrics of the API server, on a registry of its own so several servers in one
// process (tests) do not collide.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export class APIMetrics {
  readonly registry = new Registry();
  readonly requests = new Counter({ name: 'apiserver_request_total', help: 'Requests by verb, group, resource and HTTP code.', labelNames: ['verb', 'group', 'resource', 'subresource', 'code'], registers: [this.registry] });
  readonly latency = new Histogram({
    name: 'apiserver_request_duration_seconds', help: 'Request latency by verb and resource (watches excluded).',
    labelNames: ['verb', 'group', 'resource'], buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  readonly watchers = new Counter({ name: 'apiserver_watch_requests_total', help: 'Watch requests started.', labelNames: ['group', 'resource'], registers: [this.registry] });
  readonly storageLists = new Counter({ name: 'apiserver_storage_list_total', help: 'Lists sent to storage, by resource.', labelNames: ['resource'], registers: [this.registry] });
  readonly transformations = new Counter({
    name: 'apiserver_storage_transformation_operations_total', help: 'Total number of transformations (encryption at rest) by resource and provider prefix.',
    labelNames: ['resource', 'transformation_type', 'transformer_prefix', 'status'], registers: [this.registry],
  });
  /** The server points this at its watch cache. */
  waitingReads: () => number = () => 0;
  readonly cacheWaiting = new Gauge({
    name: 'apiserver_watch_cache_waiting_reads', help: 'Reads waiting for the watch cache to reach their resourceVersion.', registers: [this.registry],
    collect: () => { this.cacheWaiting.set(this.waitingReads()); },
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }
}
