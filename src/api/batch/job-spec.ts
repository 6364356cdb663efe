// Defaults and validation of a JobSpec, after k8s.io/kubernetes pkg/apis/batch (v1 defaults,
// ValidateJobSpec): shared by Jobs and by the jobTemplate of CronJobs.
import type { Fields } from '../object.js';
import { defaultPodSpec } from '../core/pod-defaults.js';
import { validatePodSpec } from '../core/pod-validation.js';
import { fromLabelSelector, matches, SelectorParseError } from '../labels.js';
import { forbiddenField, invalidValue, notSupported, required, validateNonNegative, type FieldError } from '../validation.js';
import { indexesError } from './indexes.js';

export const maxInt32 = 2147483647;
/** Upstream's cap on completions and parallelism of Indexed Jobs (for status size). */
const maxIndexedCompletions = 100_000;

/** SetDefaults_Job's spec part (labels are the Job's own business). */
export function defaultJobSpec(spec: Fields | undefined): void {
  if (!spec) return;
  if (spec.completions == null && spec.parallelism == null) {
    spec.completions = 1;
    spec.parallelism = 1;
  }
  spec.parallelism ??= 1;
  spec.backoffLimit ??= spec.backoffLimitPerIndex != null ? maxInt32 : 6;
  spec.completionMode ??= 'NonIndexed';
  spec.suspend ??= false;
  for (const rule of spec.podFailurePolicy?.rules ?? []) for (const p of rule.onPodConditions ?? []) p.status ??= 'True';
  spec.podReplacementPolicy ??= spec.podFailurePolicy ? 'Failed' : 'TerminatingOrFailed';
  defaultPodSpec(spec.template?.spec);
}

const actions = ['Count', 'FailIndex', 'FailJob', 'Ignore'];

function validatePodFailurePolicy(spec: Fields, base: string): FieldError[] {
  const errs: FieldError[] = [];
  const policy = spec.podFailurePolicy;
  if (!policy) return errs;
  const restart = spec.template?.spec?.restartPolicy;
  if (restart !== 'Never') errs.push(invalidValue(`${base}.template.spec.restartPolicy`, restart, 'only "Never" is supported when podFailurePolicy is specified'));
  (policy.rules ?? []).forEach((r: Fields, i: number) => {
    const p = `${base}.podFailurePolicy.rules[${i}]`;
    if (!actions.includes(r.action)) errs.push(notSupported(`${p}.action`, r.action, actions));
    if (r.action === 'FailIndex' && spec.backoffLimitPerIndex == null) errs.push(forbiddenField(`${p}.action`, 'requires the backoffLimitPerIndex to be set'));
    const hasCodes = !!r.onExitCodes, hasConds = Array.isArray(r.onPodConditions) && r.onPodConditions.length > 0;
    if (hasCodes === hasConds) errs.push(invalidValue(p, r, 'specifying one of OnExitCodes and OnPodConditions is required'));
    if (r.onExitCodes) {
      const c = r.onExitCodes;
      if (!['In', 'NotIn'].includes(c.operator)) errs.push(notSupported(`${p}.onExitCodes.operator`, c.operator, ['In', 'NotIn']));
      const values: unknown[] = c.values ?? [];
      if (!values.length) errs.push(required(`${p}.onExitCodes.values`, 'at least one value is required'));
      values.forEach((v, j) => {
        if (c.operator === 'In' && v === 0) errs.push(invalidValue(`${p}.onExitCodes.values[${j}]`, v, 'must not be 0 for the In operator'));
        if (j > 0 && typeof v === 'number' && v <= (values[j - 1] as number)) errs.push(invalidValue(`${p}.onExitCodes.values[${j}]`, v, 'must be ordered'));
      });
    }
    (r.onPodConditions ?? []).forEach((c: Fields, j: number) => {
      if (!c.type) errs.push(required(`${p}.onPodConditions[${j}].type`));
      if (!['True', 'False', 'Unknown'].includes(c.status)) errs.push(notSupported(`${p}.onPodConditions[${j}].status`, c.status, ['False', 'True', 'Unknown']));
    });
  });
  return errs;
}

function validateSuccessPolicy(spec: Fields, base: string): FieldError[] {
  const policy = spec.successPolicy;
  if (!policy) return [];
  const p = `${base}.successPolicy`;
  if (spec.completionMode !== 'Indexed') return [invalidValue(p, policy, 'requires indexed completion mode')];
  const errs: FieldError[] = [];
  const rules: Fields[] = policy.rules ?? [];
  if (!rules.length) errs.push(required(`${p}.rules`, 'at least one rules must be specified when the successPolicy is specified'));
  rules.forEach((r, i) => {
    const rp = `${p}.rules[${i}]`;
    if (r.succeededIndexes == null && r.succeededCount == null) errs.push(required(rp, 'at least one of succeededCount or succeededIndexes must be specified'));
    let total = spec.completions ?? 0;
    if (r.succeededIndexes != null) {
      const e = indexesError(String(r.succeededIndexes), spec.completions ?? 0);
      if (e) errs.push(invalidValue(`${rp}.succeededIndexes`, r.succeededIndexes, `error parsing succeededIndexes: ${e}`));
      else total = String(r.succeededIndexes).split(',').reduce((n, part) => { const [a, b] = part.split('-').map(Number); return n + (b === undefined ? 1 : b - a + 1); }, 0);
    }
    if (r.succeededCount != null) {
      if (r.succeededCount < 0) errs.push(invalidValue(`${rp}.succeededCount`, r.succeededCount, 'must be greater than or equal to 0'));
      else if (r.succeededCount > total) errs.push(invalidValue(`${rp}.succeededCount`, r.succeededCount, `must be less than or equal to ${total} (the number of ${r.succeededIndexes != null ? 'specified indexes' : 'indexes'})`));
    }
  });
  return errs;
}

