// A StatefulSet's status from its pods and revisions, after upstream's computeReplicaStatus and
// completeRollingUpdate: once every pod runs the update revision and is ready, it becomes the
// current revision.
import { isDeepStrictEqual } from 'node:util';
import type { Pod, StatefulSet } from '../../api/kinds.js';
import { podRevision } from './identity.js';
import { isCreated, isRunningAndAvailable, isRunningAndReady, isTerminating } from './pods.js';

export type StatefulSetStatus = NonNullable<StatefulSet['status']>;

export function computeStatus(set: StatefulSet, pods: Pod[], current: string, update: string, collisionCount: number, now: number): StatefulSetStatus {
  const minReady = set.spec?.minReadySeconds ?? 0;
  const s: StatefulSetStatus = {
    observedGeneration: set.metadata.generation, replicas: 0, readyReplicas: 0, availableReplicas: 0,
    currentReplicas: 0, updatedReplicas: 0, currentRevision: current, updateRevision: update, collisionCount,
  };
  for (const p of pods) {
    if (isCreated(p)) s.replicas++;
    if (isRunningAndReady(p)) {
      s.readyReplicas!++;
      if (isRunningAndAvailable(p, minReady, now)) s.availableReplicas!++;
    }
    if (isCreated(p) && !isTerminating(p)) {
      const rev = podRevision(p);
      if (rev === current) s.currentReplicas!++;
      if (rev === update) s.updatedReplicas!++;
    }
  }
  if (set.spec?.updateStrategy?.type !== 'OnDelete' && s.updatedReplicas === s.replicas && s.readyReplicas === s.replicas) {
    s.currentRevision = update;
    s.currentReplicas = s.updatedReplicas;
  }
  if (set.status?.conditions?.length) s.conditions = set.status.conditions;
  return s;
}

export function statusChanged(set: StatefulSet, next: StatefulSetStatus): boolean {
  return !isDeepStrictEqual(JSON.parse(JSON.stringify(set.status ?? {})), JSON.parse(JSON.stringify(next)));
}
