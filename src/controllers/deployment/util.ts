// Deployment arithmetic and bookkeeping shared by the rollout strategies: defaults,
// maxSurge/maxUnavailable, revisions and the annotations that carry them, and which
// ReplicaSet is the new one.
import { isDeepStrictEqual } from 'node:util';
import type { Deployment, KindObject, ReplicaSet } from '../../api/kinds.js';
import type { PodTemplateSpec } from 'kubernetes-types/core/v1.js';

export const podTemplateHashLabel = 'pod-template-hash';
export const revisionAnnotation = 'deployment.kubernetes.io/revision';
export const revisionHistoryAnnotation = 'deployment.kubernetes.io/revision-history';
export const desiredReplicasAnnotation = 'deployment.kubernetes.io/desired-replicas';
export const maxReplicasAnnotation = 'deployment.kubernetes.io/max-replicas';
export const changeCauseAnnotation = 'kubernetes.io/change-cause';

/** Deployment annotations that are not copied to its ReplicaSets (as Kubernetes). */
const notCopied = new Set([
  'kubectl.kubernetes.io/last-applied-configuration', revisionAnnotation, revisionHistoryAnnotation,
  desiredReplicasAnnotation, maxReplicasAnnotation, 'deprecated.deployment.rollback.to',
]);

export type IntOrString = number | string;

export interface RollingParams { maxSurge: IntOrString; maxUnavailable: IntOrString }

export function replicasOf(obj: Deployment | ReplicaSet | undefined): number {
  return obj?.spec?.replicas ?? (obj ? 1 : 0);
}

export function isRollingUpdate(d: Deployment): boolean {
  return (d.spec?.strategy?.type ?? 'RollingUpdate') === 'RollingUpdate';
}

function rollingParams(d: Deployment): RollingParams {
  const ru = d.spec?.strategy?.rollingUpdate ?? {};
  return { maxSurge: ru.maxSurge ?? '25%', maxUnavailable: ru.maxUnavailable ?? '25%' };
}

export function revisionHistoryLimit(d: Deployment): number {
  return d.spec?.revisionHistoryLimit ?? 10;
}

export function progressDeadlineSeconds(d: Deployment): number | undefined {
  const s = d.spec?.progressDeadlineSeconds ?? 600;
  return s === 2147483647 ? undefined : s;
}

/** An int, or a percentage of `total` rounded up (surge) or down (unavailable). */
export function resolveIntOrPercent(v: IntOrString, total: number, roundUp: boolean): number {
  if (typeof v === 'number') return v;
  const m = /^(\d+)%$/.exec(v.trim());
  if (!m) {
    const n = Number.parseInt(v, 10);
    if (Number.isNaN(n)) throw new Error(`invalid value for IntOrString: invalid value "${v}"`);
    return n;
  }
  const exact = (Number(m[1]) * total) / 100;
  return roundUp ? Math.ceil(exact) : Math.floor(exact);
}

/** [maxSurge, maxUnavailable] for `desired` replicas; both zero would deadlock, so unavailable becomes 1. */
export function resolveFenceposts(p: RollingParams, desired: number): [number, number] {
  const surge = resolveIntOrPercent(p.maxSurge, desired, true);
  let unavailable = resolveIntOrPercent(p.maxUnavailable, desired, false);
  if (surge === 0 && unavailable === 0) unavailable = 1;
  return [surge, unavailable];
}

export function maxSurge(d: Deployment): number {
  if (!isRollingUpdate(d)) return 0;
  return resolveFenceposts(rollingParams(d), replicasOf(d))[0];
}

export function maxUnavailable(d: Deployment): number {
  const replicas = replicasOf(d);
  if (!isRollingUpdate(d) || replicas === 0) return 0;
  return Math.min(resolveFenceposts(rollingParams(d), replicas)[1], replicas);
}

export function revision(obj: KindObject | undefined): number {
  const n = Number.parseInt(obj?.metadata.annotations?.[revisionAnnotation] ?? '', 10);
  return Number.isNaN(n) ? 0 : n;
}

export function maxRevision(rss: ReplicaSet[]): number {
  return rss.reduce((m, rs) => Math.max(m, revision(rs)), 0);
}

function created(o: KindObject): number {
  const t = Date.parse(o.metadata.creationTimestamp ?? '');
  return Number.isNaN(t) ? 0 : t;
}

