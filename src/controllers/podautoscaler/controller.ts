// The horizontal pod autoscaler controller, after upstream's pkg/controller/podautoscaler:
// every sync period each HPA reads its target's scale subresource, asks metrics.k8s.io for
// its pods' usage, computes the replicas each Resource metric proposes (the largest wins),
// stabilises and limits that (behavior.ts), writes the scale when it changed, and records
// status (currentReplicas, desiredReplicas, currentMetrics, lastScaleTime) and the
// AbleToScale, ScalingActive and ScalingLimited conditions with upstream's reasons.
import type { HorizontalPodAutoscaler, Pod } from '../../api/kinds.js';
import type { HorizontalPodAutoscalerCondition, MetricSpec, MetricStatus, MetricValueStatus } from 'kubernetes-types/autoscaling/v2.js';
import { formatMilli } from '../../api/core/pod-resources.js';
import { milliValue } from '../../util/quantity.js';
import { isNotFound, resources, type EventRecorder, type ResourceAPI, type ResourceType, type SharedInformer } from '../../client/index.js';
import type { ObjectBase } from '../../api/object.js';
import { QueueController, type ControllerContext, type ReconcileResult } from '../framework.js';
import { ScalingHistory, type Behavior } from './behavior.js';
import { setCondition } from './conditions.js';
import { resourceMetrics } from './metrics-client.js';
import { rawResourceReplicas, resourceReplicas, type ReplicaResult } from './replica-calculator.js';

export const SYNC_PERIOD_MS = 15_000;

interface Scale { metadata: { name?: string; namespace?: string; resourceVersion?: string }; spec?: { replicas?: number }; status?: { replicas?: number; selector?: string } }

const targets: Record<string, ResourceType<ObjectBase>> = {
  'apps/Deployment': resources.deployments, 'apps/ReplicaSet': resources.replicasets, 'apps/StatefulSet': resources.statefulsets,
};

export interface HPAOptions {
  syncPeriodMs?: number;
  downscaleStabilizationMs?: number;
}

export class HorizontalPodAutoscalerController extends QueueController {
  private readonly hpaInformer: SharedInformer<HorizontalPodAutoscaler>;
  private readonly podInformer: SharedInformer<Pod>;
  private readonly hpas: ResourceAPI<HorizontalPodAutoscaler>;
  private readonly recorder: EventRecorder;
  readonly history: ScalingHistory;
  private readonly syncPeriodMs: number;

  constructor(ctx: ControllerContext, opts: HPAOptions = {}) {
    super('horizontal-pod-autoscaler', ctx);
    this.syncPeriodMs = opts.syncPeriodMs ?? SYNC_PERIOD_MS;
    this.history = new ScalingHistory(() => ctx.clock.now(), opts.downscaleStabilizationMs);
    this.hpas = ctx.clients.resource(resources.horizontalpodautoscalers);
    this.hpaInformer = ctx.informers.informerFor(resources.horizontalpodautoscalers);
    this.podInformer = ctx.informers.informerFor(resources.pods);
    this.recorder = ctx.recorder('horizontal-pod-autoscaler');
    this.hpaInformer.addEventHandler({
      onAdd: (h) => this.enqueue(h),
      // Status writes come back as updates: only a spec change is worth an early sync.
      onUpdate: (o, h) => { if (o.metadata.generation !== h.metadata.generation) this.enqueue(h); },
      onDelete: (h) => this.history.forget(`${h.metadata.namespace}/${h.metadata.name}`),
    });
  }

  async reconcile(key: string): Promise<ReconcileResult | void> {
    const cached = this.hpaInformer.lister.byKey(key);
    if (!cached) {
      this.history.forget(key);
      return;
    }
    await this.reconcileAutoscaler(key, structuredClone(cached));
    return { requeueAfterMs: this.syncPeriodMs };
  }

