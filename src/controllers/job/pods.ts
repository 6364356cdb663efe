// Facts about a Job's pods: which are active, finished, ready; their completion index; the
// pods the controller makes from the template (finalizer, index annotation/label/env,
// hostname), after upstream's job controller and its indexed_job_utils.
import type { Container, EnvVar } from 'kubernetes-types/core/v1.js';
import type { Job, Pod } from '../../api/kinds.js';
import { completionIndexKey, indexFailureCountAnnotation, jobTrackingFinalizer } from '../../api/batch/well-known.js';
import { newControllerRef } from '../replicaset/index.js';

export const hasTrackingFinalizer = (p: Pod): boolean => (p.metadata.finalizers ?? []).includes(jobTrackingFinalizer);
export const isSucceeded = (p: Pod): boolean => p.status?.phase === 'Succeeded';

/**
 * isPodFailed: phase Failed; or, unless only failed pods are replaced, a pod being deleted
 * before it succeeded (an orphan may never reach Failed).
 */
export function isFailed(p: Pod, job: Job): boolean {
  if (p.status?.phase === 'Failed') return true;
  if (job.spec?.podReplacementPolicy === 'Failed') return false;
  return !!p.metadata.deletionTimestamp && p.status?.phase !== 'Succeeded';
}

export const isFinished = (p: Pod, job: Job): boolean => isSucceeded(p) || isFailed(p, job);
export const isActive = (p: Pod): boolean => !p.metadata.deletionTimestamp && !['Succeeded', 'Failed'].includes(p.status?.phase ?? '');
export const isTerminating = (p: Pod): boolean => !!p.metadata.deletionTimestamp && !['Succeeded', 'Failed'].includes(p.status?.phase ?? '');
export const isReady = (p: Pod): boolean => (p.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');

/** The completion index a pod of an Indexed Job carries, or undefined when it has none or a bad one. */
export function podIndex(p: Pod, completions: number): number | undefined {
  const raw = p.metadata.annotations?.[completionIndexKey] ?? p.metadata.labels?.[completionIndexKey];
  if (raw === undefined || !/^\d+$/.test(raw)) return undefined;
  const i = Number(raw);
  return i < completions ? i : undefined;
}

/** When the pod finished: its containers' latest finishedAt, else `fallback`. */
export function finishedAt(p: Pod, fallback: number): number {
  let t = 0;
  for (const c of p.status?.containerStatuses ?? []) {
    const f = c.state?.terminated?.finishedAt;
    if (f) t = Math.max(t, Date.parse(f));
  }
  return t || fallback;
}

const indexEnv = (): EnvVar => ({ name: 'JOB_COMPLETION_INDEX', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: `metadata.annotations['${completionIndexKey}']` } } });

function withIndexEnv(c: Container): Container {
  if ((c.env ?? []).some((e) => e.name === 'JOB_COMPLETION_INDEX')) return c;
  return { ...c, env: [...(c.env ?? []), indexEnv()] };
}

/** A new pod of `job` (and of `index` for Indexed Jobs), owned by it and tracked by its finalizer. */
export function newPod(job: Job, index?: number, indexFailures = 0): Pod {
  const tmpl = job.spec?.template ?? {};
  const meta = tmpl.metadata ?? {};
  const spec = structuredClone(tmpl.spec ?? { containers: [] });
  const name = job.metadata.name as string;
  const pod: Pod = {
    metadata: {
      generateName: index === undefined ? `${name}-` : `${name}-${index}-`,
      namespace: job.metadata.namespace,
      labels: { ...(meta.labels ?? {}) },
      annotations: { ...(meta.annotations ?? {}) },
      finalizers: [...(meta.finalizers ?? []), jobTrackingFinalizer],
      ownerReferences: [newControllerRef(job, 'batch/v1', 'Job')],
    },
    spec,
  };
  if (index !== undefined) {
    pod.metadata.annotations![completionIndexKey] = String(index);
    pod.metadata.labels![completionIndexKey] = String(index);
    if (job.spec?.backoffLimitPerIndex != null) pod.metadata.annotations![indexFailureCountAnnotation] = String(indexFailures);
    spec.hostname ??= `${name}-${index}`;
    spec.containers = spec.containers.map(withIndexEnv);
    if (spec.initContainers) spec.initContainers = spec.initContainers.map(withIndexEnv);
  }
  if (!Object.keys(pod.metadata.annotations!).length) delete pod.metadata.annotations;
  return pod;
}
