// batch/v1 Job and CronJob, with the fields of k8s.io/api at v1.32.
import { str, int32, int64, bool, obj, arr, pb, defineType, type Schema } from '../../schema.js';
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
  metadata: pb(1, objectMeta()),
  spec: pb(2, batch('JobSpec', 'Desired behaviour of the job.')),
  status: pb(3, batch('JobStatus', 'Current status of the job.')),
});
kindOf('JobList', 'A list of jobs.', { metadata: listMeta(), items: arr(batch('Job'), 'The objects in the list.') }, ['items']);
kindOf('CronJob', 'Runs a Job on a schedule.', {
  metadata: pb(1, objectMeta()),
  spec: pb(2, batch('CronJobSpec', 'Desired behaviour: schedule and job template.')),
  status: pb(3, batch('CronJobStatus', 'Current status of the cron job.')),
});
kindOf('CronJobList', 'A list of cron jobs.', { metadata: listMeta(), items: arr(batch('CronJob'), 'The objects in the list.') }, ['items']);

defineType('io.k8s.api.batch.v1.JobSpec', obj({
  parallelism: pb(1, int32('Most pods running at once; default 1.'), 'keepZero'),
  completions: pb(2, int32('Successful pods needed; unset means any one success finishes a NonIndexed job.'), 'keepZero'),
  activeDeadlineSeconds: pb(3, int64('Seconds the job may be active (since startTime) before it fails with DeadlineExceeded.'), 'keepZero'),
  podFailurePolicy: pb(11, batch('PodFailurePolicy', 'How failed pods count toward backoffLimit.')),
  successPolicy: pb(16, batch('SuccessPolicy', 'When an Indexed job is declared succeeded before all indexes succeed.')),
  backoffLimit: pb(7, int32('Retries before the job is marked failed; default 6.'), 'keepZero'),
  backoffLimitPerIndex: pb(12, int32('Retries per index of an Indexed job.'), 'keepZero'),
  maxFailedIndexes: pb(13, int32('Failed indexes tolerated before the job fails (with backoffLimitPerIndex).'), 'keepZero'),
  selector: pb(4, labelSelector('Pods counted by the job; generated unless manualSelector.')),
  manualSelector: pb(5, bool('When true the selector is the user\'s; default false.'), 'keepZero'),
  template: pb(6, core('PodTemplateSpec', 'Pods the job creates.')),
  ttlSecondsAfterFinished: pb(8, int32('Seconds after the job finished before it is deleted.'), 'keepZero'),
  completionMode: pb(9, str('NonIndexed (default) or Indexed.', { enum: ['Indexed', 'NonIndexed'] }), 'keepZero'),
  suspend: pb(10, bool('While true no pods are created and running ones are deleted.'), 'keepZero'),
  podReplacementPolicy: pb(14, str('When replacement pods are created: TerminatingOrFailed or Failed.', { enum: ['Failed', 'TerminatingOrFailed'] }), 'keepZero'),
  managedBy: pb(15, str('The controller that syncs the job; unset is the built-in one.'), 'keepZero'),
}, 'Desired behaviour of a job.', { required: ['template'] }));

defineType('io.k8s.api.batch.v1.JobStatus', obj({
  conditions: pb(1, arr(batch('JobCondition'), 'Latest observations: Suspended, FailureTarget, Failed, SuccessCriteriaMet, Complete.', { patchMergeKey: 'type', patchStrategy: 'merge', listType: 'atomic' })),
  startTime: pb(2, timeRef('When the controller started working on the job.')),
  completionTime: pb(3, timeRef('When the job completed.')),
  active: pb(4, int32('Pending and running pods not terminating.')),
  succeeded: pb(5, int32('Pods that reached Succeeded.')),
  failed: pb(6, int32('Pods that reached Failed.')),
  terminating: pb(11, int32('Pods terminating (deletionTimestamp set, not yet finished).'), 'keepZero'),
  completedIndexes: pb(7, str('Completed indexes of an Indexed job, as intervals: "1,3-5,7".')),
  failedIndexes: pb(10, str('Failed indexes of an Indexed job with backoffLimitPerIndex.'), 'keepZero'),
  uncountedTerminatedPods: pb(8, batch('UncountedTerminatedPods', 'UIDs of finished pods whose finalizer is being removed.')),
  ready: pb(9, int32('Active pods with a Ready condition.'), 'keepZero'),
}, 'Observed state of a job.'));

