// A ReplicaSet's status from the pods it owns, and when to look again for pods that will
// become available once they have been ready for minReadySeconds.
import { rfc3339 } from '../../api/time.js';
import { isPodAvailable, isPodReady, msUntilAvailable } from './pod-util.js';
import type { Pod, ReplicaSet } from '../../api/kinds.js';

export interface Condition { type: string; status: string; reason?: string; message?: string; lastTransitionTime?: string }

export interface ReplicaSetStatus {
  replicas: number;
  fullyLabeledReplicas: number;
  readyReplicas: number;
  availableReplicas: number;
  observedGeneration?: number;
  conditions?: Condition[];
}

/** `createError` is the error from this round's pod creates, if any (→ ReplicaFailure). */
export function calculateStatus(rs: ReplicaSet, pods: Pod[], now: number, createError?: Error): { status: ReplicaSetStatus; requeueAfterMs?: number } {
  const templateLabels: Record<string, string> = rs.spec?.template?.metadata?.labels ?? {};
  const minReady = rs.spec?.minReadySeconds ?? 0;
  let fullyLabeled = 0, ready = 0, available = 0;
  let requeueAfterMs: number | undefined;
  for (const pod of pods) {
    const labels = pod.metadata.labels ?? {};
    if (Object.entries(templateLabels).every(([k, v]) => labels[k] === v)) fullyLabeled++;
    if (!isPodReady(pod)) continue;
    ready++;
    if (isPodAvailable(pod, minReady, now)) available++;
    else {
      const left = msUntilAvailable(pod, minReady, now);
      if (left !== undefined) requeueAfterMs = Math.min(requeueAfterMs ?? Infinity, left);
    }
  }
  const status: ReplicaSetStatus = {
    replicas: pods.length, fullyLabeledReplicas: fullyLabeled, readyReplicas: ready, availableReplicas: available,
    observedGeneration: rs.metadata.generation,
  };
  let conditions: Condition[] = [...(rs.status?.conditions ?? [])];
  const failure = conditions.find((c) => c.type === 'ReplicaFailure');
  if (createError) {
    const reason = 'FailedCreate';
    if (!failure || failure.status !== 'True' || failure.reason !== reason || failure.message !== createError.message) {
      conditions = conditions.filter((c) => c.type !== 'ReplicaFailure');
      conditions.push({ type: 'ReplicaFailure', status: 'True', reason, message: createError.message, lastTransitionTime: failure?.status === 'True' ? failure.lastTransitionTime : rfc3339(new Date(now)) });
    }
  } else if (failure) {
    conditions = conditions.filter((c) => c.type !== 'ReplicaFailure');
  }
  if (conditions.length) status.conditions = conditions;
  return { status, requeueAfterMs };
}

/** Whether `next` differs from what the object reports, so a status write is needed. */
export function statusChanged(rs: ReplicaSet, next: ReplicaSetStatus): boolean {
  const cur: Partial<ReplicaSet['status']> = rs.status ?? {};
  return (cur.replicas ?? 0) !== next.replicas || (cur.fullyLabeledReplicas ?? 0) !== next.fullyLabeledReplicas
    || (cur.readyReplicas ?? 0) !== next.readyReplicas || (cur.availableReplicas ?? 0) !== next.availableReplicas
    || cur.observedGeneration !== next.observedGeneration
    || JSON.stringify(cur.conditions ?? []) !== JSON.stringify(next.conditions ?? []);
}
