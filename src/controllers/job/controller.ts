// The Job controller, after upstream's pkg/controller/job: runs pods from spec.template until
// enough succeed (NonIndexed: a count; Indexed: every index once), counts finished pods
// exactly once through the batch.kubernetes.io/job-tracking finalizer and
// status.uncountedTerminatedPods, and ends the Job with SuccessCriteriaMet→Complete or
// FailureTarget→Failed once its pods are gone.
import type { JobStatus } from 'kubernetes-types/batch/v1.js';
import { fromLabelSelector } from '../../api/labels.js';
import { formatIndexes, parseIndexes } from '../../api/batch/indexes.js';
import { indexFailureCountAnnotation, jobTrackingFinalizer } from '../../api/batch/well-known.js';
import type { Job, Pod } from '../../api/kinds.js';
import { isConflict, isNotFound, objectKey, resources, type EventRecorder, type ResourceAPI, type SharedInformer } from '../../client/index.js';
import { QueueController, type ControllerContext, type ReconcileResult } from '../framework.js';
import { burstReplicas, claim, controllerRef, deletionOrder, Expectations, slowStartBatch } from '../replicaset/index.js';
import { findCondition, isTrue, reasons, setCondition } from './conditions.js';
import { matchPodFailurePolicy } from './failure-policy.js';
import { finishedAt, hasTrackingFinalizer, isActive, isFailed, isReady, isSucceeded, isTerminating, newPod, podIndex } from './pods.js';
import { successPolicyMatch } from './success-policy.js';

/** Pod failure backoff: 10 s doubling per failure since the last success, at most 6 minutes (as upstream). */
export const backoffBaseMs = 10_000;
export const backoffMaxMs = 360_000;

const asJob = (job: Job): Job => ({ ...job, apiVersion: 'batch/v1', kind: 'Job' });
const orphanPrefix = 'orphan-pod/';

interface Outcome { reason: string; message: string }

export class JobController extends QueueController {
  readonly expectations: Expectations;
  /** Pods whose tracking finalizer this controller removed, until its cache shows that (upstream's finalizer expectations). */
  private readonly unfinalized = new Map<string, Set<string>>();
  private readonly backoff = new Map<string, { failures: number; last: number }>();
  private readonly jobInformer: SharedInformer<Job>;
  private readonly podInformer: SharedInformer<Pod>;
  private readonly recorder: EventRecorder;
  private readonly podsAPI: ResourceAPI<Pod>;
  private readonly jobsAPI: ResourceAPI<Job>;

  constructor(ctx: ControllerContext) {
    super('job', ctx);
    this.expectations = new Expectations(ctx.clock);
    this.recorder = ctx.recorder('job-controller');
    this.podsAPI = ctx.clients.resource(resources.pods);
    this.jobsAPI = ctx.clients.resource(resources.jobs);
    this.jobInformer = ctx.informers.informerFor(resources.jobs);
    this.podInformer = ctx.informers.informerFor(resources.pods);
    this.jobInformer.addEventHandler({
      onAdd: (j) => this.enqueue(j),
      onUpdate: (_o, j) => this.enqueue(j),
      onDelete: (j) => {
        const key = objectKey(j);
        this.expectations.delete(key);
        this.unfinalized.delete(key);
        this.backoff.delete(key);
        for (const p of this.podInformer.lister.list(j.metadata.namespace)) if (controllerRef(p)?.uid === j.metadata.uid && hasTrackingFinalizer(p)) this.enqueue(orphanPrefix + objectKey(p));
      },
    });
    this.podInformer.addEventHandler({
      onAdd: (p) => this.podChanged(p, 'add'),
      onUpdate: (_o, p) => this.podChanged(p, 'update'),
      onDelete: (p) => this.podChanged(p, 'delete'),
    });
  }

  private owner(pod: Pod): Job | undefined {
    const ref = controllerRef(pod);
    if (!ref || ref.kind !== 'Job') return undefined;
    const job = this.jobInformer.lister.get(pod.metadata.namespace, ref.name);
    return job && job.metadata.uid === ref.uid ? job : undefined;
  }

  private podChanged(pod: Pod, how: 'add' | 'update' | 'delete'): void {
    const job = this.owner(pod);
    if (!job) {
      if (how !== 'delete' && hasTrackingFinalizer(pod) && controllerRef(pod)?.kind === 'Job') this.enqueue(orphanPrefix + objectKey(pod));
      return;
    }
    const key = objectKey(job);
    if (how === 'add' && !pod.metadata.deletionTimestamp) this.expectations.creationObserved(key);
    if (how === 'delete' || pod.metadata.deletionTimestamp) this.expectations.deletionObserved(key, objectKey(pod));
    if (how === 'delete' || !hasTrackingFinalizer(pod)) this.unfinalized.get(key)?.delete(pod.metadata.uid as string);
    this.enqueue(key);
  }