/** ValidateJobSpec: counts, selector against template labels, the pod template, policies. */
export function validateJobSpec(spec: Fields | undefined, base: string, opts: { selectorRequired: boolean }): FieldError[] {
  if (!spec) return [required(base)];
  const errs: FieldError[] = [];
  for (const f of ['parallelism', 'completions', 'activeDeadlineSeconds', 'backoffLimit', 'ttlSecondsAfterFinished', 'backoffLimitPerIndex', 'maxFailedIndexes']) {
    errs.push(...validateNonNegative(spec[f], `${base}.${f}`));
  }
  const modes = ['NonIndexed', 'Indexed'];
  if (spec.completionMode != null && !modes.includes(spec.completionMode)) errs.push(notSupported(`${base}.completionMode`, spec.completionMode, modes));
  if (spec.completionMode === 'Indexed') {
    if (spec.completions == null) errs.push(required(`${base}.completions`, 'when completion mode is Indexed'));
    else if (spec.completions > maxIndexedCompletions && spec.backoffLimitPerIndex != null) errs.push(invalidValue(`${base}.completions`, spec.completions, `must be less than or equal to ${maxIndexedCompletions} when backoffLimitPerIndex is specified`));
    if (spec.parallelism > maxIndexedCompletions) errs.push(invalidValue(`${base}.parallelism`, spec.parallelism, `must be less than or equal to ${maxIndexedCompletions} when completion mode is Indexed`));
  }
  if (spec.backoffLimitPerIndex != null && spec.completionMode !== 'Indexed') errs.push(forbiddenField(`${base}.backoffLimitPerIndex`, 'requires indexed completion mode'));
  if (spec.maxFailedIndexes != null) {
    if (spec.backoffLimitPerIndex == null) errs.push(required(`${base}.backoffLimitPerIndex`, 'when maxFailedIndexes is specified'));
    else if (spec.completions != null && spec.maxFailedIndexes > spec.completions) errs.push(invalidValue(`${base}.maxFailedIndexes`, spec.maxFailedIndexes, 'must be less than or equal to completions'));
  }
  const policies = ['Failed', 'TerminatingOrFailed'];
  if (spec.podReplacementPolicy != null && !policies.includes(spec.podReplacementPolicy)) errs.push(notSupported(`${base}.podReplacementPolicy`, spec.podReplacementPolicy, policies));
  if (spec.podReplacementPolicy === 'TerminatingOrFailed' && spec.podFailurePolicy) errs.push(notSupported(`${base}.podReplacementPolicy`, spec.podReplacementPolicy, ['Failed']));
  let selector = null;
  if (!spec.selector) {
    if (opts.selectorRequired) errs.push(required(`${base}.selector`));
  } else {
    try { selector = fromLabelSelector(spec.selector); } catch (e) {
      if (e instanceof SelectorParseError) errs.push(invalidValue(`${base}.selector`, spec.selector, e.message));
    }
  }
  const tmpl = spec.template;
  if (!tmpl) errs.push(required(`${base}.template`));
  else {
    if (selector && selector.length && !matches(selector, tmpl.metadata?.labels)) {
      errs.push(invalidValue(`${base}.template.metadata.labels`, tmpl.metadata?.labels ?? {}, '`selector` does not match template `labels`'));
    }
    errs.push(...validatePodSpec(tmpl.spec, `${base}.template.spec`));
    const restart = tmpl.spec?.restartPolicy;
    if (restart !== 'OnFailure' && restart !== 'Never') {
      errs.push(restart ? notSupported(`${base}.template.spec.restartPolicy`, restart, ['OnFailure', 'Never']) : required(`${base}.template.spec.restartPolicy`));
    }
  }
  errs.push(...validatePodFailurePolicy(spec, base));
  errs.push(...validateSuccessPolicy(spec, base));
  return errs;
}

/** ValidateJobSpecUpdate: what a running Job may not change. */
export function validateJobSpecUpdate(spec: Fields, old: Fields, base: string): FieldError[] {
  const errs: FieldError[] = [];
  const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
  for (const f of ['selector', 'completionMode', 'podFailurePolicy', 'successPolicy', 'backoffLimitPerIndex', 'manualSelector']) {
    if (!same(spec[f], old[f])) errs.push(invalidValue(`${base}.${f}`, spec[f] ?? null, 'field is immutable'));
  }
  // Elastic Indexed Jobs may change completions together with parallelism.
  const elastic = spec.completionMode === 'Indexed' && spec.completions === spec.parallelism && old.completions === old.parallelism;
  if (!same(spec.completions, old.completions) && !elastic) errs.push(invalidValue(`${base}.completions`, spec.completions ?? null, 'field is immutable'));
  if (!same(spec.template, old.template)) errs.push(invalidValue(`${base}.template`, spec.template, 'field is immutable'));
  return errs;
}
