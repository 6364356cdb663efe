// Status conditions as upstream's meta.SetStatusCondition keeps them: one entry per type,
// lastTransitionTime changes only when status does, observedGeneration says which spec the
// condition speaks about.
import { rfc3339 } from '../api/time.js';

export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  observedGeneration?: number;
  lastTransitionTime?: string;
}

/** The conditions with `c` set; the input is not changed. */
export function setCondition(conditions: Condition[] | undefined, c: Omit<Condition, 'lastTransitionTime'>, now: Date): Condition[] {
  const list = [...(conditions ?? [])];
  const i = list.findIndex((x) => x.type === c.type);
  const old = i >= 0 ? list[i] : undefined;
  const next: Condition = { ...c, lastTransitionTime: old && old.status === c.status && old.lastTransitionTime ? old.lastTransitionTime : rfc3339(now) };
  if (i >= 0) list[i] = next; else list.push(next);
  return list;
}

export function findCondition(conditions: Condition[] | undefined, type: string): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}

export function isTrue(conditions: Condition[] | undefined, type: string): boolean {
  return findCondition(conditions, type)?.status === 'True';
}
