// The EndpointSlice controller: for every Service with a selector, discovery.k8s.io/v1
// EndpointSlices listing the selected Pods, kept up to date with as few writes as possible.
import { APIError, isNotFound, resources, splitKey, type EventRecorder, type SharedInformer } from '../../client/index.js';
import { QueueController, type ControllerContext, type ReconcileResult } from '../framework.js';
import { desiredEndpoints, zoneLabel } from './desired.js';
import { controllerName, managedByLabel, ownedBy, planSlices, serviceNameLabel, type SlicePlan } from './plan.js';
import { managesEndpoints, selectorText, selectsPod, serviceAddressTypes, serviceSelector, type AddressType } from './pods.js';
import { SliceTracker } from './tracker.js';
import type { EndpointSlice, Node, Pod, Service } from '../../api/kinds.js';

export interface EndpointSliceOptions {
  /** `--max-endpoints-per-slice`: 1..1000, default 100. */
  maxEndpointsPerSlice?: number;
}

/** How soon to look again when the slice cache has not caught up with our own writes. */
const staleCacheRetryMs = 100;

/** A write refused because the namespace is going away: nothing to retry. */
export function namespaceTerminating(e: unknown): boolean {
  return e instanceof APIError && e.code === 403 && !!e.status?.details?.causes?.some((c) => c.reason === 'NamespaceTerminating');
}

export class EndpointSliceController extends QueueController {
  readonly maxEndpointsPerSlice: number;
  private services: SharedInformer<Service>;
  private pods: SharedInformer<Pod>;
  private slices: SharedInformer<EndpointSlice>;
  private nodes: SharedInformer<Node>;
  private tracker: SliceTracker;
  private recorder: EventRecorder;

  constructor(ctx: ControllerContext, opts: EndpointSliceOptions = {}) {
    super('endpointslice', ctx);
    const configured = ctx.config.maxEndpointsPerSlice;
    this.maxEndpointsPerSlice = Math.min(1000, Math.max(1, opts.maxEndpointsPerSlice ?? configured ?? 100));
    this.tracker = new SliceTracker(ctx.clock);
    this.recorder = ctx.recorder('endpoint-slice-controller');
    this.services = ctx.informers.informerFor(resources.services);
    this.pods = ctx.informers.informerFor(resources.pods);
    this.slices = ctx.informers.informerFor(resources.endpointslices);
    this.nodes = ctx.informers.informerFor(resources.nodes);

    this.services.addEventHandler({
      onAdd: (s) => this.enqueue(s),
      onUpdate: (_o, s) => this.enqueue(s),
      onDelete: (s) => this.enqueue(s),
    });
    this.pods.addEventHandler({
      onAdd: (p) => this.enqueueForPod(p),
      onUpdate: (o, p) => { this.enqueueForPod(o); this.enqueueForPod(p); },
      onDelete: (p) => this.enqueueForPod(p),
    });
    this.slices.addEventHandler({
      onAdd: (s) => this.sliceEvent(s, false),
      onUpdate: (_o, s) => this.sliceEvent(s, false),
      onDelete: (s) => this.sliceEvent(s, true),
    });
    this.nodes.addEventHandler({
      onUpdate: (o, n) => { if (o.metadata.labels?.[zoneLabel] !== n.metadata.labels?.[zoneLabel]) this.enqueueForNode(n.metadata.name as string); },
    });
  }

  private enqueueForPod(pod: Pod): void {
    for (const svc of this.services.lister.list(pod.metadata.namespace)) if (selectsPod(svc, pod)) this.enqueue(svc);
  }

  private enqueueForNode(node: string): void {
    for (const pod of this.pods.lister.list()) if (pod.spec?.nodeName === node) this.enqueueForPod(pod);
  }

  private sliceEvent(slice: EndpointSlice, gone: boolean): void {
    const labels = slice.metadata.labels ?? {};
    if (labels[managedByLabel] !== controllerName || !labels[serviceNameLabel]) return;
    const key = `${slice.metadata.namespace}/${labels[serviceNameLabel]}`;
    this.tracker.observed(key, slice, gone);
    this.enqueue(key);
  }

  async reconcile(key: string): Promise<ReconcileResult | void> {
    const { namespace, name } = splitKey(key);
    const ns = namespace as string;
    const cached = this.slices.lister.list(ns, `${serviceNameLabel}=${name},${managedByLabel}=${controllerName}`);
    if (this.tracker.stale(key, cached)) return { requeueAfterMs: staleCacheRetryMs };
    const svc = this.services.lister.get(ns, name);
    if (!svc || !managesEndpoints(svc)) {
      // The Service is gone (or no longer selects Pods): its slices go too, whether or not
      // the garbage collector is running.
      await this.apply(key, { create: [], update: [], delete: [...cached] });
      if (!svc) this.tracker.forget(key);
      return;
    }
    const pods = this.pods.lister.list(ns, selectorText(serviceSelector(svc)!));
    const types = serviceAddressTypes(svc);
    const plan: SlicePlan = { create: [], update: [], delete: [] };
    for (const s of cached) if (!ownedBy(s, svc) || !types.includes(s.addressType as AddressType)) plan.delete.push(s);
    const zoneOf = (node: string) => this.nodes.lister.get(undefined, node)?.metadata.labels?.[zoneLabel];
    for (const type of types) {
      const existing = cached.filter((s) => ownedBy(s, svc) && s.addressType === type);
      const p = planSlices(svc, type as AddressType, existing, desiredEndpoints(svc, pods, type, zoneOf), this.maxEndpointsPerSlice);
      plan.create.push(...p.create);
      plan.update.push(...p.update);
      plan.delete.push(...p.delete);
    }
    try {
      await this.apply(key, plan);
    } catch (e) {
      if (namespaceTerminating(e)) return;
      this.recorder.event(svc, 'Warning', 'FailedToUpdateEndpointSlices', `Error updating Endpoint Slices for Service ${key}: ${(e as Error).message}`);
      throw e;
    }
  }

  /** New endpoints first, removals last, so a rollout never shows a gap. */
  private async apply(key: string, plan: SlicePlan): Promise<void> {
    const api = this.ctx.clients.resource(resources.endpointslices);
    for (const s of plan.create) this.tracker.wrote(key, await api.create(s.metadata.namespace, s));
    for (const s of plan.update) this.tracker.wrote(key, await api.update(s));
    for (const s of plan.delete) {
      try {
        await api.delete(s.metadata.namespace, s.metadata.name as string, { preconditions: { uid: s.metadata.uid } });
      } catch (e) {
        if (!isNotFound(e)) throw e;
      }
      this.tracker.deleted(key, s.metadata.name as string);
    }
    if (plan.create.length || plan.update.length || plan.delete.length) {
      this.log.debug('endpoint slices written', { key, created: plan.create.length, updated: plan.update.length, deleted: plan.delete.length });
    }
  }
}
