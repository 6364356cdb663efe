// The CronJob controller, after upstream's cronjob_controllerv2: at each scheduled time (in
// spec.timeZone, else the controller's own zone) it creates a Job named
// `<cronjob>-<minutes since the epoch>` from spec.jobTemplate, honouring concurrencyPolicy,
// startingDeadlineSeconds and suspend; it keeps status.active, lastScheduleTime and
// lastSuccessfulTime, prunes finished Jobs past the history limits, and requeues itself for
// the next scheduled time on the injected clock.
import type { CronJobStatus } from 'kubernetes-types/batch/v1.js';
import type { ObjectReference } from 'kubernetes-types/core/v1.js';
import { cronJobScheduledTimestampAnnotation } from '../../api/batch/well-known.js';
import { lastTimeAtOrBefore, nextTime, timesBetween } from '../../api/batch/schedule.js';
import type { CronJob, Job } from '../../api/kinds.js';
import { rfc3339 } from '../../api/time.js';
import { isAlreadyExists, isNotFound, resources, type EventRecorder, type ResourceAPI, type SharedInformer } from '../../client/index.js';
import { QueueController, type ControllerContext, type ReconcileResult } from '../framework.js';
import { controllerRef, newControllerRef } from '../replicaset/index.js';

const asCronJob = (cj: CronJob): CronJob => ({ ...cj, apiVersion: 'batch/v1', kind: 'CronJob' });
/** Past this many missed times the controller warns (and still starts the latest), as upstream. */
const tooManyMissed = 100;

