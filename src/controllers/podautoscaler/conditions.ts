// HPA status conditions: set one, keeping its lastTransitionTime unless its status changes.
import type { HorizontalPodAutoscalerCondition } from 'kubernetes-types/autoscaling/v2.js';

export type ConditionType = 'AbleToScale' | 'ScalingActive' | 'ScalingLimited';

export function setCondition(conditions: HorizontalPodAutoscalerCondition[], type: ConditionType, status: 'True' | 'False', reason: string, message: string, now: number): HorizontalPodAutoscalerCondition[] {
  const old = conditions.find((c) => c.type === type);
  const lastTransitionTime = old && old.status === status && old.lastTransitionTime ? old.lastTransitionTime : new Date(now).toISOString().replace(/\.\d+Z$/, 'Z');
  const next = { type, status, lastTransitionTime, reason, message };
  return old ? conditions.map((c) => (c === old ? next : c)) : [...conditions, next];
}
