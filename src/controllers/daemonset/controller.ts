// The DaemonSet controller: one pod per eligible node, pinned to it by node affinity and placed
// by the scheduler (as upstream does since ScheduleDaemonSetPods), template revisions as
// ControllerRevisions, rolling updates by maxUnavailable/maxSurge. Pods are created with
// generated names, so creates and deletes are gated by expectations like the ReplicaSet's.
import { isDeepStrictEqual } from 'node:util';
import { fromLabelSelector, matches } from '../../api/labels.js';
import type { ControllerRevision, DaemonSet, Node, Pod } from '../../api/kinds.js';
import { isConflict, isNotFound, objectKey, resources, type EventRecorder, type ResourceAPI, type SharedInformer } from '../../client/index.js';
import { QueueController, type ControllerContext, type ReconcileResult } from '../framework.js';
import { writeStatus } from '../replicaset/write-status.js';
import { claim, controllerRef, newControllerRef, ownerStillThere } from '../replicaset/controller-ref.js';
import { Expectations } from '../replicaset/expectations.js';
import { slowStartBatch } from '../replicaset/controller.js';
import { msUntilAvailable } from '../replicaset/pod-util.js';
import { byRevision, revisionHashLabel, truncateHistory, updateRevision } from '../history/revisions.js';
import { FailedPodBackoff } from './failed-backoff.js';
import { plan } from './plan.js';
import { daemonPodTolerations, pinToNode, targetNode } from './predicates.js';
import { computeStatus, statusChanged } from './status.js';

/** The pod label upstream sets from the DaemonSet's template generation. */
export const templateGenerationLabel = 'pod-template-generation';
const templateGenerationAnnotation = 'deprecated.daemonset.template.generation';

const asDaemonSet = (ds: DaemonSet): DaemonSet => ({ ...ds, apiVersion: 'apps/v1', kind: 'DaemonSet' });

export class DaemonSetController extends QueueController {
  readonly expectations: Expectations;
  private readonly failedBackoff: FailedPodBackoff;
  private readonly sets: SharedInformer<DaemonSet>;
  private readonly pods: SharedInformer<Pod>;
  private readonly nodes: SharedInformer<Node>;
  private readonly revisions: SharedInformer<ControllerRevision>;
  private readonly recorder: EventRecorder;
  private readonly setsAPI: ResourceAPI<DaemonSet>;
  private readonly podsAPI: ResourceAPI<Pod>;
  private readonly revisionsAPI: ResourceAPI<ControllerRevision>;

  constructor(ctx: ControllerContext) {
    super('daemonset', ctx);
    this.expectations = new Expectations(ctx.clock);
    this.failedBackoff = new FailedPodBackoff(ctx.clock);
    this.recorder = ctx.recorder('daemonset-controller');
    this.setsAPI = ctx.clients.resource(resources.daemonsets);
    this.podsAPI = ctx.clients.resource(resources.pods);
    this.revisionsAPI = ctx.clients.resource(resources.controllerrevisions);
    this.sets = ctx.informers.informerFor(resources.daemonsets);
    this.pods = ctx.informers.informerFor(resources.pods);
    this.nodes = ctx.informers.informerFor(resources.nodes);
    this.revisions = ctx.informers.informerFor(resources.controllerrevisions);
    this.sets.addEventHandler({
      onAdd: (ds) => this.enqueue(ds),
      onUpdate: (_o, ds) => this.enqueue(ds),
      onDelete: (ds) => { this.expectations.delete(objectKey(ds)); this.failedBackoff.forget(objectKey(ds)); this.enqueue(ds); },
    });
    this.pods.addEventHandler({
      onAdd: (pod) => {
        if (pod.metadata.deletionTimestamp) return this.podDeleted(pod);
        const key = this.ownerKey(pod);
        if (key) { this.expectations.creationObserved(key); this.enqueue(key); } else this.orphan(pod);
      },
      onUpdate: (old, cur) => {
        if (old.metadata.resourceVersion === cur.metadata.resourceVersion) return;
        if (cur.metadata.deletionTimestamp) return this.podDeleted(cur);
        const oldKey = this.ownerKey(old), key = this.ownerKey(cur);
        if (oldKey && oldKey !== key) this.enqueue(oldKey);
        if (key) this.enqueue(key);
        else if (!isDeepStrictEqual(old.metadata.labels, cur.metadata.labels) || oldKey) this.orphan(cur);
      },
      onDelete: (pod) => this.podDeleted(pod),
    });
    const everySet = () => { for (const ds of this.sets.lister.list()) this.enqueue(ds); };
    this.nodes.addEventHandler({
      onAdd: everySet,
      onUpdate: (old, cur) => {
        const relevant = (n: Node) => [n.metadata.labels, n.spec?.taints, n.spec?.unschedulable];
        if (!isDeepStrictEqual(relevant(old), relevant(cur))) everySet();
      },
      onDelete: everySet,
    });
    this.revisions.addEventHandler({
      onAdd: (r) => this.revisionChanged(r), onUpdate: (_o, r) => this.revisionChanged(r), onDelete: (r) => this.revisionChanged(r),
    });
  }