  async reconcile(key: string): Promise<ReconcileResult | void> {
    if (key.startsWith(orphanPrefix)) return this.releaseOrphan(key.slice(orphanPrefix.length));
    const job = this.jobInformer.lister.byKey(key);
    if (!job) {
      this.expectations.delete(key);
      return;
    }
    const managedBy = job.spec?.managedBy;
    if (managedBy && managedBy !== 'kubernetes.io/job-controller') return;
    const selector = fromLabelSelector(job.spec?.selector);
    if (!selector || !selector.length) return;
    // A finished Job, or one being deleted, holds none of its pods back.
    const finished = isTrue(job.status?.conditions, 'Complete') || isTrue(job.status?.conditions, 'Failed') || !!job.metadata.deletionTimestamp;
    const inNamespace = this.podInformer.lister.list(job.metadata.namespace);
    const pods = finished
      ? inNamespace.filter((p) => controllerRef(p)?.uid === job.metadata.uid)
      : await claim(inNamespace, {
        owner: job, ownerAPIVersion: 'batch/v1', ownerKind: 'Job', selector, api: this.podsAPI,
        adoptable: (p) => isActive(p),
        canAdopt: async () => {
          const fresh = await this.jobsAPI.get(job.metadata.namespace, job.metadata.name as string).catch((e) => { if (isNotFound(e)) return undefined; throw e; });
          return !!fresh && fresh.metadata.uid === job.metadata.uid && !fresh.metadata.deletionTimestamp;
        },
      });
    if (finished) {
      await Promise.all(pods.filter(hasTrackingFinalizer).map((p) => this.removeFinalizer(p)));
      return;
    }
    return this.sync(key, job, pods);
  }

