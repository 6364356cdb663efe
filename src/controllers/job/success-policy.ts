// spec.successPolicy of an Indexed Job: the first rule whose indexes (all, or succeededCount
// of them) have succeeded declares the Job successful (upstream's matchSuccessPolicy).
import type { SuccessPolicy } from 'kubernetes-types/batch/v1.js';
import { parseIndexes } from '../../api/batch/indexes.js';

/** The index of the first rule met, or undefined. */
export function successPolicyMatch(policy: SuccessPolicy | undefined, completed: Set<number>): number | undefined {
  for (const [i, rule] of (policy?.rules ?? []).entries()) {
    const scope = rule.succeededIndexes != null ? parseIndexes(rule.succeededIndexes) : undefined;
    const done = scope ? scope.filter((x) => completed.has(x)).length : completed.size;
    const need = rule.succeededCount ?? scope?.length ?? Infinity;
    if (done >= need) return i;
  }
  return undefined;
}
