// Pod garbage collection, after Kubernetes' podgc controller: force-deletes pods no kubelet
// will ever finish — bound to a Node that no longer exists (after a quarantine and a live
// GET), deleted before they were ever scheduled — and keeps the number of terminated pods
// under --terminated-pod-gc-threshold, oldest first. See DESIGN.md.
//
// One queue, three kinds of keys: a pod's "namespace/name", a node name (no "/": the orphan
// check for pods bound to it), and TERMINATED_KEY (the threshold sweep; "@" is never in a
// node name).
import { rfc3339 } from '../../api/time.js';
import { isConflict, isNotFound, resources, type SharedInformer } from '../../client/index.js';
import { QueueController, type Controller, type ControllerContext, type ReconcileResult } from '../framework.js';
import { isTerminated, isUnscheduledTerminating, terminatedOverThreshold } from './select.js';
import type { Node, Pod } from '../../api/kinds.js';
import { nullTime } from '../../api/kinds.js';
import type { PodCondition } from 'kubernetes-types/core/v1.js';

export const TERMINATED_KEY = '@terminated';
const NODE_INDEX = 'nodeName';
const TERMINATED_INDEX = 'podgc-terminated';
/** Deletions in flight at once during a threshold sweep. */
const SWEEP_CONCURRENCY = 16;

/** The condition upstream puts on a pod it deletes because its node is gone. */
export const orphanCondition = { type: 'DisruptionTarget', status: 'True', reason: 'DeletionByPodGC', message: 'PodGC: node no longer exists' };

export class PodGCController extends QueueController {
  private readonly pods: SharedInformer<Pod>;
  private readonly nodes: SharedInformer<Node>;
  /** When each missing node was first noticed (the controller's clock): the quarantine start. */
  private readonly missingSince = new Map<string, number>();

  constructor(ctx: ControllerContext) {
    super('podgc', ctx);
    this.pods = ctx.informers.informerFor(resources.pods);
    this.nodes = ctx.informers.informerFor(resources.nodes);
    this.pods.addIndexer(NODE_INDEX, (p) => (p.spec?.nodeName ? [p.spec.nodeName] : []));
    this.pods.addIndexer(TERMINATED_INDEX, (p) => (isTerminated(p) ? ['true'] : []));
    this.pods.addEventHandler({ onAdd: (p) => this.enqueue(p), onUpdate: (_o, p) => this.enqueue(p) });
    this.nodes.addEventHandler({ onAdd: (n) => this.enqueue(n), onDelete: (n) => this.enqueue(n) });
  }

  async reconcile(key: string): Promise<ReconcileResult | void> {
    if (!this.pods.hasSynced() || !this.nodes.hasSynced()) return { requeueAfterMs: 100 };
    if (key === TERMINATED_KEY) return this.sweepTerminated();
    return key.includes('/') ? this.reconcilePod(key) : this.reconcileNode(key);
  }

  private async reconcilePod(key: string): Promise<void> {
    const pod = this.pods.lister.byKey(key);
    if (!pod) return;
    if (isUnscheduledTerminating(pod)) {
      await this.forceDelete(pod);
      this.log.info('forced deletion of an unscheduled terminating pod', { pod: key });
      return;
    }
    const node = pod.spec?.nodeName as string | undefined;
    if (node && !this.nodes.lister.get(undefined, node)) this.enqueue(node);
    if (isTerminated(pod)) this.enqueue(TERMINATED_KEY);
  }