  private async sync(key: string, job: Job, pods: Pod[]): Promise<ReconcileResult | void> {
    const now = this.ctx.clock.now();
    const spec = job.spec!;
    const indexed = spec.completionMode === 'Indexed';
    const completions = spec.completions ?? 0;
    const perIndex = indexed && spec.backoffLimitPerIndex != null;
    const status: JobStatus = structuredClone(job.status ?? {});
    const conditions = (status.conditions ??= []);
    const uncounted = { succeeded: new Set(status.uncountedTerminatedPods?.succeeded ?? []), failed: new Set(status.uncountedTerminatedPods?.failed ?? []) };
    const pending = this.unfinalized.get(key) ?? new Set<string>();
    this.unfinalized.set(key, pending);
    const completed = new Set(indexed ? parseIndexes(status.completedIndexes, completions) : []);
    const failedIndexes = new Set(perIndex ? parseIndexes(status.failedIndexes ?? '', completions) : []);
    const record = this.backoff.get(key) ?? { failures: 0, last: 0 };
    this.backoff.set(key, record);
    let failJob: Outcome | undefined;
    const release: Pod[] = [];

    // 1. Finished pods still carrying the finalizer are noted in uncountedTerminatedPods first.
    let noted = false;
    for (const pod of pods) {
      const uid = pod.metadata.uid as string;
      if (!hasTrackingFinalizer(pod) || pending.has(uid) || uncounted.succeeded.has(uid) || uncounted.failed.has(uid)) continue;
      if (isSucceeded(pod)) {
        const idx = indexed ? podIndex(pod, completions) : undefined;
        if (indexed && (idx === undefined || completed.has(idx))) { release.push(pod); continue; }
        if (idx !== undefined) completed.add(idx);
        uncounted.succeeded.add(uid);
        record.failures = 0;
        noted = true;
      } else if (isFailed(pod, job)) {
        const match = pod.status?.phase === 'Failed' ? matchPodFailurePolicy(job, pod) : undefined;
        if (match?.action === 'Ignore') { release.push(pod); continue; }
        uncounted.failed.add(uid);
        record.failures++;
        record.last = Math.max(record.last, finishedAt(pod, now));
        noted = true;
        if (match?.action === 'FailJob') failJob ??= { reason: 'PodFailurePolicy', message: match.message! };
        if (perIndex) {
          const idx = podIndex(pod, completions);
          const failures = Number(pod.metadata.annotations?.[indexFailureCountAnnotation] ?? 0) + 1;
          if (idx !== undefined && (match?.action === 'FailIndex' || failures > spec.backoffLimitPerIndex!)) failedIndexes.add(idx);
        }
      }
    }
    const writeIndexes = () => {
      if (indexed) status.completedIndexes = formatIndexes(completed);
      if (perIndex) status.failedIndexes = formatIndexes(failedIndexes);
    };
    const writeUncounted = () => {
      status.uncountedTerminatedPods = {
        ...(uncounted.succeeded.size ? { succeeded: [...uncounted.succeeded] } : {}),
        ...(uncounted.failed.size ? { failed: [...uncounted.failed] } : {}),
      };
    };
    let current = job;
    if (noted) {
      writeIndexes();
      writeUncounted();
      current = await this.writeStatus(current, status);
    }

    // 2. Then the finalizers go, and what they guarded moves to the counters.
    // The patches go out together: a wave of finished pods costs one round trip, not one each.
    const byUID = new Map(pods.map((p) => [p.metadata.uid as string, p]));
    const toRelease = [...uncounted.succeeded, ...uncounted.failed].map((uid) => byUID.get(uid))
      .filter((p): p is Pod => !!p && hasTrackingFinalizer(p) && !pending.has(p.metadata.uid as string));
    const removals = await Promise.allSettled([...toRelease, ...release].map(async (p) => { await this.removeFinalizer(p); pending.add(p.metadata.uid as string); }));
    for (const [set, field] of [[uncounted.succeeded, 'succeeded'], [uncounted.failed, 'failed']] as const) {
      for (const uid of [...set]) {
        const pod = byUID.get(uid);
        if (pod && hasTrackingFinalizer(pod) && !pending.has(uid)) continue; // its removal failed: counted next time
        set.delete(uid);
        status[field] = (status[field] ?? 0) + 1;
      }
    }
    const removalError = removals.find((r): r is PromiseRejectedResult => r.status === 'rejected')?.reason as Error | undefined;
    const succeeded = (status.succeeded ?? 0) + uncounted.succeeded.size;
    const failed = (status.failed ?? 0) + uncounted.failed.size;

    let active = pods.filter(isActive);
    const terminating = pods.filter(isTerminating).length;
    if (!status.startTime && !spec.suspend) status.startTime = new Date(now).toISOString().replace(/\.\d+Z$/, 'Z');

    // 3. Has the Job failed or succeeded?
    const failureTarget = findCondition(conditions, 'FailureTarget');
    const successTarget = findCondition(conditions, 'SuccessCriteriaMet');
    let outcome: Outcome | undefined = failureTarget?.status === 'True' ? { reason: failureTarget.reason!, message: failureTarget.message! } : undefined;
    let success: Outcome | undefined = successTarget?.status === 'True' ? { reason: successTarget.reason!, message: successTarget.message! } : undefined;
    let requeueAfterMs: number | undefined;
    if (!outcome && !success) {
      const deadlineMs = spec.activeDeadlineSeconds != null && status.startTime ? Date.parse(status.startTime) + spec.activeDeadlineSeconds * 1000 - now : undefined;
      const restarts = spec.template?.spec?.restartPolicy === 'OnFailure'
        ? active.reduce((n, p) => n + (p.status?.containerStatuses ?? []).reduce((m, c) => m + (c.restartCount ?? 0), 0), 0) : 0;
      if (failJob) outcome = failJob;
      else if (!perIndex && failed > (spec.backoffLimit ?? 6)) outcome = named(reasons.backoffLimitExceeded);
      else if (!perIndex && restarts > 0 && restarts >= (spec.backoffLimit ?? 6)) outcome = named(reasons.backoffLimitExceeded);
      else if (deadlineMs !== undefined && deadlineMs <= 0 && !spec.suspend) outcome = named(reasons.deadlineExceeded);
      else if (perIndex && spec.maxFailedIndexes != null && failedIndexes.size > spec.maxFailedIndexes) outcome = named(reasons.maxFailedIndexesExceeded);
      else if (perIndex && failedIndexes.size > 0 && completed.size + failedIndexes.size >= completions) outcome = named(reasons.failedIndexes);
      else if (deadlineMs !== undefined && !spec.suspend) requeueAfterMs = deadlineMs;
      if (!outcome) {
        const rule = indexed ? successPolicyMatch(spec.successPolicy, completed) : undefined;
        if (rule !== undefined) success = { reason: reasons.successPolicy[0], message: `${reasons.successPolicy[1]} ${rule}` };
        else if (indexed ? completed.size >= completions : spec.completions != null ? succeeded >= spec.completions : succeeded > 0 && active.length === 0) success = named(reasons.completionsReached);
      }
      if (outcome) {
        setCondition(conditions, 'FailureTarget', 'True', outcome.reason, outcome.message, now);
        this.recorder.event(asJob(job), 'Warning', outcome.reason, outcome.message);
      } else if (success) setCondition(conditions, 'SuccessCriteriaMet', 'True', success.reason, success.message, now);
    }

    let created = 0, deleted = 0;
    if (outcome || success) {
      // Whatever still runs is no longer needed; the terminal condition waits for it to go.
      deleted = await this.deletePods(key, job, active);
      active = [];
      if (terminating === 0 && deleted === 0 && !uncounted.succeeded.size && !uncounted.failed.size) {
        if (outcome) setCondition(conditions, 'Failed', 'True', outcome.reason, outcome.message, now);
        else {
          setCondition(conditions, 'Complete', 'True', success!.reason, success!.message, now);
          status.completionTime = new Date(now).toISOString().replace(/\.\d+Z$/, 'Z');
          this.recorder.event(asJob(job), 'Normal', 'Completed', 'Job completed');
        }
      }
    } else if (spec.suspend) {
      deleted = await this.deletePods(key, job, active);
      active = [];
      if (setCondition(conditions, 'Suspended', 'True', 'JobSuspended', 'Job suspended', now)) this.recorder.event(asJob(job), 'Normal', 'Suspended', 'Job suspended');
    } else {
      if (isTrue(conditions, 'Suspended')) {
        setCondition(conditions, 'Suspended', 'False', 'JobResumed', 'Job resumed', now);
        this.recorder.event(asJob(job), 'Normal', 'Resumed', 'Job resumed');
        status.startTime = new Date(now).toISOString().replace(/\.\d+Z$/, 'Z');
      }
      if (this.expectations.satisfied(key)) {
        const wait = record.failures > 0 ? Math.min(backoffBaseMs * 2 ** (record.failures - 1), backoffMaxMs) - (now - record.last) : 0;
        const r = indexed
          ? await this.manageIndexed(key, job, active, pods, completed, failedIndexes, wait > 0)
          : await this.manageNonIndexed(key, job, active, succeeded, wait > 0);
        created = r.created;
        deleted = r.deleted;
        if (wait > 0) requeueAfterMs = Math.min(requeueAfterMs ?? Infinity, wait);
        if (r.error) throw r.error;
      }
    }

    status.active = Math.max(0, active.length + created - deleted);
    status.ready = active.filter(isReady).length;
    status.terminating = terminating + deleted;
    status.succeeded = succeeded - uncounted.succeeded.size;
    status.failed = failed - uncounted.failed.size;
    writeIndexes();
    writeUncounted();
    if (JSON.stringify(status) !== JSON.stringify(current.status ?? {})) await this.writeStatus(current, status);
    if (removalError) throw removalError;
    return requeueAfterMs !== undefined ? { requeueAfterMs: requeueAfterMs + 100 } : undefined;
  }

