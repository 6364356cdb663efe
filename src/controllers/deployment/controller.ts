// The Deployment controller: rolls a Deployment's pod template out through ReplicaSets
// (RollingUpdate or Recreate), follows resizes proportionally, keeps revision history, and
// reports status and the Progressing/Available conditions kubectl rollout reads.
import { isDeepStrictEqual } from 'node:util';
import { fromLabelSelector, matches, type Selector } from '../../api/labels.js';
import { isNotFound, resources, type EventRecorder, type ResourceAPI, type SharedInformer } from '../../client/index.js';
import { QueueController, type ControllerContext, type ReconcileResult } from '../framework.js';
import { claim, controllerRef } from '../replicaset/index.js';
import { asDeployment, ReplicaSetOps } from './replicasets.js';
import { maxScaledDown, newRSNewReplicas, planCleanupUnhealthy, planScaleDownOld, type ScaleStep } from './rolling.js';
import { proportionalSizes } from './scale.js';
import {
  calculateStatus, deploymentComplete, deploymentProgressing, deploymentTimedOut, getCondition, newCondition, reasons,
  removeCondition, sameStatus, setCondition, type DeploymentCondition, type DeploymentStatus,
} from './status.js';
import { desiredReplicasAnnotation, isRollingUpdate, progressDeadlineSeconds, replicasOf, splitNewAndOld, sumSpecReplicas, sumStatus } from './util.js';
import type { Deployment, Pod, ReplicaSet } from '../../api/kinds.js';

export class DeploymentController extends QueueController {
  private readonly dInformer: SharedInformer<Deployment>;
  private readonly rsInformer: SharedInformer<ReplicaSet>;
  private readonly podInformer: SharedInformer<Pod>;
  private readonly recorder: EventRecorder;
  private readonly dAPI: ResourceAPI;
  private readonly ops: ReplicaSetOps;

  constructor(ctx: ControllerContext) {
    super('deployment', ctx);
    this.recorder = ctx.recorder('deployment-controller');
    this.dAPI = ctx.clients.resource(resources.deployments);
    const rsAPI = ctx.clients.resource(resources.replicasets);
    this.ops = new ReplicaSetOps(rsAPI, this.dAPI, this.recorder, () => ctx.clock.now());
    this.dInformer = ctx.informers.informerFor(resources.deployments);
    this.rsInformer = ctx.informers.informerFor(resources.replicasets);
    this.podInformer = ctx.informers.informerFor(resources.pods);
    this.dInformer.addEventHandler({
      onAdd: (d) => this.enqueue(d),
      onUpdate: (_o, d) => this.enqueue(d),
      onDelete: (d) => this.enqueue(d),
    });
    this.rsInformer.addEventHandler({
      onAdd: (rs) => this.rsChanged(undefined, rs),
      onUpdate: (old, rs) => this.rsChanged(old, rs),
      onDelete: (rs) => { const d = this.owner(rs); if (d) this.enqueue(d); },
    });
    // Recreate waits for old pods to be gone; their deletion is the signal to go on.
    this.podInformer.addEventHandler({
      onDelete: (pod) => {
        const rs = this.podOwnerRS(pod);
        const d = rs && this.owner(rs);
        if (d && !isRollingUpdate(d)) this.enqueue(d);
      },
    });
  }

  private owner(rs: ReplicaSet, ref = controllerRef(rs)): Deployment | undefined {
    if (!ref || ref.kind !== 'Deployment') return undefined;
    const d = this.dInformer.lister.get(rs.metadata.namespace, ref.name);
    return d && d.metadata.uid === ref.uid ? d : undefined;
  }

  private podOwnerRS(pod: Pod): ReplicaSet | undefined {
    const ref = controllerRef(pod);
    if (!ref || ref.kind !== 'ReplicaSet') return undefined;
    const rs = this.rsInformer.lister.get(pod.metadata.namespace, ref.name);
    return rs && rs.metadata.uid === ref.uid ? rs : undefined;
  }

  private selecting(rs: ReplicaSet): Deployment[] {
    return this.dInformer.lister.list(rs.metadata.namespace).filter((d) => {
      const sel = fromLabelSelector(d.spec?.selector);
      return sel !== null && sel.length > 0 && matches(sel, rs.metadata.labels);
    });
  }