  /** Pods bound to `name` when no such Node exists: quarantine, a live GET, then force deletion. */
  private async reconcileNode(name: string): Promise<ReconcileResult | void> {
    const bound = this.pods.lister.byIndex(NODE_INDEX, name);
    if (this.nodes.lister.get(undefined, name) || !bound.length) {
      this.missingSince.delete(name);
      return;
    }
    const now = this.ctx.clock.now();
    const quarantine = this.ctx.config.podGCQuarantineMs;
    let since = this.missingSince.get(name);
    if (since === undefined) this.missingSince.set(name, (since = now));
    // The informer may simply not have seen a new Node yet: give it time before asking.
    if (now < since + quarantine) return { requeueAfterMs: since + quarantine - now };
    try {
      await this.ctx.clients.resource(resources.nodes).get(undefined, name);
      // It exists after all; the informer will catch up. Check again later in case it never does.
      return { requeueAfterMs: quarantine };
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
    this.missingSince.delete(name);
    const failed: string[] = [];
    for (const pod of bound) {
      try {
        await this.forceDelete(pod, orphanCondition);
        this.log.info('forced deletion of an orphaned pod', { pod: `${pod.metadata.namespace}/${pod.metadata.name}`, node: name });
      } catch (e) {
        failed.push(`${pod.metadata.namespace}/${pod.metadata.name}: ${(e as Error).message}`);
      }
    }
    if (failed.length) {
      this.missingSince.set(name, since); // still past quarantine: the retry deletes at once
      throw new Error(`deleting orphaned pods of node ${name}: ${failed.join('; ')}`);
    }
  }

  private async sweepTerminated(): Promise<void> {
    const victims = terminatedOverThreshold(this.pods.lister.byIndex(TERMINATED_INDEX, 'true'), this.ctx.config.terminatedPodGCThreshold);
    if (!victims.length) return;
    this.log.info('garbage collecting terminated pods', { count: victims.length, threshold: this.ctx.config.terminatedPodGCThreshold });
    const failed: string[] = [];
    for (let i = 0; i < victims.length; i += SWEEP_CONCURRENCY) {
      await Promise.all(victims.slice(i, i + SWEEP_CONCURRENCY).map((p) => this.forceDelete(p).catch((e: Error) => {
        failed.push(`${p.metadata.namespace}/${p.metadata.name}: ${e.message}`);
      })));
    }
    if (failed.length) throw new Error(`deleting terminated pods: ${failed.slice(0, 5).join('; ')}`);
  }

  /**
   * Upstream's markFailedAndDeletePod: a pod not yet terminal is first set Failed (with
   * `condition`, if any) so whoever owns it sees how it ended, then deleted with grace 0.
   * A pod already gone, or replaced by another of the same name, counts as done.
   */
  private async forceDelete(pod: Pod, condition?: PodCondition): Promise<void> {
    const api = this.ctx.clients.resource(resources.pods);
    const { namespace, name, uid } = pod.metadata;
    // Already force-deleted: only finalizers hold it now, and asking again would only loop.
    if (pod.metadata.deletionTimestamp && pod.metadata.deletionGracePeriodSeconds === 0) return;
    try {
      if (!isTerminated(pod)) {
        const next = structuredClone(pod);
        const status = (next.status ??= {});
        status.phase = 'Failed';
        if (condition) {
          const conditions = (status.conditions ??= []);
          const old = conditions.find((c) => c.type === condition.type);
          const entry = { ...condition, lastProbeTime: nullTime, lastTransitionTime: old && old.status === condition.status ? old.lastTransitionTime : rfc3339(new Date(this.ctx.clock.now())) };
          if (old) Object.assign(old, entry);
          else conditions.push(entry);
        }
        await api.updateStatus(next);
      }
      await api.delete(namespace, name as string, { gracePeriodSeconds: 0, preconditions: { uid } });
    } catch (e) {
      if (isNotFound(e)) return;
      if (isConflict(e) && !(await this.sameObject(namespace, name as string, uid as string))) return;
      throw e;
    }
  }

  private async sameObject(namespace: string | undefined, name: string, uid: string): Promise<boolean> {
    try {
      return (await this.ctx.clients.resource(resources.pods).get(namespace, name)).metadata.uid === uid;
    } catch (e) {
      if (isNotFound(e)) return false;
      throw e;
    }
  }
}

export function create(ctx: ControllerContext): Controller {
  return new PodGCController(ctx);
}