  private async manageNonIndexed(key: string, job: Job, active: Pod[], succeeded: number, inBackoff: boolean) {
    const spec = job.spec!;
    const parallelism = spec.parallelism ?? 1;
    const want = spec.completions != null ? Math.min(parallelism, Math.max(0, spec.completions - succeeded)) : succeeded > 0 ? 0 : parallelism;
    const diff = active.length - want;
    if (diff > 0) return { created: 0, deleted: await this.deletePods(key, job, [...active].sort(deletionOrder).slice(0, Math.min(diff, burstReplicas))) };
    if (diff < 0 && !inBackoff) return { deleted: 0, ...(await this.createPods(key, job, Array.from({ length: Math.min(-diff, burstReplicas) }, () => undefined))) };
    return { created: 0, deleted: 0 };
  }

  private async manageIndexed(key: string, job: Job, active: Pod[], pods: Pod[], completed: Set<number>, failedIndexes: Set<number>, inBackoff: boolean) {
    const spec = job.spec!;
    const completions = spec.completions ?? 0;
    const byIndex = new Map<number, Pod[]>();
    const extra: Pod[] = [];
    for (const p of active) {
      const i = podIndex(p, completions);
      if (i === undefined || completed.has(i) || failedIndexes.has(i)) { extra.push(p); continue; }
      byIndex.set(i, [...(byIndex.get(i) ?? []), p]);
    }
    for (const group of byIndex.values()) extra.push(...[...group].sort(deletionOrder).slice(0, group.length - 1));
    if (extra.length) return { created: 0, deleted: await this.deletePods(key, job, extra.slice(0, burstReplicas)) };
    const room = Math.min((spec.parallelism ?? 1) - byIndex.size, burstReplicas);
    if (room <= 0 || inBackoff) return { created: 0, deleted: 0 };
    const missing: number[] = [];
    for (let i = 0; i < completions && missing.length < room; i++) if (!completed.has(i) && !failedIndexes.has(i) && !byIndex.has(i)) missing.push(i);
    return { deleted: 0, ...(await this.createPods(key, job, missing, (i) => indexFailures(pods, i, completions))) };
  }

