// The TTL-after-finished controller, after upstream's pkg/controller/ttlafterfinished: a Job
// that finished (Complete or Failed) and has spec.ttlSecondsAfterFinished is deleted, with
// its pods (Foreground), that many seconds after it finished. Time is the injected clock's;
// before deleting, a fresh read confirms the TTL still says so (it may have been changed).
import type { Job } from '../../api/kinds.js';
import { isNotFound, resources, type ResourceAPI, type SharedInformer } from '../../client/index.js';
import { QueueController, type ControllerContext, type ReconcileResult } from '../framework.js';

/** When the Job finished: completionTime, else the terminal condition's transition time. */
export function finishedAt(job: Job): number | undefined {
  const cond = (job.status?.conditions ?? []).find((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True');
  if (!cond) return undefined;
  const t = Date.parse(job.status?.completionTime ?? cond.lastTransitionTime ?? '');
  return Number.isNaN(t) ? undefined : t;
}

/** Milliseconds until the Job expires (≤ 0: now), or undefined when it never does. */
export function msUntilExpiry(job: Job, now: number): number | undefined {
  const ttl = job.spec?.ttlSecondsAfterFinished;
  if (ttl == null || job.metadata.deletionTimestamp) return undefined;
  const done = finishedAt(job);
  return done === undefined ? undefined : done + ttl * 1000 - now;
}

export class TTLAfterFinishedController extends QueueController {
  private readonly jobInformer: SharedInformer<Job>;
  private readonly jobsAPI: ResourceAPI<Job>;

  constructor(ctx: ControllerContext) {
    super('ttlafterfinished', ctx);
    this.jobsAPI = ctx.clients.resource(resources.jobs);
    this.jobInformer = ctx.informers.informerFor(resources.jobs);
    const onJob = (j: Job) => { if (j.spec?.ttlSecondsAfterFinished != null && finishedAt(j) !== undefined) this.enqueue(j); };
    this.jobInformer.addEventHandler({ onAdd: onJob, onUpdate: (_o, j) => onJob(j) });
  }

  async reconcile(key: string): Promise<ReconcileResult | void> {
    const cached = this.jobInformer.lister.byKey(key);
    if (!cached) return;
    const left = msUntilExpiry(cached, this.ctx.clock.now());
    if (left === undefined) return;
    if (left > 0) return { requeueAfterMs: left };
    const [ns, name] = [cached.metadata.namespace, cached.metadata.name as string];
    const fresh = await this.jobsAPI.get(ns, name).catch((e) => { if (isNotFound(e)) return undefined; throw e; });
    if (!fresh || fresh.metadata.uid !== cached.metadata.uid) return;
    const freshLeft = msUntilExpiry(fresh, this.ctx.clock.now());
    if (freshLeft === undefined) return;
    if (freshLeft > 0) return { requeueAfterMs: freshLeft };
    this.log.info('deleting job whose TTL after finishing expired', { job: key });
    try {
      await this.jobsAPI.delete(ns, name, { propagationPolicy: 'Foreground', preconditions: { uid: fresh.metadata.uid, resourceVersion: fresh.metadata.resourceVersion } });
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
  }
}
