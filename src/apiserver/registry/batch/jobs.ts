// Jobs: a generated selector (unless manualSelector), the upstream defaults and validation of
// JobSpec, immutable template and selector, a status subresource, and kubectl's columns.
import type { Fields, KubeObject } from '../../../api/object.js';
import type { ResourceDef, TableColumn } from '../types.js';
import { ageColumn, col, humanAge, identityVersion, joinOrNone, specStrategy, statusStrategy } from '../common.js';
import { fromLabelSelector, selectorString } from '../../../api/labels.js';
import { invalidValue, type FieldError } from '../../../api/validation.js';
import { defaultJobSpec, validateJobSpec, validateJobSpecUpdate } from '../../../api/batch/job-spec.js';
import { controllerUidLabel, jobNameLabel, legacyControllerUidLabel, legacyJobNameLabel } from '../../../api/batch/well-known.js';

/** SetDefaults_Job: the spec's defaults, and the Job's labels from its template when it has none. */
export function defaultJob(o: KubeObject): void {
  o.spec ??= {};
  defaultJobSpec(o.spec);
  const tmplLabels = o.spec.template?.metadata?.labels;
  if (tmplLabels && !Object.keys(o.metadata.labels ?? {}).length) o.metadata.labels = { ...tmplLabels };
}

/**
 * generateSelector: the template carries job-name and controller-uid labels (both spellings),
 * and the selector matches the uid. A Job whose labels were copied from its template gets
 * the generated labels too, as upstream's shared label map gives it.
 */
function generateSelector(o: KubeObject): void {
  const spec = o.spec;
  if (!spec?.template) return;
  const tmplMeta = (spec.template.metadata ??= {});
  const shared = tmplMeta.labels !== undefined && JSON.stringify(o.metadata.labels ?? null) === JSON.stringify(tmplMeta.labels);
  const labels: Record<string, string> = (tmplMeta.labels ??= {});
  for (const k of [legacyJobNameLabel, jobNameLabel]) labels[k] ??= String(o.metadata.name);
  for (const k of [legacyControllerUidLabel, controllerUidLabel]) labels[k] ??= String(o.metadata.uid);
  spec.selector ??= {};
  spec.selector.matchLabels ??= {};
  spec.selector.matchLabels[controllerUidLabel] ??= String(o.metadata.uid);
  if (shared) o.metadata.labels = { ...labels };
}

/** ValidateGeneratedSelector: a selector the user did not ask to manage must be the generated one. */
function validateGeneratedSelector(o: KubeObject): FieldError[] {
  const spec = o.spec ?? {};
  if (spec.manualSelector === true) return [];
  const uid = String(o.metadata.uid);
  const errs: FieldError[] = [];
  if (spec.selector?.matchLabels?.[controllerUidLabel] !== uid) errs.push(invalidValue('spec.selector', spec.selector ?? null, '`selector` not auto-generated'));
  const labels = spec.template?.metadata?.labels ?? {};
  if (labels[controllerUidLabel] !== undefined && labels[controllerUidLabel] !== uid) errs.push(invalidValue(`spec.template.metadata.labels[${controllerUidLabel}]`, labels[controllerUidLabel], `must be '${uid}'`));
  if (labels[jobNameLabel] !== undefined && labels[jobNameLabel] !== o.metadata.name) errs.push(invalidValue(`spec.template.metadata.labels[${jobNameLabel}]`, labels[jobNameLabel], `must be '${o.metadata.name}'`));
  return errs;
}

function validateJob(o: KubeObject): FieldError[] {
  return [...validateGeneratedSelector(o), ...validateJobSpec(o.spec, 'spec', { selectorRequired: true })];
}

function validateJobStatus(o: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const s: Fields = o.status ?? {};
  for (const f of ['active', 'succeeded', 'failed', 'ready', 'terminating']) {
    if (s[f] != null && (!Number.isInteger(s[f]) || s[f] < 0)) errs.push(invalidValue(`status.${f}`, s[f], 'must be greater than or equal to 0'));
  }
  return errs;
}

const hasCondition = (o: KubeObject, type: string) => (o.status?.conditions ?? []).some((c: Fields) => c.type === type && c.status === 'True');

/** printJob's STATUS: what the Job came to, else Terminating/Suspended/…, else Running. */
export function jobStatusText(o: KubeObject): string {
  if (hasCondition(o, 'Complete')) return 'Complete';
  if (hasCondition(o, 'Failed')) return 'Failed';
  if (o.metadata.deletionTimestamp) return 'Terminating';
  for (const t of ['Suspended', 'FailureTarget', 'SuccessCriteriaMet']) if (hasCondition(o, t)) return t;
  return 'Running';
}

function completionsText(o: KubeObject): string {
  const done = o.status?.succeeded ?? 0;
  if (o.spec?.completions != null) return `${done}/${o.spec.completions}`;
  const p = o.spec?.parallelism ?? 0;
  return p > 1 ? `${done}/1 of ${p}` : `${done}/1`;
}

function durationText(o: KubeObject, now: Date): string {
  const start = o.status?.startTime;
  if (!start) return '';
  const end = o.status?.completionTime;
  return humanAge(start, end ? new Date(end) : now);
}

const selectorText = (o: KubeObject): string => {
  try { return selectorString(fromLabelSelector(o.spec?.selector) ?? []) || '<none>'; } catch { return '<none>'; }
};

/** The wide columns every pod-template owner prints (for a CronJob, of its job template). */
export function templateColumns(spec: (o: KubeObject) => Fields | undefined): TableColumn[] {
  return [
    col('Containers', 'Names of each container in the template.', (o) => joinOrNone((spec(o)?.template?.spec?.containers ?? []).map((c: Fields) => c.name)), 1),
    col('Images', 'Images referenced by each container in the template.', (o) => joinOrNone((spec(o)?.template?.spec?.containers ?? []).map((c: Fields) => c.image)), 1),
    col('Selector', 'A label query over pods that should match the pod count.', (o) => selectorText({ ...o, spec: spec(o) }), 1),
  ];
}

export const jobs: ResourceDef = {
  group: 'batch', resource: 'jobs', singular: 'job', kind: 'Job', listKind: 'JobList', namespaced: true,
  categories: ['all'],
  versions: [identityVersion('v1', 'io.k8s.api.batch.v1.Job', defaultJob)],
  storageVersion: 'v1',
  strategy: specStrategy({
    initialStatus: () => ({}),
    prepareForCreate: (o) => { if (o.spec?.manualSelector !== true) generateSelector(o); },
    defaults: defaultJob,
    validate: validateJob,
    validateUpdate: (o, old) => validateJobSpecUpdate(o.spec ?? {}, old.spec ?? {}, 'spec'),
  }),
  statusStrategy: statusStrategy(validateJobStatus),
  columns: [
    col('Status', 'Status of the job.', jobStatusText),
    col('Completions', 'The completion status of the job.', completionsText),
    col('Duration', 'Time required to complete the job.', durationText),
    ageColumn,
    ...templateColumns((o) => o.spec),
  ],
};
