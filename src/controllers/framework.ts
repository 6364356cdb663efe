// What every controller shares: a context (clients, shared informers, events, clock, config)
// and a queue-driven run loop that owns requeue policy, so a controller is its event
// handlers (which only enqueue keys) and one level-based `reconcile(key)`.
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { ObjectBase } from '../api/object.js';
import type { Logger } from '../log/index.js';
import { objectKey, type ClientsetAPI, type Clock, type EventRecorder, type SharedInformerFactory } from '../client/index.js';
import { WorkQueue } from '../client/workqueue.js';
import { metricOn } from '../log/metrics.js';
import { Counter, Histogram, type Registry } from 'prom-client';

export interface ControllerConfig {
  /** Pod network of the cluster, split into per-node blocks by node IPAM. */
  clusterCIDR: string;
  /** Prefix length of each node's block. */
  nodeCIDRMaskSize: number;
  /** How long a node may miss heartbeats before it is NotReady/Unknown. */
  nodeMonitorGracePeriodMs: number;
  /** Default toleration time before pods on an unreachable/not-ready node are evicted. */
  podEvictionTimeoutMs: number;
  /** Workers per controller. */
  workers: number;
  /** Endpoints per EndpointSlice (Kubernetes' --max-endpoints-per-slice). */
  maxEndpointsPerSlice: number;
  /** Terminated pods kept before pod GC deletes the oldest (--terminated-pod-gc-threshold; ≤ 0: off). */
  terminatedPodGCThreshold: number;
  /** How long pod GC waits after it notices a pod's Node missing before it checks with a GET. */
  podGCQuarantineMs: number;
  /** The CA the CSR signer issues certificates with (--cluster-signing-cert-file/--cluster-signing-key-file). */
  clusterSigningCertFile?: string;
  clusterSigningKeyFile?: string;
  /** The longest certificate the CSR signer issues (--cluster-signing-duration). */
  clusterSigningDurationMs: number;
  /** --service-account-private-key-file's PEM: the tokens controller signs legacy tokens with it (none: it idles). */
  serviceAccountPrivateKeyPem?: string;
  /** --horizontal-pod-autoscaler-sync-period (15 s) and --horizontal-pod-autoscaler-downscale-stabilization (5 min). */
  horizontalPodAutoscalerSyncPeriodMs?: number;
  horizontalPodAutoscalerDownscaleStabilizationMs?: number;
  /** --root-ca-file's PEM (default: the kubeconfig's CA): ca.crt of ServiceAccount token Secrets and of every namespace's kube-root-ca.crt. */
  rootCAPem?: string;
}

export const defaultControllerConfig: ControllerConfig = {
  clusterCIDR: '10.244.0.0/16',
  nodeCIDRMaskSize: 24,
  nodeMonitorGracePeriodMs: 40_000,
  podEvictionTimeoutMs: 300_000,
  workers: 5,
  maxEndpointsPerSlice: 100,
  terminatedPodGCThreshold: 12_500,
  podGCQuarantineMs: 40_000,
  clusterSigningDurationMs: 365 * 24 * 3600_000,
};

export interface ControllerContext {
  clients: ClientsetAPI;
  informers: SharedInformerFactory;
  /** An event recorder reporting as `component` (e.g. "deployment-controller"). */
  recorder(component: string): EventRecorder;
  clock: Clock;
  log: Logger;
  config: ControllerConfig;
  metrics?: Registry;
}

export interface Controller {
  readonly name: string;
  /** Runs `workers` reconcile loops until stop(). Informers must be started and synced. */
  run(workers: number): Promise<void>;
  stop(): Promise<void>;
}

export interface ReconcileResult {
  /** Reconcile again after this long even without events (e.g. minReadySeconds, tolerations). */
  requeueAfterMs?: number;
}

// On the registry each context brings (a new leadership term may bring the same one again).
function controllerMetrics(registry: Registry): { reconciles: Counter; duration: Histogram } {
  return {
    reconciles: metricOn(registry, 'capstan_controller_reconcile_total', () => new Counter({ name: 'capstan_controller_reconcile_total', help: 'Reconciles by controller and result.', labelNames: ['controller', 'result'], registers: [registry] })),
    duration: metricOn(registry, 'capstan_controller_reconcile_duration_seconds', () => new Histogram({ name: 'capstan_controller_reconcile_duration_seconds', help: 'Reconcile latency by controller.', labelNames: ['controller'], registers: [registry], buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5] })),
  };
}

// The logger of the reconcile running in this async context, as controller-runtime hands one
// through ctx: every line a reconcile logs carries its controller, key and reconcileID.
const reconcileScope = new AsyncLocalStorage<{ controller: QueueController; log: Logger }>();

/**
 * A controller driven by a work queue of object keys. Subclasses register informer handlers
 * that call `enqueue`, and implement `reconcile(key)`, which must re-read state from listers,
 * be idempotent, and throw to be retried with backoff. Inside `reconcile` (and whatever it
 * awaits), `this.log` carries the key and a reconcileID; outside, the controller name only.
 */
export abstract class QueueController implements Controller {
  readonly queue: WorkQueue;
  private readonly baseLog: Logger;
  private readonly metrics?: { reconciles: Counter; duration: Histogram };
  private workers: Promise<void>[] = [];

  constructor(readonly name: string, protected ctx: ControllerContext) {
    this.queue = new WorkQueue(ctx.clock, undefined, ctx.metrics && { name, registry: ctx.metrics });
    this.baseLog = ctx.log.with({ controller: name });
    this.metrics = ctx.metrics && controllerMetrics(ctx.metrics);
  }

  protected get log(): Logger {
    const scope = reconcileScope.getStore();
    return scope?.controller === this ? scope.log : this.baseLog;
  }

  abstract reconcile(key: string): Promise<ReconcileResult | void>;

  enqueue(objOrKey: ObjectBase | string): void {
    this.queue.add(typeof objOrKey === 'string' ? objOrKey : objectKey(objOrKey));
  }

  enqueueAfter(objOrKey: ObjectBase | string, ms: number): void {
    this.queue.addAfter(typeof objOrKey === 'string' ? objOrKey : objectKey(objOrKey), ms);
  }

  /** Processes one key: reconcile, then forget (success), requeue-after, or retry with backoff. */
  async processNext(): Promise<boolean> {
    const key = await this.queue.get();
    if (key === undefined) return false;
    const m = this.metrics;
    const started = process.hrtime.bigint();
    const log = this.baseLog.with({ key, reconcileID: randomUUID() });
    try {
      const result = await reconcileScope.run({ controller: this, log }, () => this.reconcile(key));
      this.queue.forget(key);
      if (result?.requeueAfterMs !== undefined) this.queue.addAfter(key, result.requeueAfterMs);
      m?.reconciles.inc({ controller: this.name, result: 'success' });
    } catch (e) {
      m?.reconciles.inc({ controller: this.name, result: 'error' });
      log.warn('reconcile failed, will retry', { retries: this.queue.rateLimiter.retries(key), error: (e as Error).message });
      this.queue.addRateLimited(key);
    } finally {
      m?.duration.observe({ controller: this.name }, Number(process.hrtime.bigint() - started) / 1e9);
      this.queue.done(key);
    }
    return true;
  }

  async run(workers: number): Promise<void> {
    const loop = async () => { while (await this.processNext()) { /* next key */ } };
    this.workers = Array.from({ length: workers }, loop);
    await Promise.all(this.workers);
  }

  async stop(): Promise<void> {
    await this.queue.shutDown();
    await Promise.all(this.workers);
  }
}
