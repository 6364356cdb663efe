// k8s.io/api batch/v1. Of the statuses only the scalars are read: clients do not send them.
import { msg, type Messages } from '../schema.js';

export const batch: Messages = {
  Job: msg({ 1: ['metadata', 'ObjectMeta'], 2: ['spec', 'JobSpec'], 3: ['status', 'JobStatus'] }),
  JobSpec: msg({
    1: ['parallelism', '*int32'], 2: ['completions', '*int32'], 3: ['activeDeadlineSeconds', '*int64'], 11: ['podFailurePolicy', '*PodFailurePolicy'],
    16: ['successPolicy', '*SuccessPolicy'], 7: ['backoffLimit', '*int32'], 12: ['backoffLimitPerIndex', '*int32'], 13: ['maxFailedIndexes', '*int32'],
    4: ['selector', '*LabelSelector'], 5: ['manualSelector', '*bool'], 6: ['template', 'PodTemplateSpec'], 8: ['ttlSecondsAfterFinished', '*int32'],
    9: ['completionMode', '*string'], 10: ['suspend', '*bool'], 14: ['podReplacementPolicy', '*string'], 15: ['managedBy', '*string'],
  }),
  PodFailurePolicy: msg({ 1: ['rules', '[]PodFailurePolicyRule'] }),
  PodFailurePolicyRule: msg({
    1: ['action', 'string!'], 2: ['onExitCodes', '*PodFailurePolicyOnExitCodesRequirement'], 3: ['onPodConditions', '[]PodFailurePolicyOnPodConditionsPattern'],
  }),
  PodFailurePolicyOnExitCodesRequirement: msg({ 1: ['containerName', '*string'], 2: ['operator', 'string!'], 3: ['values', '[]int32'] }),
  PodFailurePolicyOnPodConditionsPattern: msg({ 1: ['type', 'string!'], 2: ['status', 'string!'] }),
  SuccessPolicy: msg({ 1: ['rules', '[]SuccessPolicyRule'] }),
  SuccessPolicyRule: msg({ 1: ['succeededIndexes', '*string'], 2: ['succeededCount', '*int32'] }),
  JobStatus: msg({
    2: ['startTime', '*Time'], 3: ['completionTime', '*Time'], 4: ['active', 'int32'], 5: ['succeeded', 'int32'], 6: ['failed', 'int32'],
    11: ['terminating', '*int32'], 7: ['completedIndexes', 'string'], 10: ['failedIndexes', '*string'], 9: ['ready', '*int32'],
  }),
  JobTemplateSpec: msg({ 1: ['metadata', 'ObjectMeta'], 2: ['spec', 'JobSpec'] }),
  CronJob: msg({ 1: ['metadata', 'ObjectMeta'], 2: ['spec', 'CronJobSpec'], 3: ['status', 'CronJobStatus'] }),
  CronJobSpec: msg({
    1: ['schedule', 'string!'], 8: ['timeZone', '*string'], 2: ['startingDeadlineSeconds', '*int64'], 3: ['concurrencyPolicy', 'string'],
    4: ['suspend', '*bool'], 5: ['jobTemplate', 'JobTemplateSpec'], 6: ['successfulJobsHistoryLimit', '*int32'], 7: ['failedJobsHistoryLimit', '*int32'],
  }),
  CronJobStatus: msg({ 1: ['active', '[]ObjectReference'], 4: ['lastScheduleTime', '*Time'], 5: ['lastSuccessfulTime', '*Time'] }),
};