export function byCreation(a: KindObject, b: KindObject): number {
  return created(a) - created(b) || String(a.metadata.name).localeCompare(String(b.metadata.name));
}

/** Ascending revision, then creation: the order old ReplicaSets are cleaned up in. */
export function byRevision(a: KindObject, b: KindObject): number {
  return revision(a) - revision(b) || byCreation(a, b);
}

/**
 * A JSON value without nulls, empty objects and empty lists: what Go's zero values look like
 * either way. kubectl sends `"creationTimestamp": null` in templates (rollout undo does), and
 * the same template must compare equal with and without it.
 */
export function pruneZero(v: unknown): unknown {
  if (Array.isArray(v)) {
    const out = v.map(pruneZero).filter((x) => x !== undefined);
    return out.length ? out : undefined;
  }
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      const p = pruneZero(x);
      if (p !== undefined) out[k] = p;
    }
    return Object.keys(out).length ? out : undefined;
  }
  return v === null ? undefined : v;
}

/** Pod templates compared without the pod-template-hash label the ReplicaSet carries. */
export function equalIgnoreHash(a: PodTemplateSpec | undefined, b: PodTemplateSpec | undefined): boolean {
  const strip = (t: PodTemplateSpec | undefined) => {
    const c: PodTemplateSpec = structuredClone(t ?? {});
    if (c.metadata?.labels) delete c.metadata.labels[podTemplateHashLabel];
    return pruneZero(c);
  };
  return isDeepStrictEqual(strip(a), strip(b));
}

/** The oldest ReplicaSet whose template is the Deployment's, and all the others. */
export function splitNewAndOld(d: Deployment, rss: ReplicaSet[]): { newRS?: ReplicaSet; oldRSs: ReplicaSet[] } {
  const sorted = [...rss].sort(byCreation);
  const newRS = sorted.find((rs) => equalIgnoreHash(rs.spec?.template, d.spec?.template));
  return { newRS, oldRSs: sorted.filter((rs) => rs !== newRS) };
}

/** Copies the Deployment's annotations (except its own bookkeeping) onto `rs`; true if any changed. */
export function copyAnnotations(d: Deployment, rs: ReplicaSet): boolean {
  let changed = false;
  rs.metadata.annotations ??= {};
  for (const [k, v] of Object.entries(d.metadata.annotations ?? {})) {
    if (notCopied.has(k) || rs.metadata.annotations[k] === v) continue;
    rs.metadata.annotations[k] = v;
    changed = true;
  }
  return changed;
}

/** desired-replicas and max-replicas on `rs`; true if they changed. */
export function setReplicasAnnotations(rs: ReplicaSet, desired: number, max: number): boolean {
  const a = (rs.metadata.annotations ??= {});
  if (a[desiredReplicasAnnotation] === String(desired) && a[maxReplicasAnnotation] === String(max)) return false;
  a[desiredReplicasAnnotation] = String(desired);
  a[maxReplicasAnnotation] = String(max);
  return true;
}

/** Annotations of the new ReplicaSet: copied ones, a revision that only moves up (with history), replica counts. */
export function setNewReplicaSetAnnotations(d: Deployment, rs: ReplicaSet, newRevision: number, exists: boolean): boolean {
  let changed = copyAnnotations(d, rs);
  const a = (rs.metadata.annotations ??= {});
  const old = a[revisionAnnotation];
  const oldRev = revision(rs);
  if (oldRev < newRevision) {
    a[revisionAnnotation] = String(newRevision);
    changed = true;
    if (old) a[revisionHistoryAnnotation] = a[revisionHistoryAnnotation] ? `${a[revisionHistoryAnnotation]},${old}` : old;
  }
  if (!exists && setReplicasAnnotations(rs, replicasOf(d), replicasOf(d) + maxSurge(d))) changed = true;
  return changed;
}

export function sumSpecReplicas(rss: ReplicaSet[]): number {
  return rss.reduce((n, rs) => n + (rs.spec?.replicas ?? 0), 0);
}

export function sumStatus(rss: ReplicaSet[], field: 'replicas' | 'readyReplicas' | 'availableReplicas'): number {
  return rss.reduce((n, rs) => n + (rs.status?.[field] ?? 0), 0);
}