  private async createPods(key: string, job: Job, indexes: (number | undefined)[], failures?: (i: number) => number): Promise<{ created: number; error?: Error }> {
    if (!indexes.length) return { created: 0 };
    this.expectations.expectCreations(key, indexes.length);
    let next = 0;
    const { succeeded, error } = await slowStartBatch(indexes.length, async () => {
      const i = indexes[next++];
      try {
        const pod = await this.podsAPI.create(job.metadata.namespace, newPod(job, i, i === undefined ? 0 : failures?.(i) ?? 0));
        this.recorder.event(asJob(job), 'Normal', 'SuccessfulCreate', `Created pod: ${pod.metadata.name}`);
      } catch (e) {
        this.recorder.event(asJob(job), 'Warning', 'FailedCreate', `Error creating: ${(e as Error).message}`);
        throw e;
      }
    });
    for (let i = succeeded; i < indexes.length; i++) this.expectations.creationObserved(key);
    return { created: succeeded, error };
  }

  /** Deletes pods, their finalizer removed first so they are not counted as failures; returns how many. */
  private async deletePods(key: string, job: Job, pods: Pod[]): Promise<number> {
    if (!pods.length) return 0;
    this.expectations.expectDeletions(key, pods.map(objectKey));
    const results = await Promise.all(pods.map(async (p) => {
      try {
        if (hasTrackingFinalizer(p)) await this.removeFinalizer(p);
        await this.podsAPI.delete(p.metadata.namespace, p.metadata.name as string);
        this.recorder.event(asJob(job), 'Normal', 'SuccessfulDelete', `Deleted pod: ${p.metadata.name}`);
        return true;
      } catch (e) {
        this.expectations.deletionObserved(key, objectKey(p));
        if (isNotFound(e)) return false;
        this.recorder.event(asJob(job), 'Warning', 'FailedDelete', `Error deleting: ${(e as Error).message}`);
        throw e;
      }
    }));
    return results.filter(Boolean).length;
  }

  /** Removes the tracking finalizer, guarded by the pod's resourceVersion (retried once on a newer one). */
  private async removeFinalizer(pod: Pod): Promise<void> {
    let cur = pod;
    for (let attempt = 0; ; attempt++) {
      try {
        const rest = (cur.metadata.finalizers ?? []).filter((f) => f !== jobTrackingFinalizer);
        await this.podsAPI.patch(cur.metadata.namespace, cur.metadata.name as string, 'merge', { metadata: { resourceVersion: cur.metadata.resourceVersion, finalizers: rest.length ? rest : null } });
        return;
      } catch (e) {
        if (isNotFound(e)) return;
        if (!isConflict(e) || attempt > 0) throw e;
        cur = await this.podsAPI.get(pod.metadata.namespace, pod.metadata.name as string);
        if (cur.metadata.uid !== pod.metadata.uid || !hasTrackingFinalizer(cur)) return;
      }
    }
  }

  /** A pod whose Job is gone keeps no tracking finalizer. */
  private async releaseOrphan(podKey: string): Promise<void> {
    const pod = this.podInformer.lister.byKey(podKey);
    if (!pod || !hasTrackingFinalizer(pod) || this.owner(pod)) return;
    await this.removeFinalizer(pod);
  }

  private async writeStatus(job: Job, status: JobStatus): Promise<Job> {
    return this.jobsAPI.updateStatus({ ...job, status });
  }
}

const named = (r: readonly [string, string]): Outcome => ({ reason: r[0], message: r[1] });

/** Failures of an index so far: the most its failed pods have recorded, plus their own. */
function indexFailures(pods: Pod[], index: number, completions: number): number {
  let n = 0;
  for (const p of pods) {
    if (p.status?.phase !== 'Failed' || podIndex(p, completions) !== index) continue;
    n = Math.max(n, Number(p.metadata.annotations?.[indexFailureCountAnnotation] ?? 0) + 1);
  }
  return n;
}
