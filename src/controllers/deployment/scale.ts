// Proportional scaling, after Kubernetes' sync.go: when a Deployment is resized in the
// middle of a rollout, the change is spread over its active ReplicaSets in proportion to
// their size (via each ReplicaSet's max-replicas annotation), the rounding leftover going
// to the largest, so the rollout's shape is kept instead of restarting it.
import { maxReplicasAnnotation, maxSurge, replicasOf, sumSpecReplicas } from './util.js';
import type { Deployment, ReplicaSet } from '../../api/kinds.js';

function size(rs: ReplicaSet): number {
  return rs.spec?.replicas ?? 0;
}

function created(rs: ReplicaSet): number {
  const t = Date.parse(rs.metadata.creationTimestamp ?? '');
  return Number.isNaN(t) ? 0 : t;
}

/** Larger first; ties: newer first when growing, older first when shrinking. */
function bySize(growing: boolean) {
  return (a: ReplicaSet, b: ReplicaSet) => size(b) - size(a) || (growing ? created(b) - created(a) : created(a) - created(b))
    || String(a.metadata.name).localeCompare(String(b.metadata.name));
}

function fraction(rs: ReplicaSet, d: Deployment): number {
  const want = replicasOf(d);
  if (want === 0) return -size(rs);
  const deploymentMax = want + maxSurge(d);
  const annotated = Number.parseInt(rs.metadata.annotations?.[maxReplicasAnnotation] ?? '', 10);
  const base = Number.isNaN(annotated) ? (d.status?.replicas ?? 0) : annotated;
  if (base === 0) return 0;
  return Math.round((size(rs) * deploymentMax) / base) - size(rs);
}

/** New sizes for the active ReplicaSets, by name; `growing` tells the scaling direction. */
export function proportionalSizes(d: Deployment, active: ReplicaSet[]): { sizes: Map<string, number>; growing: boolean } {
  const want = replicasOf(d);
  const allowed = want > 0 ? want + maxSurge(d) : 0;
  const toAdd = allowed - sumSpecReplicas(active);
  const growing = toAdd > 0;
  const sorted = [...active].sort(bySize(growing));
  const sizes = new Map<string, number>();
  let added = 0;
  for (const rs of sorted) {
    let p = 0;
    if (size(rs) > 0 && toAdd !== 0 && toAdd !== added) {
      const f = fraction(rs, d);
      const left = toAdd - added;
      p = toAdd > 0 ? Math.min(f, left) : Math.max(f, left);
    }
    sizes.set(rs.metadata.name as string, size(rs) + p);
    added += p;
  }
  if (toAdd !== 0 && sorted.length) {
    const first = sorted[0].metadata.name as string;
    sizes.set(first, Math.max(0, sizes.get(first)! + toAdd - added));
  }
  return { sizes, growing };
}
