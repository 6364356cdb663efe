// spec.podFailurePolicy: the first rule a failed pod matches decides whether its failure
// counts, is ignored, fails its index or fails the Job (upstream's matchPodFailurePolicy).
import type { Job, Pod } from '../../api/kinds.js';

export type FailureAction = 'FailJob' | 'FailIndex' | 'Ignore' | 'Count';

export interface PolicyMatch {
  action: FailureAction;
  /** For FailJob: the message of the Job's failure condition. */
  message?: string;
}

interface ExitCodes { containerName?: string; operator: string; values: number[] }

function exitCodeMatch(pod: Pod, req: ExitCodes): { container: string; code: number } | undefined {
  const statuses = [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])];
  for (const s of statuses) {
    if (req.containerName && s.name !== req.containerName) continue;
    const code = s.state?.terminated?.exitCode;
    if (code === undefined || code === 0) continue;
    const inSet = req.values.includes(code);
    if (req.operator === 'In' ? inSet : !inSet) return { container: s.name, code };
  }
  return undefined;
}

/** The action for a failed pod, or undefined when no rule matches (the failure counts). */
export function matchPodFailurePolicy(job: Job, pod: Pod): PolicyMatch | undefined {
  const rules = job.spec?.podFailurePolicy?.rules ?? [];
  for (const [i, rule] of rules.entries()) {
    const action = rule.action as FailureAction;
    if (rule.onExitCodes) {
      const m = exitCodeMatch(pod, rule.onExitCodes as ExitCodes);
      if (!m) continue;
      return { action, message: `Container ${m.container} for pod ${pod.metadata.namespace}/${pod.metadata.name} failed with exit code ${m.code} matching ${action} rule at index ${i}` };
    }
    for (const pattern of rule.onPodConditions ?? []) {
      const hit = (pod.status?.conditions ?? []).some((c) => c.type === pattern.type && c.status === (pattern.status ?? 'True'));
      if (hit) return { action, message: `Pod ${pod.metadata.namespace}/${pod.metadata.name} has condition ${pattern.type} matching ${action} rule at index ${i}` };
    }
  }
  return undefined;
}