  private ownerKey(obj: Pod | ControllerRevision): string | undefined {
    const ref = controllerRef(obj);
    return ref?.kind === 'DaemonSet' ? `${obj.metadata.namespace}/${ref.name}` : undefined;
  }

  private revisionChanged(r: ControllerRevision): void {
    const key = this.ownerKey(r);
    if (key) this.enqueue(key);
  }

  private podDeleted(pod: Pod): void {
    const key = this.ownerKey(pod);
    if (!key) return;
    this.expectations.deletionObserved(key, objectKey(pod));
    this.enqueue(key);
  }

  private orphan(pod: Pod): void {
    if (controllerRef(pod)) return;
    for (const ds of this.sets.lister.list(pod.metadata.namespace)) {
      const sel = fromLabelSelector(ds.spec?.selector);
      if (sel?.length && matches(sel, pod.metadata.labels)) this.enqueue(ds);
    }
  }

  async reconcile(key: string): Promise<ReconcileResult | void> {
    const ds = this.sets.lister.byKey(key);
    if (!ds) { this.expectations.delete(key); return; }
    const selector = fromLabelSelector(ds.spec?.selector);
    if (!selector?.length) { this.log.warn('daemonset has an empty or invalid selector, ignoring'); return; }
    const ns = ds.metadata.namespace;
    const canAdopt = ownerStillThere(this.setsAPI, ds);
    const owner = { owner: ds, ownerAPIVersion: 'apps/v1', ownerKind: 'DaemonSet', selector, canAdopt };
    const pods = await claim(this.pods.lister.list(ns), { ...owner, api: this.podsAPI });
    const revisions = (await claim(this.revisions.lister.list(ns), { ...owner, api: this.revisionsAPI })).sort(byRevision);

    const collisionCount = ds.status?.collisionCount ?? 0;
    const { update, all } = await updateRevision(this.revisionsAPI, { obj: ds, apiVersion: 'apps/v1', kind: 'DaemonSet', labels: ds.spec?.template?.metadata?.labels ?? {} }, revisions, collisionCount,
      (next) => writeStatus(this.setsAPI, ds, { ...(ds.status ?? { currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 }), collisionCount: next }));
    const hash = update.metadata.labels?.[revisionHashLabel] as string;
    const nodes = this.nodes.lister.list();
    const byNode = new Map<string, Pod[]>();
    for (const p of pods) {
      const node = targetNode(p);
      if (node !== undefined) byNode.set(node, [...(byNode.get(node) ?? []), p]);
    }

    const now = this.ctx.clock.now();
    let backoffMs: number | undefined;
    if (!ds.metadata.deletionTimestamp && this.expectations.satisfied(key)) {
      backoffMs = await this.sync(key, ds, plan(ds, nodes, byNode, hash, now), hash);
    }
    const status = computeStatus(ds, nodes, byNode, hash, collisionCount, now);
    if (statusChanged(ds, status)) await writeStatus(this.setsAPI, ds, status);

    const inUse = new Set(pods.map((p) => p.metadata.labels?.[revisionHashLabel]));
    const live = new Set(all.filter((r) => r === update || inUse.has(r.metadata.labels?.[revisionHashLabel])).map((r) => r.metadata.name as string));
    await truncateHistory(this.revisionsAPI, all, live, ds.spec?.revisionHistoryLimit ?? 10);

    const minReady = ds.spec?.minReadySeconds ?? 0;
    const waits = pods.map((p) => msUntilAvailable(p, minReady, now)).filter((x): x is number => x !== undefined);
    if (backoffMs !== undefined) waits.push(backoffMs);
    return waits.length ? { requeueAfterMs: Math.min(...waits) + 100 } : undefined;
  }