  private rsChanged(old: ReplicaSet | undefined, rs: ReplicaSet): void {
    if (old && old.metadata.resourceVersion === rs.metadata.resourceVersion) return;
    const ref = controllerRef(rs);
    if (old && !isDeepStrictEqual(controllerRef(old), ref)) {
      const prev = this.owner(old);
      if (prev) this.enqueue(prev);
    }
    const d = this.owner(rs, ref);
    if (d) return this.enqueue(d);
    if (!ref && (!old || !isDeepStrictEqual(old.metadata.labels, rs.metadata.labels) || controllerRef(old))) {
      for (const x of this.selecting(rs)) this.enqueue(x);
    }
  }

  async reconcile(key: string): Promise<ReconcileResult | void> {
    const cached = this.dInformer.lister.byKey(key);
    if (!cached) return;
    const d = structuredClone(cached);
    const selector = fromLabelSelector(d.spec?.selector);
    if (!selector || selector.length === 0) {
      this.recorder.event(asDeployment(d), 'Warning', 'SelectingAll', 'This deployment is selecting all pods. A non-empty selector is required.');
      if ((d.status?.observedGeneration ?? 0) < (d.metadata.generation ?? 0)) {
        await this.ops.updateStatus(d, { ...(d.status ?? {}), observedGeneration: d.metadata.generation });
      }
      return;
    }
    const rsList = await this.replicaSetsFor(d, selector);
    if (d.metadata.deletionTimestamp) {
      const { newRS, oldRSs } = splitNewAndOld(d, rsList);
      await this.syncStatus([...oldRSs, ...(newRS ? [newRS] : [])], newRS, d);
      return;
    }
    await this.checkPausedConditions(d);
    if (d.spec?.paused || this.isScalingEvent(d, rsList)) return this.sync(d, rsList);
    return isRollingUpdate(d) ? this.rolloutRolling(d, rsList) : this.rolloutRecreate(d, rsList);
  }

  private replicaSetsFor(d: Deployment, selector: Selector): Promise<ReplicaSet[]> {
    return claim(this.rsInformer.lister.list(d.metadata.namespace), {
      owner: d, ownerAPIVersion: 'apps/v1', ownerKind: 'Deployment', selector, api: this.ctx.clients.resource(resources.replicasets),
      canAdopt: async () => {
        const fresh = await this.dAPI.get(d.metadata.namespace, d.metadata.name as string).catch((e) => { if (isNotFound(e)) return undefined; throw e; });
        return !!fresh && fresh.metadata.uid === d.metadata.uid && !fresh.metadata.deletionTimestamp;
      },
    });
  }

  /** A resize: some active ReplicaSet was sized for a different spec.replicas. */
  private isScalingEvent(d: Deployment, rsList: ReplicaSet[]): boolean {
    const want = String(replicasOf(d));
    return rsList.some((rs) => (rs.spec?.replicas ?? 0) > 0 && rs.metadata.annotations?.[desiredReplicasAnnotation] !== undefined
      && rs.metadata.annotations[desiredReplicasAnnotation] !== want);
  }

  private async checkPausedConditions(d: Deployment): Promise<void> {
    if (progressDeadlineSeconds(d) === undefined) return;
    const cond = getCondition(d.status, 'Progressing');
    if (cond?.reason === reasons.timedOut) return;
    const pausedCond = cond?.reason === reasons.paused;
    const status = structuredClone(d.status ?? {}) as DeploymentStatus;
    if (d.spec?.paused && !pausedCond) {
      setCondition(status, newCondition('Progressing', 'Unknown', reasons.paused, 'Deployment is paused', this.ctx.clock.now()));
    } else if (!d.spec?.paused && pausedCond) {
      setCondition(status, newCondition('Progressing', 'Unknown', reasons.resumed, 'Deployment is resumed', this.ctx.clock.now()));
    } else {
      return;
    }
    await this.ops.updateStatus(d, status);
  }

  /** Resizes (and, when paused, revision cleanup) without rolling anything out. */
  private async sync(d: Deployment, rsList: ReplicaSet[]): Promise<void> {
    const got = await this.ops.getAllReplicaSetsAndSyncRevision(d, rsList, false);
    const { newRS, oldRSs } = await this.scale(d, got.newRS, got.oldRSs);
    if (d.spec?.paused) await this.ops.cleanup(oldRSs, d);
    await this.syncStatus([...oldRSs, ...(newRS ? [newRS] : [])], newRS, d);
  }

