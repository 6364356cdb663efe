// Deployment status and conditions, after Kubernetes' deployment util: counts summed from the
// ReplicaSets, the Available condition from maxUnavailable, and Progressing from whether the
// rollout moved, finished, or stalled past progressDeadlineSeconds.
import { rfc3339 } from '../../api/time.js';
import { maxUnavailable, progressDeadlineSeconds, replicasOf, sumSpecReplicas, sumStatus } from './util.js';
import type { Deployment, ReplicaSet } from '../../api/kinds.js';
import type { DeploymentCondition, DeploymentStatus } from 'kubernetes-types/apps/v1.js';

export type { DeploymentCondition, DeploymentStatus };

export const reasons = {
  newRSCreated: 'NewReplicaSetCreated',
  foundNewRS: 'FoundNewReplicaSet',
  rsUpdated: 'ReplicaSetUpdated',
  newRSAvailable: 'NewReplicaSetAvailable',
  timedOut: 'ProgressDeadlineExceeded',
  paused: 'DeploymentPaused',
  resumed: 'DeploymentResumed',
  minimumAvailable: 'MinimumReplicasAvailable',
  minimumUnavailable: 'MinimumReplicasUnavailable',
  failedCreate: 'FailedCreate',
};

export function newCondition(type: string, status: 'True' | 'False' | 'Unknown', reason: string, message: string, now: number): DeploymentCondition {
  const t = rfc3339(new Date(now));
  return { type, status, lastUpdateTime: t, lastTransitionTime: t, reason, message };
}

export function getCondition(status: DeploymentStatus | undefined, type: string): DeploymentCondition | undefined {
  return status?.conditions?.find((c) => c.type === type);
}

/** Sets `cond`, keeping lastTransitionTime when the status did not flip; a no-op if status and reason are unchanged. */
export function setCondition(status: DeploymentStatus, cond: DeploymentCondition): void {
  const cur = getCondition(status, cond.type);
  if (cur && cur.status === cond.status && cur.reason === cond.reason) return;
  if (cur && cur.status === cond.status) cond = { ...cond, lastTransitionTime: cur.lastTransitionTime };
  status.conditions = [...(status.conditions ?? []).filter((c) => c.type !== cond.type), cond];
}

export function removeCondition(status: DeploymentStatus, type: string): void {
  if (!status.conditions) return;
  status.conditions = status.conditions.filter((c) => c.type !== type);
  if (!status.conditions.length) delete status.conditions;
}

export function calculateStatus(allRSs: ReplicaSet[], newRS: ReplicaSet | undefined, d: Deployment, now: number): DeploymentStatus {
  const available = sumStatus(allRSs, 'availableReplicas');
  const total = sumSpecReplicas(allRSs);
  const status: DeploymentStatus = {
    observedGeneration: d.metadata.generation,
    replicas: sumStatus(allRSs, 'replicas'),
    updatedReplicas: newRS ? sumStatus([newRS], 'replicas') : 0,
    readyReplicas: sumStatus(allRSs, 'readyReplicas'),
    availableReplicas: available,
    unavailableReplicas: Math.max(0, total - available),
  };
  if (d.status?.collisionCount !== undefined) status.collisionCount = d.status.collisionCount;
  if (d.status?.conditions?.length) status.conditions = structuredClone(d.status.conditions);
  if (available >= replicasOf(d) - maxUnavailable(d)) {
    setCondition(status, newCondition('Available', 'True', reasons.minimumAvailable, 'Deployment has minimum availability.', now));
  } else {
    setCondition(status, newCondition('Available', 'False', reasons.minimumUnavailable, 'Deployment does not have minimum availability.', now));
  }
  return status;
}

/** Every replica updated and available, and this generation observed. */
export function deploymentComplete(d: Deployment, s: DeploymentStatus): boolean {
  const want = replicasOf(d);
  return s.updatedReplicas === want && s.replicas === want && s.availableReplicas === want
    && (s.observedGeneration ?? 0) >= (d.metadata.generation ?? 0);
}

/** The rollout moved since the last status: more updated/ready/available pods, or fewer old ones. */
export function deploymentProgressing(d: Deployment, s: DeploymentStatus): boolean {
  const old = d.status ?? {};
  const oldOld = (old.replicas ?? 0) - (old.updatedReplicas ?? 0);
  const newOld = (s.replicas ?? 0) - (s.updatedReplicas ?? 0);
  return (s.updatedReplicas ?? 0) > (old.updatedReplicas ?? 0) || newOld < oldOld
    || (s.readyReplicas ?? 0) > (old.readyReplicas ?? 0) || (s.availableReplicas ?? 0) > (old.availableReplicas ?? 0);
}

/** No progress for progressDeadlineSeconds since the Progressing condition was last updated. */
export function deploymentTimedOut(d: Deployment, s: DeploymentStatus, now: number): boolean {
  const deadline = progressDeadlineSeconds(d);
  if (deadline === undefined) return false;
  const c = getCondition(s, 'Progressing');
  if (!c) return false;
  if (c.reason === reasons.newRSAvailable) return false;
  if (c.reason === reasons.timedOut) return true;
  const from = Date.parse(c.lastUpdateTime ?? '');
  return !Number.isNaN(from) && from + deadline * 1000 < now;
}

export function sameStatus(a: DeploymentStatus | undefined, b: DeploymentStatus): boolean {
  const norm = (s: DeploymentStatus | undefined) => JSON.stringify({
    observedGeneration: s?.observedGeneration, replicas: s?.replicas ?? 0, updatedReplicas: s?.updatedReplicas ?? 0,
    readyReplicas: s?.readyReplicas ?? 0, availableReplicas: s?.availableReplicas ?? 0, unavailableReplicas: s?.unavailableReplicas ?? 0,
    collisionCount: s?.collisionCount, conditions: s?.conditions ?? [],
  });
  return norm(a) === norm(b);
}