const finishedAs = (job: Job): 'Complete' | 'Failed' | undefined =>
  (job.status?.conditions ?? []).find((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True')?.type as 'Complete' | 'Failed' | undefined;

/** The name of the Job for a scheduled time: `<cronjob>-<minutes since the epoch>`. */
export const jobNameFor = (cj: CronJob, scheduled: number): string => `${cj.metadata.name}-${Math.floor(scheduled / 60_000)}`;

export class CronJobController extends QueueController {
  private readonly cronInformer: SharedInformer<CronJob>;
  private readonly jobInformer: SharedInformer<Job>;
  private readonly recorder: EventRecorder;
  private readonly jobsAPI: ResourceAPI<Job>;
  private readonly cronAPI: ResourceAPI<CronJob>;

  constructor(ctx: ControllerContext) {
    super('cronjob', ctx);
    this.recorder = ctx.recorder('cronjob-controller');
    this.jobsAPI = ctx.clients.resource(resources.jobs);
    this.cronAPI = ctx.clients.resource(resources.cronjobs);
    this.cronInformer = ctx.informers.informerFor(resources.cronjobs);
    this.jobInformer = ctx.informers.informerFor(resources.jobs);
    this.cronInformer.addEventHandler({ onAdd: (c) => this.enqueue(c), onUpdate: (_o, c) => this.enqueue(c), onDelete: (c) => this.enqueue(c) });
    const onJob = (j: Job) => {
      const ref = controllerRef(j);
      if (ref?.kind === 'CronJob') this.enqueue(`${j.metadata.namespace}/${ref.name}`);
    };
    this.jobInformer.addEventHandler({ onAdd: onJob, onUpdate: (_o, j) => onJob(j), onDelete: onJob });
  }

  async reconcile(key: string): Promise<ReconcileResult | void> {
    const cj = this.cronInformer.lister.byKey(key);
    if (!cj) return;
    const now = this.ctx.clock.now();
    const jobs = this.jobInformer.lister.list(cj.metadata.namespace).filter((j) => controllerRef(j)?.uid === cj.metadata.uid);
    const status: CronJobStatus = structuredClone(cj.status ?? {});
    const before = JSON.stringify(status);
    this.trackActive(cj, status, jobs);
    let requeueAfterMs: number | undefined;
    if (!cj.metadata.deletionTimestamp && !cj.spec?.suspend) requeueAfterMs = await this.schedule(cj, status, jobs, now);
    await this.pruneHistory(cj, jobs);
    if (JSON.stringify(status) !== before) await this.cronAPI.updateStatus({ ...cj, status });
    return requeueAfterMs !== undefined ? { requeueAfterMs } : undefined;
  }

  /** status.active: finished or vanished Jobs leave it, running owned Jobs join it. */
  private trackActive(cj: CronJob, status: CronJobStatus, jobs: Job[]): void {
    const byUID = new Map(jobs.map((j) => [j.metadata.uid, j]));
    const active: ObjectReference[] = [];
    for (const ref of status.active ?? []) {
      const job = byUID.get(ref.uid);
      if (!job) {
        if (!this.jobInformer.lister.get(cj.metadata.namespace, ref.name!)) this.recorder.event(asCronJob(cj), 'Normal', 'MissingJob', `Active job went missing: ${ref.name}`);
        continue;
      }
      const done = finishedAs(job);
      if (!done) { active.push(ref); continue; }
      this.recorder.event(asCronJob(cj), 'Normal', 'SawCompletedJob', `Saw completed job: ${job.metadata.name}, condition: ${done}`);
    }
    for (const job of jobs) {
      if (!finishedAs(job) && !active.some((r) => r.uid === job.metadata.uid)) active.push(jobRef(job));
      const completed = job.status?.completionTime;
      if (finishedAs(job) === 'Complete' && completed && (!status.lastSuccessfulTime || Date.parse(completed) > Date.parse(status.lastSuccessfulTime))) status.lastSuccessfulTime = completed;
    }
    if (active.length) status.active = active;
    else delete status.active;
  }

  /** Starts the Job of the most recent missed time if allowed; returns ms until the next time. */
  private async schedule(cj: CronJob, status: CronJobStatus, jobs: Job[], now: number): Promise<number | undefined> {
    const spec = cj.spec!;
    const tz = spec.timeZone ?? undefined;
    let next: number;
    try { next = nextTime(spec.schedule, tz, now); } catch (e) {
      this.recorder.event(asCronJob(cj), 'Warning', 'UnparseableSchedule', `unparseable schedule: "${spec.schedule}" : ${(e as Error).message}`);
      return undefined;
    }
    const untilNext = next - now + 100;
    let earliest = Date.parse(status.lastScheduleTime ?? cj.metadata.creationTimestamp ?? '') || now;
    const deadline = spec.startingDeadlineSeconds;
    if (deadline != null) earliest = Math.max(earliest, now - deadline * 1000);
    const missed = timesBetween(spec.schedule, tz, earliest, now, tooManyMissed + 1);
    if (!missed.length) return untilNext;
    if (missed.length > tooManyMissed) this.recorder.event(asCronJob(cj), 'Warning', 'TooManyMissedTimes', `too many missed start times: ${missed.length}. Set or decrease .spec.startingDeadlineSeconds or check clock skew`);
    // Of several missed times only the latest is started, as upstream.
    const scheduled = missed.length > tooManyMissed ? lastTimeAtOrBefore(spec.schedule, tz, now) : missed[missed.length - 1];
    const name = jobNameFor(cj, scheduled);
    if (jobs.some((j) => j.metadata.name === name)) return untilNext;
    const running = jobs.filter((j) => !finishedAs(j));
    const policy = spec.concurrencyPolicy ?? 'Allow';
    if (policy === 'Forbid' && running.length) {
      this.recorder.event(asCronJob(cj), 'Normal', 'JobAlreadyActive', 'Not starting job because prior execution is running and concurrency policy is Forbid');
      return untilNext;
    }
    if (policy === 'Replace') {
      for (const j of running) {
        try {
          await this.jobsAPI.delete(j.metadata.namespace, j.metadata.name as string, { propagationPolicy: 'Background' });
          this.recorder.event(asCronJob(cj), 'Normal', 'SuccessfulDelete', `Deleted job ${j.metadata.name}`);
        } catch (e) { if (!isNotFound(e)) throw e; }
        status.active = (status.active ?? []).filter((r) => r.uid !== j.metadata.uid);
        if (!status.active.length) delete status.active;
      }
    }
    let created: Job;
    try {
      created = await this.jobsAPI.create(cj.metadata.namespace, newJob(cj, name, scheduled));
      this.recorder.event(asCronJob(cj), 'Normal', 'SuccessfulCreate', `Created job ${created.metadata.name}`);
    } catch (e) {
      if (!isAlreadyExists(e)) {
        this.recorder.event(asCronJob(cj), 'Warning', 'FailedCreate', `Error creating job: ${(e as Error).message}`);
        throw e;
      }
      created = await this.jobsAPI.get(cj.metadata.namespace, name);
      if (controllerRef(created)?.uid !== cj.metadata.uid) return untilNext;
    }
    if (!finishedAs(created) && !(status.active ?? []).some((r) => r.uid === created.metadata.uid)) status.active = [...(status.active ?? []), jobRef(created)];
    status.lastScheduleTime = rfc3339(new Date(scheduled));
    return untilNext;
  }

  /** Deletes the oldest finished Jobs past successful/failedJobsHistoryLimit. */
  private async pruneHistory(cj: CronJob, jobs: Job[]): Promise<void> {
    const limits = { Complete: cj.spec?.successfulJobsHistoryLimit, Failed: cj.spec?.failedJobsHistoryLimit };
    for (const kind of ['Complete', 'Failed'] as const) {
      const limit = limits[kind];
      if (limit == null) continue;
      const done = jobs.filter((j) => finishedAs(j) === kind && !j.metadata.deletionTimestamp)
        .sort((a, b) => startOf(a) - startOf(b));
      for (const j of done.slice(0, Math.max(0, done.length - limit))) {
        try {
          await this.jobsAPI.delete(j.metadata.namespace, j.metadata.name as string, { propagationPolicy: 'Background' });
          this.recorder.event(asCronJob(cj), 'Normal', 'SuccessfulDelete', `Deleted job ${j.metadata.name}`);
        } catch (e) { if (!isNotFound(e)) throw e; }
      }
    }
  }
}

const startOf = (j: Job): number => Date.parse(j.status?.startTime ?? j.metadata.creationTimestamp ?? '') || 0;

function jobRef(job: Job): ObjectReference {
  return { kind: 'Job', namespace: job.metadata.namespace, name: job.metadata.name, uid: job.metadata.uid, apiVersion: 'batch/v1', resourceVersion: job.metadata.resourceVersion };
}

/** getJobFromTemplate2: the template's labels and annotations, the scheduled time, a controller reference. */
export function newJob(cj: CronJob, name: string, scheduled: number): Job {
  const tmpl = cj.spec?.jobTemplate ?? {};
  const tz = cj.spec?.timeZone;
  return {
    apiVersion: 'batch/v1', kind: 'Job',
    metadata: {
      name, namespace: cj.metadata.namespace,
      labels: { ...(tmpl.metadata?.labels ?? {}) },
      annotations: { ...(tmpl.metadata?.annotations ?? {}), [cronJobScheduledTimestampAnnotation]: formatInZone(scheduled, tz) },
      ownerReferences: [newControllerRef(cj, 'batch/v1', 'CronJob')],
    },
    spec: structuredClone(tmpl.spec ?? { template: {} }),
  };
}

/** RFC 3339 with the zone's offset (`2024-01-02T03:04:00+01:00`), UTC as `Z`. */
function formatInZone(t: number, tz: string | undefined): string {
  const zone = tz ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
  const parts = Object.fromEntries(new Intl.DateTimeFormat('en-US', {
    timeZone: zone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit',
  }).formatToParts(new Date(t)).map((p) => [p.type, p.value]));
  const local = Date.UTC(Number(parts.year), Number(parts.month) - 1, Number(parts.day), Number(parts.hour), Number(parts.minute), Number(parts.second));
  const offsetMin = Math.round((local - Math.floor(t / 1000) * 1000) / 60_000);
  const base = `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}`;
  if (offsetMin === 0) return `${base}Z`;
  const sign = offsetMin < 0 ? '-' : '+';
  const abs = Math.abs(offsetMin);
  return `${base}${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