  /** Carries out the plan; returns how long until a failed pod held back by its backoff may be killed. */
  private async sync(key: string, ds: DaemonSet, p: ReturnType<typeof plan>, hash: string): Promise<number | undefined> {
    let backoffMs: number | undefined;
    for (const pod of p.failed) {
      const node = targetNode(pod) ?? '';
      const wait = this.failedBackoff.wait(key, node);
      if (wait > 0) {
        p.delete = p.delete.filter((x) => x !== pod);
        backoffMs = Math.min(backoffMs ?? wait, wait);
        continue;
      }
      this.failedBackoff.killed(key, node);
      this.recorder.event(asDaemonSet(ds), 'Warning', 'FailedDaemonPod', `Found failed daemon pod ${pod.metadata.namespace}/${pod.metadata.name} on node ${node}, will try to kill it`);
    }
    this.expectations.expect(key, p.create.length, p.delete.map(objectKey));
    const queue = [...p.create];
    const { succeeded, error } = await slowStartBatch(queue.length, () => this.createPod(ds, queue.shift()!, hash));
    for (let i = succeeded; i < p.create.length; i++) this.expectations.creationObserved(key);
    const deleteErrors = await Promise.all(p.delete.map((pod) => this.deletePod(key, ds, pod)));
    const failure = error ?? deleteErrors.find((e) => e !== undefined);
    if (failure) throw failure;
    return backoffMs;
  }

  private async createPod(ds: DaemonSet, node: string, hash: string): Promise<void> {
    const tmpl = ds.spec?.template ?? {};
    const meta = tmpl.metadata ?? {};
    const spec = structuredClone(tmpl.spec ?? { containers: [] });
    spec.tolerations = daemonPodTolerations(spec);
    pinToNode(spec, node);
    const generation = ds.metadata.annotations?.[templateGenerationAnnotation];
    const pod: Pod = {
      metadata: {
        generateName: `${ds.metadata.name}-`,
        namespace: ds.metadata.namespace,
        labels: { ...(meta.labels ?? {}), [revisionHashLabel]: hash, ...(generation ? { [templateGenerationLabel]: generation } : {}) },
        ...(meta.annotations ? { annotations: { ...meta.annotations } } : {}),
        ...(meta.finalizers ? { finalizers: [...meta.finalizers] } : {}),
        ownerReferences: [newControllerRef(ds, 'apps/v1', 'DaemonSet')],
      },
      spec,
    };
    try {
      const created = await this.podsAPI.create(ds.metadata.namespace, pod);
      this.recorder.event(asDaemonSet(ds), 'Normal', 'SuccessfulCreate', `Created pod: ${created.metadata.name}`);
    } catch (e) {
      this.recorder.event(asDaemonSet(ds), 'Warning', 'FailedCreate', `Error creating: ${(e as Error).message}`);
      throw e;
    }
  }

  private async deletePod(key: string, ds: DaemonSet, pod: Pod): Promise<Error | undefined> {
    try {
      await this.podsAPI.delete(pod.metadata.namespace, pod.metadata.name as string, { preconditions: { uid: pod.metadata.uid } });
      this.recorder.event(asDaemonSet(ds), 'Normal', 'SuccessfulDelete', `Deleted pod: ${pod.metadata.name}`);
      return undefined;
    } catch (e) {
      this.expectations.deletionObserved(key, objectKey(pod));
      if (isNotFound(e) || isConflict(e)) return undefined;
      this.recorder.event(asDaemonSet(ds), 'Warning', 'FailedDelete', `Error deleting: ${(e as Error).message}`);
      return e as Error;
    }
  }

}
