// The ReplicaSet controller: keeps spec.replicas active pods from spec.template, owned by the
// ReplicaSet, and reports what it sees in status. Writes are gated by expectations so the
// controller never acts twice on the same stale view while its pod cache catches up.
import { isDeepStrictEqual } from 'node:util';
import { fromLabelSelector, matches } from '../../api/labels.js';
import { isNotFound, objectKey, resources, type EventRecorder, type ResourceAPI, type SharedInformer } from '../../client/index.js';
import { QueueController, type ControllerContext, type ReconcileResult } from '../framework.js';
import { claim, controllerRef, newControllerRef, ownerStillThere } from './controller-ref.js';
import { writeStatus } from './write-status.js';
import { Expectations } from './expectations.js';
import { deletionOrder, isPodActive, isPodReady } from './pod-util.js';
import { calculateStatus, statusChanged } from './status.js';
import type { Pod, ReplicaSet } from '../../api/kinds.js';

/** Events name the ReplicaSet by kind even when the cached object came from a list without one. */
function asReplicaSet(rs: ReplicaSet): ReplicaSet {
  return { ...rs, apiVersion: 'apps/v1', kind: 'ReplicaSet' };
}

/** At most this many creates or deletes per reconcile (Kubernetes' burstReplicas). */
export const burstReplicas = 500;

export class ReplicaSetController extends QueueController {
  readonly expectations: Expectations;
  private readonly rsInformer: SharedInformer<ReplicaSet>;
  private readonly podInformer: SharedInformer<Pod>;
  private readonly recorder: EventRecorder;
  private readonly podsAPI: ResourceAPI;
  private readonly rsAPI: ResourceAPI;

  constructor(ctx: ControllerContext) {
    super('replicaset', ctx);
    this.expectations = new Expectations(ctx.clock);
    this.recorder = ctx.recorder('replicaset-controller');
    this.podsAPI = ctx.clients.resource(resources.pods);
    this.rsAPI = ctx.clients.resource(resources.replicasets);
    this.rsInformer = ctx.informers.informerFor(resources.replicasets);
    this.podInformer = ctx.informers.informerFor(resources.pods);
    this.rsInformer.addEventHandler({
      onAdd: (rs) => this.enqueue(rs),
      onUpdate: (_old, rs) => this.enqueue(rs),
      onDelete: (rs) => { this.expectations.delete(objectKey(rs)); this.enqueue(rs); },
    });
    this.podInformer.addEventHandler({
      onAdd: (pod) => this.podAdded(pod),
      onUpdate: (old, cur) => this.podUpdated(old, cur),
      onDelete: (pod) => this.podDeleted(pod),
    });
  }

  /** The ReplicaSet a controller reference points at, if the cache has that very object. */
  private owner(pod: Pod, ref = controllerRef(pod)): ReplicaSet | undefined {
    if (!ref || ref.kind !== 'ReplicaSet') return undefined;
    const rs = this.rsInformer.lister.get(pod.metadata.namespace, ref.name);
    return rs && rs.metadata.uid === ref.uid ? rs : undefined;
  }

  /** ReplicaSets whose selector matches an orphan pod: candidates to adopt it. */
  private selecting(pod: Pod): ReplicaSet[] {
    return this.rsInformer.lister.list(pod.metadata.namespace).filter((rs) => {
      const sel = fromLabelSelector(rs.spec?.selector);
      return sel !== null && sel.length > 0 && matches(sel, pod.metadata.labels);
    });
  }

  private podAdded(pod: Pod): void {
    // A pod first seen already terminating must not count as an observed creation.
    if (pod.metadata.deletionTimestamp) return this.podDeleted(pod);
    const rs = this.owner(pod);
    if (rs) {
      this.expectations.creationObserved(objectKey(rs));
      this.enqueue(rs);
      return;
    }
    if (!controllerRef(pod)) for (const r of this.selecting(pod)) this.enqueue(r);
  }

  private podUpdated(old: Pod, cur: Pod): void {
    if (old.metadata.resourceVersion === cur.metadata.resourceVersion) return;
    const labelsChanged = !isDeepStrictEqual(old.metadata.labels ?? {}, cur.metadata.labels ?? {});
    const oldRef = controllerRef(old), curRef = controllerRef(cur);
    const refChanged = !isDeepStrictEqual(oldRef, curRef);
    if (cur.metadata.deletionTimestamp) {
      this.podDeleted(cur);
      if (refChanged || labelsChanged) this.podDeleted(old);
      return;
    }
    if (refChanged) {
      const prev = this.owner(old, oldRef);
      if (prev) this.enqueue(prev);
    }
    const rs = this.owner(cur, curRef);
    if (rs) {
      this.enqueue(rs);
      const minReady = rs.spec?.minReadySeconds ?? 0;
      // Becoming available happens without an event: look again when minReadySeconds is up.
      if (minReady > 0 && !isPodReady(old) && isPodReady(cur)) this.enqueueAfter(rs, minReady * 1000 + 1000);
      return;
    }
    if (!curRef && (labelsChanged || refChanged)) for (const r of this.selecting(cur)) this.enqueue(r);
  }

  private podDeleted(pod: Pod): void {
    const rs = this.owner(pod);
    if (!rs) return;
    const key = objectKey(rs);
    this.expectations.deletionObserved(key, objectKey(pod));
    this.enqueue(key);
  }

