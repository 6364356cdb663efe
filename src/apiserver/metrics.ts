// Prometheus metrics of the API server, on a registry of its own so several servers in one
// process (tests) do not collide.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { CounterChildren, HistogramChildren } from './metric-children.js';

/** apiserver_request_duration_seconds' labels, as k8s.io/apiserver/pkg/endpoints/metrics. */
const requestLabels = ['verb', 'dry_run', 'group', 'version', 'resource', 'subresource', 'scope', 'component'];

export class APIMetrics {
  readonly registry = new Registry();
  readonly requests = new Counter({ name: 'apiserver_request_total', help: 'Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.', labelNames: [...requestLabels, 'code'], registers: [this.registry] });
  readonly latency = new Histogram({
    name: 'apiserver_request_duration_seconds', help: 'Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component (watches excluded).',
    labelNames: requestLabels, buckets: [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60],
    registers: [this.registry],
  });
  readonly responseSizes = new Histogram({
    name: 'apiserver_response_sizes', help: 'Response size distribution in bytes for each group, version, verb, resource, subresource, scope and component.',
    labelNames: requestLabels.filter((l) => l !== 'dry_run'), buckets: [1000, 10000, 100000, 1e6, 1e7, 1e8, 1e9, 1e10], registers: [this.registry],
  });
  // Admission, as k8s.io/apiserver/pkg/admission/metrics: the whole mutating or validating
  // step, each built-in plugin, each webhook; `type` is admit or validate.
  readonly admissionStep = new Histogram({
    name: 'apiserver_admission_step_admission_duration_seconds', help: 'Admission sub-step latency histogram in seconds, broken out for each operation and API resource and step type (validate or admit).',
    labelNames: ['type', 'operation', 'rejected'], buckets: [0.005, 0.025, 0.1, 0.5, 1.0, 2.5], registers: [this.registry],
  });
  readonly admissionController = new Histogram({
    name: 'apiserver_admission_controller_admission_duration_seconds', help: 'Admission controller latency histogram in seconds, identified by name and broken out for each operation and API resource and type (validate or admit).',
    labelNames: ['name', 'type', 'operation', 'rejected'], buckets: [0.005, 0.025, 0.1, 0.5, 1.0, 2.5], registers: [this.registry],
  });
  readonly admissionWebhook = new Histogram({
    name: 'apiserver_admission_webhook_admission_duration_seconds', help: 'Admission webhook latency histogram in seconds, identified by name and broken out for each operation and API resource and type (validate or admit).',
    labelNames: ['name', 'type', 'operation', 'rejected'], buckets: [0.005, 0.025, 0.1, 0.5, 1, 2.5, 10, 25], registers: [this.registry],
  });
  readonly policyCheck = new Histogram({
    name: 'apiserver_validating_admission_policy_check_duration_seconds', help: 'Validation admission latency for individual validation expressions in seconds, labeled by policy and further including binding and enforcement action taken.',
    labelNames: ['policy', 'policy_binding', 'enforcement_action', 'error_type'], buckets: [0.0000005, 0.001, 0.01, 0.1, 1.0], registers: [this.registry],
  });
  /** The store's calls, as etcd3's etcd_request_duration_seconds (also for SQLite): `type` is the resource of the key. */
  readonly storage = new Histogram({
    name: 'etcd_request_duration_seconds', help: 'Etcd request latency in seconds for each operation and object type.',
    labelNames: ['operation', 'type'], buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60],
    registers: [this.registry],
  });
  /** capstan's own: each stage of a request that asked for its trace (the Server-Timing names, webhooks and plugins folded into their step). */
  readonly stages = new Histogram({
    name: 'capstan_apiserver_request_stage_duration_seconds', help: 'Time spent in each stage of a request that asked for its trace (X-Capstan-Trace or --server-timing): authn, authz, decode, admission.mutating, admission.validating, validation, storage, encode, watch; by verb and resource.',
    labelNames: ['stage', 'verb', 'group', 'resource'], buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  /** capstan's own: connections by the protocol ALPN chose (h2, or http/1.1 also without ALPN). */
  readonly connections = new Counter({ name: 'capstan_apiserver_connections_total', help: 'TLS connections accepted, by the protocol they speak (h2 or http/1.1).', labelNames: ['protocol'], registers: [this.registry] });
  readonly watchers = new Counter({ name: 'apiserver_watch_requests_total', help: 'Watch requests started.', labelNames: ['group', 'resource'], registers: [this.registry] });
  readonly storageLists = new Counter({ name: 'apiserver_storage_list_total', help: 'Lists sent to storage, by resource.', labelNames: ['resource'], registers: [this.registry] });
  readonly transformations = new Counter({
    name: 'apiserver_storage_transformation_operations_total', help: 'Total number of transformations (encryption at rest) by resource and provider prefix.',
    labelNames: ['resource', 'transformation_type', 'transformer_prefix', 'status'], registers: [this.registry],
  });
  /** What every request observes, by a key of its labels (trace/report.ts). */
  readonly requestSeries = new CounterChildren(this.requests);
  readonly latencySeries = new HistogramChildren(this.latency);
  readonly responseSizeSeries = new HistogramChildren(this.responseSizes);
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
