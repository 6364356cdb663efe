// The StatefulSet controller: claims the set's pods and ControllerRevisions, makes sure the
// revision of the current template exists, runs one pass of the ordered algorithm (sync.ts)
// and reports status. It keeps no expectations: pod names are fixed per ordinal, so a create
// the cache has not seen yet fails with AlreadyExists and a stale delete fails its uid check.
import { isDeepStrictEqual } from 'node:util';
import { fromLabelSelector, matches } from '../../api/labels.js';
import type { ControllerRevision, PersistentVolumeClaim, Pod, StatefulSet } from '../../api/kinds.js';
import { resources, type EventRecorder, type ResourceAPI, type SharedInformer } from '../../client/index.js';
import { QueueController, type ControllerContext, type ReconcileResult } from '../framework.js';
import { writeStatus } from '../replicaset/write-status.js';
import { claim, controllerRef, ownerStillThere } from '../replicaset/controller-ref.js';
import { byRevision, revisionTemplate, truncateHistory, updateRevision } from '../history/revisions.js';
import { ordinalOf, podRevision } from './identity.js';
import { nextAvailableIn } from './pods.js';
import { computeStatus, statusChanged } from './status.js';
import { StatefulSetSync, type Revisions } from './sync.js';

export class StatefulSetController extends QueueController {
  private readonly sets: SharedInformer<StatefulSet>;
  private readonly pods: SharedInformer<Pod>;
  private readonly revisions: SharedInformer<ControllerRevision>;
  private readonly claims: SharedInformer<PersistentVolumeClaim>;
  private readonly recorder: EventRecorder;
  private readonly setsAPI: ResourceAPI<StatefulSet>;
  private readonly podsAPI: ResourceAPI<Pod>;
  private readonly revisionsAPI: ResourceAPI<ControllerRevision>;
  private readonly claimsAPI: ResourceAPI<PersistentVolumeClaim>;

  constructor(ctx: ControllerContext) {
    super('statefulset', ctx);
    this.recorder = ctx.recorder('statefulset-controller');
    this.setsAPI = ctx.clients.resource(resources.statefulsets);
    this.podsAPI = ctx.clients.resource(resources.pods);
    this.revisionsAPI = ctx.clients.resource(resources.controllerrevisions);
    this.claimsAPI = ctx.clients.resource(resources.persistentvolumeclaims);
    this.sets = ctx.informers.informerFor(resources.statefulsets);
    this.pods = ctx.informers.informerFor(resources.pods);
    this.revisions = ctx.informers.informerFor(resources.controllerrevisions);
    this.claims = ctx.informers.informerFor(resources.persistentvolumeclaims);
    this.sets.addEventHandler({
      onAdd: (s) => this.enqueue(s),
      onUpdate: (_o, s) => this.enqueue(s),
      onDelete: (s) => this.enqueue(s),
    });
    const podChanged = (pod: Pod) => this.podChanged(pod);
    this.pods.addEventHandler({
      onAdd: podChanged,
      onUpdate: (old, cur) => {
        if (old.metadata.resourceVersion === cur.metadata.resourceVersion) return;
        if (!isDeepStrictEqual(controllerRef(old), controllerRef(cur))) podChanged(old);
        podChanged(cur);
      },
      onDelete: podChanged,
    });
    this.revisions.addEventHandler({ onAdd: (r) => this.ownerChanged(r), onUpdate: (_o, r) => this.ownerChanged(r), onDelete: (r) => this.ownerChanged(r) });
  }

  private ownerChanged(obj: ControllerRevision): void {
    const ref = controllerRef(obj);
    if (ref?.kind === 'StatefulSet') this.enqueue(`${obj.metadata.namespace}/${ref.name}`);
  }

  private podChanged(pod: Pod): void {
    const ref = controllerRef(pod);
    if (ref) {
      if (ref.kind === 'StatefulSet') this.enqueue(`${pod.metadata.namespace}/${ref.name}`);
      return;
    }
    // An orphan: every set that selects it may adopt it.
    for (const s of this.sets.lister.list(pod.metadata.namespace)) {
      const sel = fromLabelSelector(s.spec?.selector);
      if (sel?.length && matches(sel, pod.metadata.labels)) this.enqueue(s);
    }
  }

  async reconcile(key: string): Promise<ReconcileResult | void> {
    const set = this.sets.lister.byKey(key);
    if (!set) return;
    const selector = fromLabelSelector(set.spec?.selector);
    if (!selector?.length) {
      this.log.warn('statefulset has an empty or invalid selector, ignoring');
      return;
    }
    const ns = set.metadata.namespace;
    const canAdopt = ownerStillThere(this.setsAPI, set);
    const owner = { owner: set, ownerAPIVersion: 'apps/v1', ownerKind: 'StatefulSet', selector, canAdopt };
    const pods = await claim(this.pods.lister.list(ns), { ...owner, api: this.podsAPI, adoptable: (p) => ordinalOf(set, p) >= 0 });
    const revisions = (await claim(this.revisions.lister.list(ns), { ...owner, api: this.revisionsAPI })).sort(byRevision);

    const collisionCount = set.status?.collisionCount ?? 0;
    const { update, all } = await updateRevision(this.revisionsAPI, { obj: set, apiVersion: 'apps/v1', kind: 'StatefulSet', labels: set.spec?.template?.metadata?.labels ?? {} }, revisions, collisionCount,
      (next) => writeStatus(this.setsAPI, set, { ...(set.status ?? { replicas: 0 }), collisionCount: next }));
    const current = all.find((r) => r.metadata.name === set.status?.currentRevision) ?? update;
    const r: Revisions = { current, update, currentTemplate: revisionTemplate(current), updateTemplate: revisionTemplate(update) };

    const now = this.ctx.clock.now();
    if (!set.metadata.deletionTimestamp) {
      await new StatefulSetSync({ pods: this.podsAPI, claims: this.claimsAPI, claimLister: this.claims.lister, recorder: this.recorder, now }).run(set, pods, r);
    }
    const status = computeStatus(set, pods, current.metadata.name as string, update.metadata.name as string, collisionCount, now);
    if (statusChanged(set, status)) await writeStatus(this.setsAPI, set, status);

    const live = new Set([status.currentRevision as string, status.updateRevision as string, ...pods.map(podRevision).filter((x): x is string => !!x)]);
    await truncateHistory(this.revisionsAPI, all, live, set.spec?.revisionHistoryLimit ?? 10);

    const minReady = set.spec?.minReadySeconds ?? 0;
    const wait = nextAvailableIn(pods, minReady, now);
    return wait !== undefined ? { requeueAfterMs: wait + 100 } : undefined;
  }

}