  private async scale(d: Deployment, newRS: ReplicaSet | undefined, oldRSs: ReplicaSet[]): Promise<{ newRS?: ReplicaSet; oldRSs: ReplicaSet[] }> {
    const want = replicasOf(d);
    const replace = (rs: ReplicaSet) => {
      if (newRS && rs.metadata.uid === newRS.metadata.uid) newRS = rs;
      else oldRSs = oldRSs.map((x) => (x.metadata.uid === rs.metadata.uid ? rs : x));
    };
    const all = [...oldRSs, ...(newRS ? [newRS] : [])];
    const active = all.filter((rs) => (rs.spec?.replicas ?? 0) > 0);
    // One active ReplicaSet (or none: the newest) simply takes the whole count.
    const single = active.length === 1 ? active[0] : active.length === 0 ? (newRS ?? [...oldRSs].pop()) : undefined;
    if (single || active.length <= 1) {
      // Also when the size is right: stale desired-replicas would keep this a "scaling event".
      if (single) replace((await this.ops.scale(single, want, d, (single.spec?.replicas ?? 0) < want ? 'up' : 'down')).rs);
      return { newRS, oldRSs };
    }
    const saturated = newRS && (newRS.spec?.replicas ?? 0) === want && newRS.metadata.annotations?.[desiredReplicasAnnotation] === String(want)
      && (newRS.status?.availableReplicas ?? 0) === want;
    if (saturated) {
      for (const rs of oldRSs.filter((x) => (x.spec?.replicas ?? 0) > 0)) replace((await this.ops.scaleAndRecord(rs, 0, d)).rs);
      return { newRS, oldRSs };
    }
    if (isRollingUpdate(d)) {
      const { sizes, growing } = proportionalSizes(d, active);
      for (const rs of active) replace((await this.ops.scale(rs, sizes.get(rs.metadata.name as string)!, d, growing ? 'up' : 'down')).rs);
    }
    return { newRS, oldRSs };
  }

  private async applySteps(steps: ScaleStep[], d: Deployment, oldRSs: ReplicaSet[]): Promise<ReplicaSet[]> {
    for (const s of steps) {
      const { rs } = await this.ops.scaleAndRecord(s.rs, s.to, d);
      oldRSs = oldRSs.map((x) => (x.metadata.uid === rs.metadata.uid ? rs : x));
    }
    return oldRSs;
  }

  private async rolloutRolling(d: Deployment, rsList: ReplicaSet[]): Promise<ReconcileResult | void> {
    const got = await this.ops.getAllReplicaSetsAndSyncRevision(d, rsList, true);
    let newRS = got.newRS!;
    let oldRSs = got.oldRSs;
    const want = replicasOf(d);
    // Grow (or trim) the new ReplicaSet within maxSurge.
    const cur = newRS.spec?.replicas ?? 0;
    if (cur !== want) {
      const target = cur > want ? want : newRSNewReplicas(d, [...oldRSs, newRS], newRS);
      const r = await this.ops.scaleAndRecord(newRS, target, d);
      newRS = r.rs;
      if (r.scaled) return this.syncRolloutStatus([...oldRSs, newRS], newRS, d);
    }
    // Shrink old ReplicaSets within maxUnavailable: unavailable pods first.
    if (sumSpecReplicas(oldRSs) > 0) {
      const max = maxScaledDown(d, [...oldRSs, newRS], newRS);
      if (max > 0) {
        const active = () => oldRSs.filter((rs) => (rs.spec?.replicas ?? 0) > 0);
        const cleanup = planCleanupUnhealthy(active(), max);
        oldRSs = await this.applySteps(cleanup.steps, d, oldRSs);
        const down = planScaleDownOld(d, [...oldRSs, newRS], active());
        oldRSs = await this.applySteps(down.steps, d, oldRSs);
        if (cleanup.total + down.total > 0) return this.syncRolloutStatus([...oldRSs, newRS], newRS, d);
      }
    }
    if (deploymentComplete(d, d.status ?? {})) await this.ops.cleanup(oldRSs, d);
    return this.syncRolloutStatus([...oldRSs, newRS], newRS, d);
  }

  private oldPodsRunning(newRS: ReplicaSet | undefined, oldRSs: ReplicaSet[], d: Deployment): boolean {
    if (sumStatus(oldRSs, 'replicas') > 0) return true;
    const oldUIDs = new Set(oldRSs.map((rs) => rs.metadata.uid));
    return this.podInformer.lister.list(d.metadata.namespace).some((pod) => {
      const ref = controllerRef(pod);
      if (!ref || !oldUIDs.has(ref.uid) || ref.uid === newRS?.metadata.uid) return false;
      const phase = pod.status?.phase;
      return phase !== 'Succeeded' && phase !== 'Failed';
    });
  }