  private async reconcileAutoscaler(key: string, hpa: HorizontalPodAutoscaler): Promise<void> {
    const now = this.ctx.clock.now();
    const ns = hpa.metadata.namespace!;
    const spec = hpa.spec!;
    const event = (type: 'Normal' | 'Warning', reason: string, message: string) =>
      this.recorder.event({ ...hpa, apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler' }, type, reason, message);
    let conditions: HorizontalPodAutoscalerCondition[] = [...(hpa.status?.conditions ?? [])];
    const cond = (type: 'AbleToScale' | 'ScalingActive' | 'ScalingLimited', status: 'True' | 'False', reason: string, message: string) => {
      conditions = setCondition(conditions, type, status, reason, message, now);
    };
    const ref = spec.scaleTargetRef;
    const group = (ref.apiVersion ?? '').includes('/') ? ref.apiVersion!.split('/')[0] : '';
    const type = targets[`${group}/${ref.kind}`];
    let scale: Scale;
    try {
      if (!type) throw new Error(`no scale subresource known for ${ref.apiVersion ?? ''} ${ref.kind}`);
      scale = await this.ctx.clients.resource(type).getSubresource(ns, ref.name, 'scale') as Scale;
    } catch (e) {
      const msg = (e as Error).message;
      cond('AbleToScale', 'False', 'FailedGetScale', `the HPA controller was unable to get the target's current scale: ${msg}`);
      event('Warning', 'FailedGetScale', msg);
      await this.writeStatus(hpa, { conditions, currentReplicas: hpa.status?.currentReplicas ?? 0, desiredReplicas: hpa.status?.desiredReplicas ?? 0, currentMetrics: hpa.status?.currentMetrics });
      if (type && isNotFound(e)) return;
      throw e;
    }
    cond('AbleToScale', 'True', 'SucceededGetScale', 'the HPA controller was able to get the target\'s current scale');
    const current = scale.spec?.replicas ?? 0;
    const min = spec.minReplicas ?? 1, max = spec.maxReplicas;
    let desired = 0, rescaleReason = '', rescale = false;
    let statuses: MetricStatus[] | undefined = hpa.status?.currentMetrics;
    if (current === 0 && min !== 0) {
      cond('ScalingActive', 'False', 'ScalingDisabled', 'scaling is disabled since the replica count of the target is zero');
    } else if (current > max) {
      rescaleReason = 'Current number of replicas above Spec.MaxReplicas';
      desired = max;
    } else if (current < min) {
      rescaleReason = 'Current number of replicas below Spec.MinReplicas';
      desired = min;
    } else {
      const computed = await this.computeReplicas(hpa, scale, current, now, cond, event);
      statuses = computed.statuses;
      if (computed.replicas === -1) {
        await this.writeStatus(hpa, { conditions, currentReplicas: current, desiredReplicas: hpa.status?.desiredReplicas ?? 0, currentMetrics: statuses });
        event('Warning', 'FailedComputeMetricsReplicas', `invalid metrics (${computed.invalid} invalid out of ${spec.metrics?.length ?? 0}), first error is: ${computed.error}`);
        throw new Error(`failed to compute desired number of replicas based on listed metrics for ${ref.kind}/${ns}/${ref.name}: ${computed.error}`);
      }
      desired = computed.replicas;
      if (desired > current) rescaleReason = `${computed.metric} above target`;
      if (desired < current) rescaleReason = 'All metrics below target';
      const limited = spec.behavior
        ? this.history.normalizeWithBehavior(key, spec.behavior as Behavior, current, desired, min, max)
        : this.history.normalize(key, current, desired, min, max);
      cond('AbleToScale', 'True', limited.ableReason, limited.ableMessage);
      cond('ScalingLimited', limited.limited ? 'True' : 'False', limited.limitReason, limited.limitMessage);
      desired = limited.replicas;
    }
    rescale = (current !== 0 || min === 0) && desired !== current;
    if (rescale) {
      try {
        await this.ctx.clients.resource(type).update({ ...scale, apiVersion: 'autoscaling/v1', kind: 'Scale', spec: { replicas: desired } } as unknown as ObjectBase, 'scale');
      } catch (e) {
        const msg = (e as Error).message;
        cond('AbleToScale', 'False', 'FailedUpdateScale', `the HPA controller was unable to update the target scale: ${msg}`);
        event('Warning', 'FailedRescale', `New size: ${desired}; reason: ${rescaleReason}; error: ${msg}`);
        await this.writeStatus(hpa, { conditions, currentReplicas: current, desiredReplicas: hpa.status?.desiredReplicas ?? 0, currentMetrics: statuses });
        throw e;
      }
      cond('AbleToScale', 'True', 'SucceededRescale', `the HPA controller was able to update the target scale to ${desired}`);
      event('Normal', 'SuccessfulRescale', `New size: ${desired}; reason: ${rescaleReason}`);
      this.history.recordScale(key, spec.behavior as Behavior | undefined, current, desired);
      this.log.info('rescaled', { target: `${ref.kind}/${ref.name}`, from: current, to: desired, reason: rescaleReason });
    } else {
      desired = current === 0 && min !== 0 ? 0 : current;
    }
    await this.writeStatus(hpa, {
      conditions, currentReplicas: current, desiredReplicas: desired, currentMetrics: statuses,
      lastScaleTime: rescale ? new Date(now).toISOString().replace(/\.\d+Z$/, 'Z') : hpa.status?.lastScaleTime,
    });
  }

  /** computeReplicasForMetrics: the largest proposal of the valid metrics, or -1 when none is. */
  private async computeReplicas(hpa: HorizontalPodAutoscaler, scale: Scale, current: number, now: number,
    cond: (t: 'ScalingActive', s: 'True' | 'False', r: string, m: string) => void,
    event: (type: 'Normal' | 'Warning', reason: string, message: string) => void,
  ): Promise<{ replicas: number; metric: string; statuses: MetricStatus[]; invalid: number; error?: string }> {
    const specs = hpa.spec?.metrics ?? [];
    const selector = scale.status?.selector ?? '';
    const statuses: MetricStatus[] = [];
    let replicas = -1, metric = '', invalid = 0, firstError: string | undefined;
    if (!selector) {
      const msg = 'selector is required';
      cond('ScalingActive', 'False', 'InvalidSelector', 'the HPA target\'s scale is missing a selector');
      event('Warning', 'SelectorRequired', msg);
      return { replicas: -1, metric, statuses, invalid: specs.length, error: msg };
    }
    const pods = this.podInformer.lister.list(hpa.metadata.namespace, selector);
    for (const [i, m] of specs.entries()) {
      try {
        const r = await this.proposal(m, hpa.metadata.namespace!, selector, pods, current, now);
        statuses[i] = r.status;
        if (r.result.replicas > replicas) {
          replicas = r.result.replicas;
          metric = r.name;
        }
      } catch (e) {
        const msg = (e as Error).message;
        invalid++;
        firstError ??= msg;
        const reason = `FailedGet${m.type}Metric`;
        cond('ScalingActive', 'False', reason, `the HPA was unable to compute the replica count: ${msg}`);
        event('Warning', reason, msg);
        statuses[i] = { type: m.type } as MetricStatus;
      }
    }
    if (invalid >= specs.length) return { replicas: -1, metric, statuses: statuses.filter(Boolean), invalid, error: firstError };
    cond('ScalingActive', 'True', 'ValidMetricFound', `the HPA was able to successfully calculate a replica count from ${metric}`);
    return { replicas, metric, statuses, invalid, error: firstError };
  }

  private async proposal(m: MetricSpec, ns: string, selector: string, pods: Pod[], current: number, now: number): Promise<{ result: ReplicaResult; status: MetricStatus; name: string }> {
    const src = m.type === 'Resource' ? m.resource : m.type === 'ContainerResource' ? m.containerResource : undefined;
    if (!src) throw new Error(`unsupported metric source type "${m.type}": capstan serves resource metrics only (metrics.k8s.io)`);
    const container = m.type === 'ContainerResource' ? m.containerResource!.container : undefined;
    const metrics = await resourceMetrics(this.ctx.clients, src.name, ns, selector, container);
    const bytes = src.name !== 'cpu';
    const ofWhat = container ? `${src.name} container resource` : `${src.name} resource`;
    if (src.target.averageValue != null) {
      const result = rawResourceReplicas({ currentReplicas: current, targetAverage: milliValue(src.target.averageValue), resource: src.name, pods, metrics, now });
      const current_ = { averageValue: formatMilli(result.rawAverage, bytes) };
      return { result, name: ofWhat, status: statusFor(m.type, src.name, container, current_) };
    }
    if (src.target.averageUtilization == null) throw new Error(`invalid resource metric source: neither a utilization target nor a value target was set`);
    const result = resourceReplicas({ currentReplicas: current, targetUtilization: src.target.averageUtilization, resource: src.name, container, pods, metrics, now });
    const current_ = { averageUtilization: result.utilization, averageValue: formatMilli(result.rawAverage, bytes) };
    return { result, name: `${ofWhat} utilization (percentage of request)`, status: statusFor(m.type, src.name, container, current_) };
  }

  private async writeStatus(hpa: HorizontalPodAutoscaler, status: NonNullable<HorizontalPodAutoscaler['status']>): Promise<void> {
    const next = { ...status, observedGeneration: hpa.metadata.generation };
    if (!next.currentMetrics?.length) delete next.currentMetrics;
    if (!next.lastScaleTime) delete next.lastScaleTime;
    if (JSON.stringify(next) === JSON.stringify(hpa.status)) return;
    try {
      await this.hpas.updateStatus({ ...hpa, status: next });
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
  }
}

function statusFor(type: string, name: string, container: string | undefined, current: MetricValueStatus): MetricStatus {
  return type === 'ContainerResource'
    ? { type: 'ContainerResource', containerResource: { name, container: container!, current } }
    : { type: 'Resource', resource: { name, current } };
}
