// What the eviction subresource and the disruption controller agree on about a
// PodDisruptionBudget: which pods it covers, when a pod counts as healthy, and the
// DisruptionAllowed condition (upstream's pkg/apis/policy and pdb helpers).
import type { PodDisruptionBudget, Pod } from '../kinds.js';
import { fromLabelSelector, matches, type LabelSelector } from '../labels.js';
import { rfc3339 } from '../time.js';

export const DisruptionAllowed = 'DisruptionAllowed';
export const SufficientPods = 'SufficientPods';
export const InsufficientPods = 'InsufficientPods';
export const SyncFailed = 'SyncFailed';
/** The pod condition an eviction sets before it deletes (upstream's PodDisruptionConditions). */
export const DisruptionTarget = 'DisruptionTarget';
/** How long a pod whose eviction the budget allowed is counted as going (upstream's DeletionTimeout). */
export const DELETION_TIMEOUT_MS = 2 * 60_000;

/** policy/v1 semantics: an empty selector covers every pod of the namespace, a missing one none. */
export function budgetCovers(pdb: PodDisruptionBudget, pod: Pod): boolean {
  if (pdb.metadata.namespace !== pod.metadata.namespace) return false;
  try {
    const sel = fromLabelSelector(pdb.spec?.selector as LabelSelector | undefined);
    return sel !== null && matches(sel, pod.metadata.labels);
  } catch { // validation refuses such a selector on write
    return false;
  }
}

export function isPodReady(pod: Pod): boolean {
  return (pod.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
}

interface Condition { type: string; status: string; reason: string; message: string; observedGeneration?: number; lastTransitionTime: string }

/** meta.SetStatusCondition: the transition time moves only when the status does. */
export function setStatusCondition(conditions: Condition[], c: Omit<Condition, 'lastTransitionTime'>, now: Date): Condition[] {
  const old = conditions.find((x) => x.type === c.type);
  const lastTransitionTime = old && old.status === c.status ? old.lastTransitionTime : rfc3339(now);
  const next = { ...c, lastTransitionTime };
  return old ? conditions.map((x) => (x === old ? next : x)) : [...conditions, next];
}

/** UpdateDisruptionAllowedCondition: True/SufficientPods while disruptions are allowed, else False/InsufficientPods. */
export function withDisruptionAllowedCondition(status: NonNullable<PodDisruptionBudget['status']>, now: Date): NonNullable<PodDisruptionBudget['status']> {
  const allowed = status.disruptionsAllowed > 0;
  const conditions = setStatusCondition((status.conditions ?? []) as Condition[], {
    type: DisruptionAllowed, status: allowed ? 'True' : 'False', reason: allowed ? SufficientPods : InsufficientPods, message: '',
    ...(status.observedGeneration !== undefined ? { observedGeneration: status.observedGeneration } : {}),
  }, now);
  return { ...status, conditions };
}