  private async rolloutRecreate(d: Deployment, rsList: ReplicaSet[]): Promise<ReconcileResult | void> {
    let { newRS, oldRSs } = await this.ops.getAllReplicaSetsAndSyncRevision(d, rsList, false);
    // Everything old goes to zero first, and must be gone before anything new starts.
    let scaledDown = false;
    for (const rs of oldRSs.filter((x) => (x.spec?.replicas ?? 0) > 0)) {
      const r = await this.ops.scaleAndRecord(rs, 0, d);
      oldRSs = oldRSs.map((x) => (x.metadata.uid === r.rs.metadata.uid ? r.rs : x));
      scaledDown ||= r.scaled;
    }
    const all = () => [...oldRSs, ...(newRS ? [newRS] : [])];
    if (scaledDown || this.oldPodsRunning(newRS, oldRSs, d)) return this.syncRolloutStatus(all(), newRS, d);
    if (!newRS) ({ newRS, oldRSs } = await this.ops.getAllReplicaSetsAndSyncRevision(d, rsList, true));
    newRS = (await this.ops.scaleAndRecord(newRS!, replicasOf(d), d)).rs;
    if (deploymentComplete(d, d.status ?? {})) await this.ops.cleanup(oldRSs, d);
    return this.syncRolloutStatus(all(), newRS, d);
  }

  /** Status without touching Progressing (resizes, paused, deleting). */
  private async syncStatus(allRSs: ReplicaSet[], newRS: ReplicaSet | undefined, d: Deployment): Promise<void> {
    const status = calculateStatus(allRSs, newRS, d, this.ctx.clock.now());
    if (!sameStatus(d.status, status)) await this.ops.updateStatus(d, status);
  }

  private async syncRolloutStatus(allRSs: ReplicaSet[], newRS: ReplicaSet | undefined, d: Deployment): Promise<ReconcileResult | void> {
    const now = this.ctx.clock.now();
    const status = calculateStatus(allRSs, newRS, d, now);
    const deadline = progressDeadlineSeconds(d);
    if (deadline === undefined) removeCondition(status, 'Progressing');
    const cur = getCondition(status, 'Progressing');
    const complete = status.replicas === status.updatedReplicas && cur?.reason === reasons.newRSAvailable;
    const rsName = newRS?.metadata.name;
    if (deadline !== undefined && !complete) {
      if (deploymentComplete(d, status)) {
        const msg = rsName ? `ReplicaSet "${rsName}" has successfully progressed.` : 'Deployment has successfully progressed.';
        setCondition(status, newCondition('Progressing', 'True', reasons.newRSAvailable, msg, now));
      } else if (deploymentProgressing(d, status)) {
        const msg = rsName ? `ReplicaSet "${rsName}" is progressing.` : 'Deployment is progressing.';
        const cond: DeploymentCondition = newCondition('Progressing', 'True', reasons.rsUpdated, msg, now);
        if (cur?.status === 'True') cond.lastTransitionTime = cur.lastTransitionTime;
        removeCondition(status, 'Progressing');
        status.conditions = [...(status.conditions ?? []), cond];
      } else if (deploymentTimedOut(d, status, now)) {
        const msg = rsName ? `ReplicaSet "${rsName}" has timed out progressing.` : `Deployment "${d.metadata.name}" has timed out progressing.`;
        setCondition(status, newCondition('Progressing', 'False', reasons.timedOut, msg, now));
      }
    }
    const failing = allRSs.map((rs) => (rs.status?.conditions ?? []).find((c: DeploymentCondition) => c.type === 'ReplicaFailure' && c.status === 'True')).find(Boolean);
    if (failing) setCondition(status, newCondition('ReplicaFailure', 'True', failing.reason ?? reasons.failedCreate, failing.message ?? '', now));
    else removeCondition(status, 'ReplicaFailure');
    if (!sameStatus(d.status, status)) await this.ops.updateStatus(d, status);
    return this.requeueStuck(d, status, now);
  }

  /** Look again when the progress deadline would pass, so ProgressDeadlineExceeded is reported on time. */
  private requeueStuck(d: Deployment, status: DeploymentStatus, now: number): ReconcileResult | void {
    const deadline = progressDeadlineSeconds(d);
    const cond = getCondition(status, 'Progressing');
    if (deadline === undefined || !cond) return;
    if (deploymentComplete(d, status) || cond.reason === reasons.timedOut) return;
    const from = Date.parse(cond.lastUpdateTime ?? '');
    if (Number.isNaN(from)) return;
    const after = from + deadline * 1000 - now;
    return { requeueAfterMs: Math.max(1000, after + 1000) };
  }
}

