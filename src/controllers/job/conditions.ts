// Job conditions with upstream's types, reasons and messages, and the small helpers the
// controller uses to read and set them.
import type { JobCondition } from 'kubernetes-types/batch/v1.js';
import { rfc3339 } from '../../api/time.js';

export const reasons = {
  backoffLimitExceeded: ['BackoffLimitExceeded', 'Job has reached the specified backoff limit'],
  deadlineExceeded: ['DeadlineExceeded', 'Job was active longer than specified deadline'],
  maxFailedIndexesExceeded: ['MaxFailedIndexesExceeded', 'Job has exceeded the specified maximal number of failed indexes'],
  failedIndexes: ['FailedIndexes', 'Job has failed indexes'],
  completionsReached: ['CompletionsReached', 'Reached expected number of succeeded pods'],
  successPolicy: ['SuccessPolicy', 'Matched rules at index'],
} as const;

export const findCondition = (conds: JobCondition[] | undefined, type: string): JobCondition | undefined => (conds ?? []).find((c) => c.type === type);
export const isTrue = (conds: JobCondition[] | undefined, type: string): boolean => findCondition(conds, type)?.status === 'True';

/** Sets a condition; the transition time moves only when the status changes. Returns whether anything changed. */
export function setCondition(conds: JobCondition[], type: string, status: 'True' | 'False', reason: string, message: string, now: number): boolean {
  const stamp = rfc3339(new Date(now));
  const old = conds.find((c) => c.type === type);
  if (old && old.status === status && old.reason === reason && old.message === message) return false;
  const next: JobCondition = { type, status, lastProbeTime: stamp, lastTransitionTime: old && old.status === status ? old.lastTransitionTime : stamp, reason, message };
  if (old) conds[conds.indexOf(old)] = next;
  else conds.push(next);
  return true;
}
