// batch/v1 Job and CronJob, with the fields of k8s.io/api at v1.32.
import { str, int32, int64, bool, obj, arr, defineType, type Schema } from '../../schema.js';
import { labelSelector, listMeta, objectMeta, timeRef } from '../../meta/v1/names.js';
import { core } from '../../core/v1/names.js';
import { batch } from './names.js';

const kindOf = (kind: string, description: string, props: Record<string, Schema>, required?: string[]) =>
  defineType(`io.k8s.api.batch.v1.${kind}`, obj({
    apiVersion: str('The versioned schema of this object, e.g. batch/v1; the server converts to it.'),
    kind: str('The type of this object in CamelCase, e.g. Job.'),
    ...props,
  }, description, { ...(required ? { required } : {}), gvk: [{ group: 'batch', version: 'v1', kind }] }));

kindOf('Job', 'Runs pods until a number of them succeed.', {
  metadata: objectMeta(),
  spec: batch('JobSpec', 'Desired behaviour of the job.'),
  status: batch('JobStatus', 'Current status of the job.'),
});
kindOf('JobList', 'A list of jobs.', { metadata: listMeta(), items: arr(batch('Job'), 'The objects in the list.') }, ['items']);
kindOf('CronJob', 'Runs a Job on a schedule.', {
  metadata: objectMeta(),
  spec: batch('CronJobSpec', 'Desired behaviour: schedule and job template.'),
  status: batch('CronJobStatus', 'Current status of the cron job.'),
});
kindOf('CronJobList', 'A list of cron jobs.', { metadata: listMeta(), items: arr(batch('CronJob'), 'The objects in the list.') }, ['items']);

defineType('io.k8s.api.batch.v1.JobSpec', obj({
  parallelism: int32('Most pods running at once; default 1.'),
  completions: int32('Successful pods needed; unset means any one success finishes a NonIndexed job.'),
  activeDeadlineSeconds: int64('Seconds the job may be active (since startTime) before it fails with DeadlineExceeded.'),
  podFailurePolicy: batch('PodFailurePolicy', 'How failed pods count toward backoffLimit.'),
  successPolicy: batch('SuccessPolicy', 'When an Indexed job is declared succeeded before all indexes succeed.'),
  backoffLimit: int32('Retries before the job is marked failed; default 6.'),
  backoffLimitPerIndex: int32('Retries per index of an Indexed job.'),
  maxFailedIndexes: int32('Failed indexes tolerated before the job fails (with backoffLimitPerIndex).'),
  selector: labelSelector('Pods counted by the job; generated unless manualSelector.'),
  manualSelector: bool('When true the selector is the user\'s; default false.'),
  template: core('PodTemplateSpec', 'Pods the job creates.'),
  ttlSecondsAfterFinished: int32('Seconds after the job finished before it is deleted.'),
  completionMode: str('NonIndexed (default) or Indexed.', { enum: ['Indexed', 'NonIndexed'] }),
  suspend: bool('While true no pods are created and running ones are deleted.'),
  podReplacementPolicy: str('When replacement pods are created: TerminatingOrFailed or Failed.', { enum: ['Failed', 'TerminatingOrFailed'] }),
  managedBy: str('The controller that syncs the job; unset is the built-in one.'),
}, 'Desired behaviour of a job.', { required: ['template'] }));

defineType('io.k8s.api.batch.v1.JobStatus', obj({
  conditions: arr(batch('JobCondition'), 'Latest observations: Suspended, FailureTarget, Failed, SuccessCriteriaMet, Complete.', { patchMergeKey: 'type', patchStrategy: 'merge', listType: 'atomic' }),
  startTime: timeRef('When the controller started working on the job.'),
  completionTime: timeRef('When the job completed.'),
  active: int32('Pending and running pods not terminating.'),
  succeeded: int32('Pods that reached Succeeded.'),
  failed: int32('Pods that reached Failed.'),
  terminating: int32('Pods terminating (deletionTimestamp set, not yet finished).'),
  completedIndexes: str('Completed indexes of an Indexed job, as intervals: "1,3-5,7".'),
  failedIndexes: str('Failed indexes of an Indexed job with backoffLimitPerIndex.'),
  uncountedTerminatedPods: batch('UncountedTerminatedPods', 'UIDs of finished pods whose finalizer is being removed.'),
  ready: int32('Active pods with a Ready condition.'),
}, 'Observed state of a job.'));

