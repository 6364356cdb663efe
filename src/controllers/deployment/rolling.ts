// The RollingUpdate arithmetic, as pure functions over ReplicaSets, after Kubernetes'
// rolling.go: the new ReplicaSet grows while total pods stay within replicas + maxSurge;
// old ReplicaSets shrink while available pods stay at least replicas - maxUnavailable,
// unhealthy (unavailable) old pods going first.
import { byCreation, isRollingUpdate, maxSurge, maxUnavailable, replicasOf, sumSpecReplicas, sumStatus } from './util.js';
import type { Deployment, ReplicaSet } from '../../api/kinds.js';

export interface ScaleStep { rs: ReplicaSet; to: number }

/** How many replicas the new ReplicaSet should have now. */
export function newRSNewReplicas(d: Deployment, allRSs: ReplicaSet[], newRS: ReplicaSet): number {
  const want = replicasOf(d);
  const cur = newRS.spec?.replicas ?? 0;
  if (!isRollingUpdate(d)) return want;
  const maxTotal = want + maxSurge(d);
  const current = sumSpecReplicas(allRSs);
  if (current >= maxTotal) return cur;
  return cur + Math.min(maxTotal - current, want - cur);
}

/** How many old replicas may go now without dropping below the minimum available. */
export function maxScaledDown(d: Deployment, allRSs: ReplicaSet[], newRS: ReplicaSet | undefined): number {
  const minAvailable = replicasOf(d) - maxUnavailable(d);
  const newUnavailable = newRS ? (newRS.spec?.replicas ?? 0) - (newRS.status?.availableReplicas ?? 0) : 0;
  return sumSpecReplicas(allRSs) - minAvailable - newUnavailable;
}

/** Scale down unavailable replicas of old ReplicaSets first (oldest first), up to `max`. */
export function planCleanupUnhealthy(oldRSs: ReplicaSet[], max: number): { steps: ScaleStep[]; total: number } {
  const steps: ScaleStep[] = [];
  let total = 0;
  for (const rs of [...oldRSs].sort(byCreation)) {
    if (total >= max) break;
    const replicas = rs.spec?.replicas ?? 0;
    const available = rs.status?.availableReplicas ?? 0;
    if (replicas === 0 || replicas <= available) continue;
    const n = Math.min(max - total, replicas - available);
    steps.push({ rs, to: replicas - n });
    total += n;
  }
  return { steps, total };
}

/** Scale down old ReplicaSets (oldest first) by as many as are available above the minimum. */
export function planScaleDownOld(d: Deployment, allRSs: ReplicaSet[], oldRSs: ReplicaSet[]): { steps: ScaleStep[]; total: number } {
  const minAvailable = replicasOf(d) - maxUnavailable(d);
  const available = sumStatus(allRSs, 'availableReplicas');
  if (available <= minAvailable) return { steps: [], total: 0 };
  const budget = available - minAvailable;
  const steps: ScaleStep[] = [];
  let total = 0;
  for (const rs of [...oldRSs].sort(byCreation)) {
    if (total >= budget) break;
    const replicas = rs.spec?.replicas ?? 0;
    if (replicas === 0) continue;
    const n = Math.min(replicas, budget - total);
    steps.push({ rs, to: replicas - n });
    total += n;
  }
  return { steps, total };
}
