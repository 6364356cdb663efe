// The ReplicaSet side of a Deployment: finding or creating the new ReplicaSet and keeping
// the revision annotations in step, scaling with events, and cleaning up old revisions.
import type { KubeObject } from '../../api/object.js';
import { isAlreadyExists, isNotFound, type EventRecorder, type ResourceAPI } from '../../client/index.js';
import { controllerRef, newControllerRef } from '../replicaset/index.js';
import { podTemplateHash } from './hash.js';
import { newRSNewReplicas } from './rolling.js';
import { getCondition, newCondition, reasons, setCondition, type DeploymentStatus } from './status.js';
import {
  byRevision, equalIgnoreHash, maxRevision, maxSurge, podTemplateHashLabel, progressDeadlineSeconds, replicasOf,
  revisionAnnotation, revisionHistoryLimit, setNewReplicaSetAnnotations, setReplicasAnnotations, splitNewAndOld,
} from './util.js';

export function asDeployment(d: KubeObject): KubeObject {
  return { ...d, apiVersion: 'apps/v1', kind: 'Deployment' };
}

/** I/O on behalf of one reconcile; `d` is a private working copy kept at the latest resourceVersion. */
export class ReplicaSetOps {
  constructor(
    private rsAPI: ResourceAPI, private dAPI: ResourceAPI, private recorder: EventRecorder,
    private now: () => number,
  ) {}

  async updateStatus(d: KubeObject, status: DeploymentStatus): Promise<void> {
    const out = await this.dAPI.updateStatus({ ...d, status });
    d.metadata.resourceVersion = out.metadata.resourceVersion;
    d.status = out.status;
  }

  /** Records `rev` in the Deployment's revision annotation (kubectl rollout history/undo read the ReplicaSets'). */
  private async setDeploymentRevision(d: KubeObject, rev: string): Promise<void> {
    if (d.metadata.annotations?.[revisionAnnotation] === rev) return;
    const out = await this.dAPI.patch(d.metadata.namespace, d.metadata.name as string, 'merge', { metadata: { annotations: { [revisionAnnotation]: rev } } });
    d.metadata.annotations = { ...(d.metadata.annotations ?? {}), [revisionAnnotation]: rev };
    d.metadata.resourceVersion = out.metadata.resourceVersion;
  }