defineType('io.k8s.api.batch.v1.JobCondition', obj({
  type: str('Type of the condition.'),
  status: str('True, False or Unknown.'),
  lastProbeTime: timeRef('When the condition was last checked.'),
  lastTransitionTime: timeRef('When the status last changed.'),
  reason: str('CamelCase reason for the last transition.'),
  message: str('Human-readable detail.'),
}, 'One aspect of a job\'s state.', { required: ['type', 'status'] }));

defineType('io.k8s.api.batch.v1.UncountedTerminatedPods', obj({
  succeeded: arr(str(), 'UIDs of succeeded pods.', { listType: 'set' }),
  failed: arr(str(), 'UIDs of failed pods.', { listType: 'set' }),
}));

defineType('io.k8s.api.batch.v1.PodFailurePolicy', obj({
  rules: arr(batch('PodFailurePolicyRule'), 'Evaluated in order; the first matching rule applies.', { listType: 'atomic' }),
}, undefined, { required: ['rules'] }));

defineType('io.k8s.api.batch.v1.PodFailurePolicyRule', obj({
  action: str('FailJob, FailIndex, Ignore or Count.', { enum: ['Count', 'FailIndex', 'FailJob', 'Ignore'] }),
  onExitCodes: batch('PodFailurePolicyOnExitCodesRequirement'),
  onPodConditions: arr(batch('PodFailurePolicyOnPodConditionsPattern'), undefined, { listType: 'atomic' }),
}, undefined, { required: ['action'] }));

defineType('io.k8s.api.batch.v1.PodFailurePolicyOnExitCodesRequirement', obj({
  containerName: str('Only this container\'s exit code is checked.'),
  operator: str('In or NotIn.', { enum: ['In', 'NotIn'] }),
  values: arr(int32(), 'Exit codes; up to 255.', { listType: 'set' }),
}, undefined, { required: ['operator', 'values'] }));

defineType('io.k8s.api.batch.v1.PodFailurePolicyOnPodConditionsPattern', obj({
  type: str('Pod condition type.'),
  status: str('True, False or Unknown; default True.'),
}, undefined, { required: ['type'] }));

defineType('io.k8s.api.batch.v1.SuccessPolicy', obj({
  rules: arr(batch('SuccessPolicyRule'), 'Any rule met declares the job succeeded.', { listType: 'atomic' }),
}, undefined, { required: ['rules'] }));

defineType('io.k8s.api.batch.v1.SuccessPolicyRule', obj({
  succeededIndexes: str('Indexes that must all succeed, as intervals: "0,2-4".'),
  succeededCount: int32('How many of succeededIndexes (or of all indexes) must succeed.'),
}));

defineType('io.k8s.api.batch.v1.JobTemplateSpec', obj({
  metadata: objectMeta(),
  spec: batch('JobSpec', 'The job to create.'),
}));

defineType('io.k8s.api.batch.v1.CronJobSpec', obj({
  schedule: str('Cron schedule, e.g. "*/5 * * * *".'),
  timeZone: str('IANA time zone of the schedule; default the controller\'s.'),
  startingDeadlineSeconds: int64('Seconds after a missed time a job may still start.'),
  concurrencyPolicy: str('Allow (default), Forbid or Replace.', { enum: ['Allow', 'Forbid', 'Replace'] }),
  suspend: bool('While true no new jobs are started.'),
  jobTemplate: batch('JobTemplateSpec', 'The job created at each scheduled time.'),
  successfulJobsHistoryLimit: int32('Finished successful jobs kept; default 3.'),
  failedJobsHistoryLimit: int32('Finished failed jobs kept; default 1.'),
}, 'Desired behaviour of a cron job.', { required: ['schedule', 'jobTemplate'] }));

defineType('io.k8s.api.batch.v1.CronJobStatus', obj({
  active: arr(core('ObjectReference'), 'Running jobs.', { listType: 'atomic' }),
  lastScheduleTime: timeRef('When a job was last scheduled.'),
  lastSuccessfulTime: timeRef('When a job last completed successfully.'),
}, 'Observed state of a cron job.'));