defineType('io.k8s.api.batch.v1.JobCondition', obj({
  type: pb(1, str('Type of the condition.'), 'keepZero'),
  status: pb(2, str('True, False or Unknown.'), 'keepZero'),
  lastProbeTime: pb(3, timeRef('When the condition was last checked.')),
  lastTransitionTime: pb(4, timeRef('When the status last changed.')),
  reason: pb(5, str('CamelCase reason for the last transition.')),
  message: pb(6, str('Human-readable detail.')),
}, 'One aspect of a job\'s state.', { required: ['type', 'status'] }));

defineType('io.k8s.api.batch.v1.UncountedTerminatedPods', obj({
  succeeded: pb(1, arr(str(), 'UIDs of succeeded pods.', { listType: 'set' })),
  failed: pb(2, arr(str(), 'UIDs of failed pods.', { listType: 'set' })),
}));

defineType('io.k8s.api.batch.v1.PodFailurePolicy', obj({
  rules: pb(1, arr(batch('PodFailurePolicyRule'), 'Evaluated in order; the first matching rule applies.', { listType: 'atomic' })),
}, undefined, { required: ['rules'] }));

defineType('io.k8s.api.batch.v1.PodFailurePolicyRule', obj({
  action: pb(1, str('FailJob, FailIndex, Ignore or Count.', { enum: ['Count', 'FailIndex', 'FailJob', 'Ignore'] }), 'keepZero'),
  onExitCodes: pb(2, batch('PodFailurePolicyOnExitCodesRequirement')),
  onPodConditions: pb(3, arr(batch('PodFailurePolicyOnPodConditionsPattern'), undefined, { listType: 'atomic' })),
}, undefined, { required: ['action'] }));

defineType('io.k8s.api.batch.v1.PodFailurePolicyOnExitCodesRequirement', obj({
  containerName: pb(1, str('Only this container\'s exit code is checked.'), 'keepZero'),
  operator: pb(2, str('In or NotIn.', { enum: ['In', 'NotIn'] }), 'keepZero'),
  values: pb(3, arr(int32(), 'Exit codes; up to 255.', { listType: 'set' })),
}, undefined, { required: ['operator', 'values'] }));

defineType('io.k8s.api.batch.v1.PodFailurePolicyOnPodConditionsPattern', obj({
  type: pb(1, str('Pod condition type.'), 'keepZero'),
  status: pb(2, str('True, False or Unknown; default True.'), 'keepZero'),
}, undefined, { required: ['type'] }));

defineType('io.k8s.api.batch.v1.SuccessPolicy', obj({
  rules: pb(1, arr(batch('SuccessPolicyRule'), 'Any rule met declares the job succeeded.', { listType: 'atomic' })),
}, undefined, { required: ['rules'] }));

defineType('io.k8s.api.batch.v1.SuccessPolicyRule', obj({
  succeededIndexes: pb(1, str('Indexes that must all succeed, as intervals: "0,2-4".'), 'keepZero'),
  succeededCount: pb(2, int32('How many of succeededIndexes (or of all indexes) must succeed.'), 'keepZero'),
}));

defineType('io.k8s.api.batch.v1.JobTemplateSpec', obj({
  metadata: pb(1, objectMeta()),
  spec: pb(2, batch('JobSpec', 'The job to create.')),
}));

defineType('io.k8s.api.batch.v1.CronJobSpec', obj({
  schedule: pb(1, str('Cron schedule, e.g. "*/5 * * * *".'), 'keepZero'),
  timeZone: pb(8, str('IANA time zone of the schedule; default the controller\'s.'), 'keepZero'),
  startingDeadlineSeconds: pb(2, int64('Seconds after a missed time a job may still start.'), 'keepZero'),
  concurrencyPolicy: pb(3, str('Allow (default), Forbid or Replace.', { enum: ['Allow', 'Forbid', 'Replace'] })),
  suspend: pb(4, bool('While true no new jobs are started.'), 'keepZero'),
  jobTemplate: pb(5, batch('JobTemplateSpec', 'The job created at each scheduled time.')),
  successfulJobsHistoryLimit: pb(6, int32('Finished successful jobs kept; default 3.'), 'keepZero'),
  failedJobsHistoryLimit: pb(7, int32('Finished failed jobs kept; default 1.'), 'keepZero'),
}, 'Desired behaviour of a cron job.', { required: ['schedule', 'jobTemplate'] }));

defineType('io.k8s.api.batch.v1.CronJobStatus', obj({
  active: pb(1, arr(core('ObjectReference'), 'Running jobs.', { listType: 'atomic' })),
  lastScheduleTime: pb(4, timeRef('When a job was last scheduled.')),
  lastSuccessfulTime: pb(5, timeRef('When a job last completed successfully.')),
}, 'Observed state of a cron job.'));