  /**
   * The new ReplicaSet (created when `create` and missing) and the old ones, with the new
   * one's revision above every old one and the Deployment annotated with it.
   */
  async getAllReplicaSetsAndSyncRevision(d: KubeObject, rsList: KubeObject[], create: boolean): Promise<{ newRS?: KubeObject; oldRSs: KubeObject[] }> {
    const { newRS: existing, oldRSs } = splitNewAndOld(d, rsList);
    const newRevision = maxRevision(oldRSs) + 1;
    const hasDeadline = progressDeadlineSeconds(d) !== undefined;
    if (existing) {
      const copy = structuredClone(existing) as KubeObject;
      const annotationsChanged = setNewReplicaSetAnnotations(d, copy, newRevision, true);
      const minReady = d.spec?.minReadySeconds ?? 0;
      if (annotationsChanged || (copy.spec?.minReadySeconds ?? 0) !== minReady) {
        copy.spec = { ...copy.spec, minReadySeconds: minReady };
        return { newRS: await this.rsAPI.update(copy), oldRSs };
      }
      await this.setDeploymentRevision(d, copy.metadata.annotations?.[revisionAnnotation] ?? String(newRevision));
      if (hasDeadline && !getCondition(d.status, 'Progressing')) {
        const status = structuredClone(d.status ?? {}) as DeploymentStatus;
        setCondition(status, newCondition('Progressing', 'True', reasons.foundNewRS, `Found new replica set "${copy.metadata.name}"`, this.now()));
        await this.updateStatus(d, status);
      }
      return { newRS: copy, oldRSs };
    }
    if (!create) return { oldRSs };

    const hash = podTemplateHash(d.spec?.template, d.status?.collisionCount);
    const template = structuredClone(d.spec?.template ?? {}) as KubeObject;
    template.metadata = { ...(template.metadata ?? {}), labels: { ...(template.metadata?.labels ?? {}), [podTemplateHashLabel]: hash } };
    const selector = structuredClone(d.spec?.selector ?? {});
    selector.matchLabels = { ...(selector.matchLabels ?? {}), [podTemplateHashLabel]: hash };
    const name = `${d.metadata.name}-${hash}`;
    const rs: KubeObject = {
      metadata: { name, namespace: d.metadata.namespace, labels: { ...template.metadata.labels }, ownerReferences: [newControllerRef(d, 'apps/v1', 'Deployment')] },
      spec: { replicas: 0, minReadySeconds: d.spec?.minReadySeconds ?? 0, selector, template },
    };
    setNewReplicaSetAnnotations(d, rs, newRevision, false);
    rs.spec.replicas = newRSNewReplicas(d, [...oldRSs, rs], rs);
    let created: KubeObject;
    try {
      created = await this.rsAPI.create(d.metadata.namespace, rs);
    } catch (e) {
      if (!isAlreadyExists(e)) {
        this.recorder.event(asDeployment(d), 'Warning', reasons.failedCreate, `Failed to create new replica set "${name}": ${(e as Error).message}`);
        if (hasDeadline) {
          const status = structuredClone(d.status ?? {}) as DeploymentStatus;
          setCondition(status, newCondition('ReplicaFailure', 'True', reasons.failedCreate, (e as Error).message, this.now()));
          await this.updateStatus(d, status).catch(() => undefined); // the create error below is what counts: the retry writes the condition again
        }
        throw e;
      }
      const found = await this.rsAPI.get(d.metadata.namespace, name);
      // Our own earlier create, not yet in the cache: use it.
      if (controllerRef(found)?.uid === d.metadata.uid && equalIgnoreHash(found.spec?.template, d.spec?.template)) return { newRS: found, oldRSs };
      // A different ReplicaSet holds the name: bump collisionCount so the next hash differs.
      const status = structuredClone(d.status ?? {}) as DeploymentStatus;
      status.collisionCount = (status.collisionCount ?? 0) + 1;
      await this.updateStatus(d, status);
      throw new Error(`hash collision for replica set "${name}", collisionCount now ${status.collisionCount}`);
    }
    if ((created.spec?.replicas ?? 0) > 0) {
      this.recorder.event(asDeployment(d), 'Normal', 'ScalingReplicaSet', `Scaled up replica set ${name} to ${created.spec.replicas}`);
    }
    await this.setDeploymentRevision(d, String(newRevision));
    if (hasDeadline) {
      const status = structuredClone(d.status ?? {}) as DeploymentStatus;
      setCondition(status, newCondition('Progressing', 'True', reasons.newRSCreated, `Created new replica set "${name}"`, this.now()));
      await this.updateStatus(d, status);
    }
    return { newRS: created, oldRSs };
  }

  /** Scales `rs` to `to` (also refreshing its replica annotations); a no-op when already there. */
  async scaleAndRecord(rs: KubeObject, to: number, d: KubeObject): Promise<{ scaled: boolean; rs: KubeObject }> {
    const cur = rs.spec?.replicas ?? 0;
    if (cur === to) return { scaled: false, rs };
    return this.scale(rs, to, d, cur < to ? 'up' : 'down');
  }

  async scale(rs: KubeObject, to: number, d: KubeObject, op: 'up' | 'down'): Promise<{ scaled: boolean; rs: KubeObject }> {
    const copy = structuredClone(rs) as KubeObject;
    const sizeChanged = (copy.spec?.replicas ?? 0) !== to;
    const annotationsChanged = setReplicasAnnotations(copy, replicasOf(d), replicasOf(d) + maxSurge(d));
    if (!sizeChanged && !annotationsChanged) return { scaled: false, rs };
    copy.spec = { ...copy.spec, replicas: to };
    const updated = await this.rsAPI.update(copy);
    if (sizeChanged) this.recorder.event(asDeployment(d), 'Normal', 'ScalingReplicaSet', `Scaled ${op} replica set ${rs.metadata.name} to ${to}`);
    return { scaled: sizeChanged, rs: updated };
  }

  /** Deletes the oldest fully scaled-down ReplicaSets beyond revisionHistoryLimit. */
  async cleanup(oldRSs: KubeObject[], d: KubeObject): Promise<void> {
    const alive = oldRSs.filter((rs) => !rs.metadata.deletionTimestamp).sort(byRevision);
    const diff = alive.length - revisionHistoryLimit(d);
    for (let i = 0; i < diff; i++) {
      const rs = alive[i];
      if ((rs.status?.replicas ?? 0) !== 0 || (rs.spec?.replicas ?? 0) !== 0) continue;
      if ((rs.metadata.generation ?? 0) > (rs.status?.observedGeneration ?? 0)) continue;
      try {
        await this.rsAPI.delete(rs.metadata.namespace, rs.metadata.name as string, { preconditions: { uid: rs.metadata.uid } });
      } catch (e) {
        if (!isNotFound(e)) throw e;
      }
    }
  }
}
