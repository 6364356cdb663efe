// CronJobs: schedule and time zone checked with the controller's cron parser, the job
// template validated as a Job's spec (its selector generated later, per Job), history-limit
// and concurrency defaults, a status subresource, and kubectl's columns.
import type { Fields, KubeObject } from '../../../api/object.js';
import type { ResourceDef } from '../types.js';
import { ageColumn, col, humanAge, identityVersion, specStrategy, statusStrategy } from '../common.js';
import { invalidValue, notSupported, required, validateNonNegative, type FieldError } from '../../../api/validation.js';
import { defaultJobSpec, validateJobSpec, validateJobSpecUpdate } from '../../../api/batch/job-spec.js';
import { isTimeZone, scheduleError } from '../../../api/batch/schedule.js';
import { templateColumns } from './jobs.js';

/** SetDefaults_CronJob, and the job template's spec defaults. */
export function defaultCronJob(o: KubeObject): void {
  const spec = (o.spec ??= {});
  spec.concurrencyPolicy ??= 'Allow';
  spec.suspend ??= false;
  spec.successfulJobsHistoryLimit ??= 3;
  spec.failedJobsHistoryLimit ??= 1;
  defaultJobSpec(spec.jobTemplate?.spec);
}

/** Job names are `<cronjob>-<minutes since epoch>` (11 characters), and must stay a DNS label. */
const maxNameLength = 52;

function validateCronJob(o: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const name = String(o.metadata.name ?? '');
  if (name.length > maxNameLength) errs.push(invalidValue('metadata.name', name, `must be no more than ${maxNameLength} characters`));
  const spec: Fields = o.spec ?? {};
  if (!spec.schedule) errs.push(required('spec.schedule'));
  else {
    const e = scheduleError(String(spec.schedule));
    if (e) errs.push(invalidValue('spec.schedule', spec.schedule, e));
  }
  if (spec.timeZone != null && !isTimeZone(String(spec.timeZone))) errs.push(invalidValue('spec.timeZone', spec.timeZone, 'unknown time zone ' + spec.timeZone));
  const policies = ['Allow', 'Forbid', 'Replace'];
  if (!policies.includes(spec.concurrencyPolicy)) errs.push(spec.concurrencyPolicy ? notSupported('spec.concurrencyPolicy', spec.concurrencyPolicy, policies) : required('spec.concurrencyPolicy'));
  for (const f of ['startingDeadlineSeconds', 'successfulJobsHistoryLimit', 'failedJobsHistoryLimit']) errs.push(...validateNonNegative(spec[f], `spec.${f}`));
  if (!spec.jobTemplate) errs.push(required('spec.jobTemplate'));
  else errs.push(...validateJobSpec(spec.jobTemplate.spec, 'spec.jobTemplate.spec', { selectorRequired: false }));
  return errs;
}

function validateCronJobUpdate(o: KubeObject, old: KubeObject): FieldError[] {
  // The template of future Jobs may change; only what a Job could never change is checked.
  const spec = o.spec?.jobTemplate?.spec, oldSpec = old.spec?.jobTemplate?.spec;
  if (!spec || !oldSpec) return [];
  return validateJobSpecUpdate(spec, oldSpec, 'spec.jobTemplate.spec').filter((e) => /\.(completionMode|manualSelector)$/.test(e.field));
}

export const cronjobs: ResourceDef = {
  group: 'batch', resource: 'cronjobs', singular: 'cronjob', kind: 'CronJob', listKind: 'CronJobList', namespaced: true,
  shortNames: ['cj'], categories: ['all'],
  versions: [identityVersion('v1', 'io.k8s.api.batch.v1.CronJob', defaultCronJob)],
  storageVersion: 'v1',
  strategy: specStrategy({ initialStatus: () => ({}), defaults: defaultCronJob, validate: validateCronJob, validateUpdate: validateCronJobUpdate }),
  statusStrategy: statusStrategy(),
  // printBoolPtr: the SUSPEND cell is the string True/False under a boolean column.
  columns: [
    col('Schedule', 'The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron.', (o) => o.spec?.schedule ?? ''),
    col('Timezone', 'The time zone name for the given schedule, see https://en.wikipedia.org/wiki/List_of_tz_database_time_zones.', (o) => o.spec?.timeZone ?? '<none>'),
    col('Suspend', 'This flag tells the controller to suspend subsequent executions.', (o) => (o.spec?.suspend == null ? '<unset>' : o.spec.suspend ? 'True' : 'False'), 0, 'boolean'),
    col('Active', 'A list of pointers to currently running jobs.', (o) => (o.status?.active ?? []).length, 0, 'integer'),
    col('Last Schedule', 'Information when was the last time the job was successfully scheduled.', (o, now) => o.status?.lastScheduleTime ? humanAge(o.status.lastScheduleTime, now) : '<none>'),
    ageColumn,
    ...templateColumns((o) => o.spec?.jobTemplate?.spec),
  ],
};