  async reconcile(key: string): Promise<ReconcileResult | void> {
    const rs = this.rsInformer.lister.byKey(key);
    if (!rs) {
      this.expectations.delete(key);
      return;
    }
    const selector = fromLabelSelector(rs.spec?.selector);
    if (!selector || selector.length === 0) {
      this.log.warn('replica set has an empty or invalid selector, ignoring', { key });
      return;
    }
    const needsSync = this.expectations.satisfied(key);
    const active = this.podInformer.lister.list(rs.metadata.namespace).filter(isPodActive);
    const pods = await claim(active, {
      owner: rs, ownerAPIVersion: 'apps/v1', ownerKind: 'ReplicaSet', selector, api: this.podsAPI,
      canAdopt: ownerStillThere(this.rsAPI, rs),
    });

    let manageError: Error | undefined;
    let createError: Error | undefined;
    let counted = pods;
    if (needsSync && !rs.metadata.deletionTimestamp) {
      const r = await this.manageReplicas(key, rs, pods);
      manageError = r.error;
      createError = r.createError;
      // Pods just deleted no longer count: a Deployment reading this status must not think
      // they are still available while it scales other ReplicaSets down.
      if (r.deleted?.size) counted = pods.filter((p) => !r.deleted!.has(objectKey(p)));
    }
    const { status, requeueAfterMs } = calculateStatus(rs, counted, this.ctx.clock.now(), createError);
    if (statusChanged(rs, status)) await writeStatus(this.rsAPI, rs, status);
    if (manageError) throw manageError;
    // Requeue a little after the earliest pod becomes available, so availableReplicas moves.
    return requeueAfterMs !== undefined ? { requeueAfterMs: requeueAfterMs + 100 } : undefined;
  }


  private async manageReplicas(key: string, rs: ReplicaSet, pods: Pod[]): Promise<{ error?: Error; createError?: Error; deleted?: Set<string> }> {
    const want: number = rs.spec?.replicas ?? 1;
    const diff = pods.length - want;
    if (diff < 0) {
      const n = Math.min(-diff, burstReplicas);
      this.expectations.expectCreations(key, n);
      const { succeeded, error } = await slowStartBatch(n, () => this.createPod(rs));
      // Creates that failed or were never tried will not be observed: stop expecting them.
      for (let i = succeeded; i < n; i++) this.expectations.creationObserved(key);
      return { error, createError: error };
    }
    if (diff > 0) {
      const victims = [...pods].sort(deletionOrder).slice(0, Math.min(diff, burstReplicas));
      this.expectations.expectDeletions(key, victims.map(objectKey));
      const errors = await Promise.all(victims.map((p) => this.deletePod(key, rs, p)));
      const error = errors.find((e) => e !== undefined);
      const deleted = new Set(victims.filter((_, i) => errors[i] === undefined).map(objectKey));
      return { error, deleted };
    }
    return {};
  }

  private async createPod(rs: ReplicaSet): Promise<void> {
    const tmpl = rs.spec?.template ?? {};
    const meta = tmpl.metadata ?? {};
    const pod: Pod = {
      metadata: {
        generateName: `${rs.metadata.name}-`,
        namespace: rs.metadata.namespace,
        labels: { ...(meta.labels ?? {}) },
        ...(meta.annotations ? { annotations: { ...meta.annotations } } : {}),
        ...(meta.finalizers ? { finalizers: [...meta.finalizers] } : {}),
        ownerReferences: [newControllerRef(rs, 'apps/v1', 'ReplicaSet')],
      },
      spec: structuredClone(tmpl.spec ?? { containers: [] }),
    };
    try {
      const created = await this.podsAPI.create(rs.metadata.namespace, pod);
      this.recorder.event(asReplicaSet(rs), 'Normal', 'SuccessfulCreate', `Created pod: ${created.metadata.name}`);
    } catch (e) {
      this.recorder.event(asReplicaSet(rs), 'Warning', 'FailedCreate', `Error creating: ${(e as Error).message}`);
      throw e;
    }
  }

  private async deletePod(key: string, rs: ReplicaSet, pod: Pod): Promise<Error | undefined> {
    try {
      await this.podsAPI.delete(pod.metadata.namespace, pod.metadata.name as string);
      this.recorder.event(asReplicaSet(rs), 'Normal', 'SuccessfulDelete', `Deleted pod: ${pod.metadata.name}`);
      return undefined;
    } catch (e) {
      // The delete will not be observed: stop waiting for it.
      this.expectations.deletionObserved(key, objectKey(pod));
      if (isNotFound(e)) return undefined;
      this.recorder.event(asReplicaSet(rs), 'Warning', 'FailedDelete', `Error deleting: ${(e as Error).message}`);
      return e as Error;
    }
  }
}

/**
 * Runs `fn` `count` times in batches of 1, 2, 4, … and stops after the first batch with a
 * failure, so a quota or admission error costs one call, not hundreds.
 */
export async function slowStartBatch(count: number, fn: () => Promise<void>): Promise<{ succeeded: number; error?: Error }> {
  let remaining = count, batch = 1, succeeded = 0;
  while (remaining > 0) {
    const size = Math.min(batch, remaining);
    const results = await Promise.allSettled(Array.from({ length: size }, fn));
    const failed = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    succeeded += size - failed.length;
    if (failed.length) return { succeeded, error: failed[0].reason as Error };
    remaining -= size;
    batch *= 2;
  }
  return { succeeded };
}
