// The Endpoints controller: one core/v1 Endpoints object per Service with a selector, named
// like the Service, for clients that predate EndpointSlices.
import { isAlreadyExists, isNotFound, resources, splitKey, type EventRecorder, type SharedInformer } from '../../client/index.js';
import { QueueController, type ControllerContext, type ReconcileResult } from '../framework.js';
import { canonical, headlessLabel, managesEndpoints, namespaceTerminating, selectorText, selectsPod, serviceSelector } from '../endpointslice/index.js';
import { desiredSubsets, overCapacityAnnotation } from './subsets.js';
import type { Endpoints, Pod, Service } from '../../api/kinds.js';

/** Endpoints used as leader-election locks by old components; never ours to delete. */
const leaderAnnotation = 'control-plane.alpha.kubernetes.io/leader';

/** The API server keeps these itself. */
const apiServerManaged = (key: string) => key === 'default/kubernetes';

function endpointsLabels(svc: Service): Record<string, string> {
  const labels: Record<string, string> = { ...svc.metadata.labels };
  delete labels[headlessLabel];
  if (svc.spec?.clusterIP === 'None') labels[headlessLabel] = '';
  return labels;
}

export class EndpointsController extends QueueController {
  private services: SharedInformer<Service>;
  private pods: SharedInformer<Pod>;
  private endpoints: SharedInformer<Endpoints>;
  private recorder: EventRecorder;

  constructor(ctx: ControllerContext) {
    super('endpoints', ctx);
    this.recorder = ctx.recorder('endpoint-controller');
    this.services = ctx.informers.informerFor(resources.services);
    this.pods = ctx.informers.informerFor(resources.pods);
    this.endpoints = ctx.informers.informerFor(resources.endpoints);
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
    this.endpoints.addEventHandler({
      // Someone else changed or removed an Endpoints object a Service of ours owns: restore it.
      onUpdate: (_o, ep) => { const svc = this.services.lister.get(ep.metadata.namespace, ep.metadata.name as string); if (svc && managesEndpoints(svc)) this.enqueue(ep); },
      onDelete: (ep) => this.enqueue(ep),
    });
  }

  private enqueueForPod(pod: Pod): void {
    for (const svc of this.services.lister.list(pod.metadata.namespace)) if (selectsPod(svc, pod)) this.enqueue(svc);
  }

  /** Like Kubernetes at startup: look once at every Endpoints object, so those left behind by deleted Services go. */
  override run(workers: number): Promise<void> {
    for (const ep of this.endpoints.lister.list()) if (!ep.metadata.annotations?.[leaderAnnotation]) this.enqueue(ep);
    return super.run(workers);
  }

  async reconcile(key: string): Promise<ReconcileResult | void> {
    if (apiServerManaged(key)) return;
    const { namespace, name } = splitKey(key);
    const ns = namespace as string;
    const api = this.ctx.clients.resource(resources.endpoints);
    const svc = this.services.lister.get(ns, name);
    const current = this.endpoints.lister.get(ns, name);
    if (!svc) {
      if (!current || current.metadata.annotations?.[leaderAnnotation]) return;
      try {
        await api.delete(ns, name, { preconditions: { uid: current.metadata.uid } });
      } catch (e) {
        if (!isNotFound(e)) throw e;
      }
      return;
    }
    // Services without selectors have user-managed Endpoints.
    if (!managesEndpoints(svc)) return;

    const pods = this.pods.lister.list(ns, selectorText(serviceSelector(svc)!));
    const { subsets, truncated } = desiredSubsets(svc, pods);
    const labels = endpointsLabels(svc);
    const annotations: Record<string, string> = { ...current?.metadata.annotations };
    if (truncated) annotations[overCapacityAnnotation] = 'truncated';
    else delete annotations[overCapacityAnnotation];
    if (current && canonical(current.subsets ?? []) === canonical(subsets)
      && canonical(current.metadata.labels ?? {}) === canonical(labels)
      && canonical(current.metadata.annotations ?? {}) === canonical(annotations)) return;

    try {
      if (!current) {
        await api.create(ns, { apiVersion: 'v1', kind: 'Endpoints', metadata: { name, namespace: ns, labels, ...(Object.keys(annotations).length ? { annotations } : {}) }, subsets });
      } else {
        const next = structuredClone(current);
        next.metadata.labels = labels;
        next.metadata.annotations = annotations;
        if (!Object.keys(annotations).length) delete next.metadata.annotations;
        next.subsets = subsets;
        await api.update(next);
      }
    } catch (e) {
      if (namespaceTerminating(e)) return;
      // Our cache had not seen it yet; the informer event will bring us back.
      if (isAlreadyExists(e)) throw e;
      this.recorder.event(svc, 'Warning', 'FailedToUpdateEndpoint', `Failed to update endpoint ${key}: ${(e as Error).message}`);
      throw e;
    }
  }
}
