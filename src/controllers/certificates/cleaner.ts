// The CSR cleaner (kube-controller-manager's csrcleaner): a CertificateSigningRequest is
// deleted once it has served its purpose — issued and approved more than an hour ago, denied
// or failed more than an hour ago (by the condition's lastUpdateTime), pending for more than
// a day after its creation, or issued with a certificate that has expired. Each request is
// looked at when it is added or changed and again at its next deadline, instead of
// upstream's hourly list.
import { X509Certificate } from 'node:crypto';
import type { CertificateSigningRequest } from '../../api/kinds.js';
import { isConflict, isNotFound, resources, type SharedInformer } from '../../client/index.js';
import { QueueController, type ControllerContext, type ReconcileResult } from '../framework.js';

const HOUR = 3600_000;
export const approvedExpirationMs = HOUR;
export const deniedExpirationMs = HOUR;
export const pendingExpirationMs = 24 * HOUR;
/** Timers longer than this overflow; a later deadline is looked at again after it. */
const maxWaitMs = 24 * HOUR;

const time = (s: string | null | undefined): number | undefined => (s ? Date.parse(s) : undefined);

/** The instant `csr` is to be deleted (upstream's isOlderThan: strictly after), or undefined for never. */
export function cleanupDeadline(csr: CertificateSigningRequest): number | undefined {
  const deadlines: number[] = [];
  const conditions = csr.status?.conditions ?? [];
  const issued = !!csr.status?.certificate;
  if (!conditions.length) {
    const created = time(csr.metadata.creationTimestamp);
    if (created !== undefined) deadlines.push(created + pendingExpirationMs);
  }
  for (const c of conditions) {
    const updated = time(c.lastUpdateTime);
    if ((c.type === 'Denied' || c.type === 'Failed') && updated !== undefined) deadlines.push(updated + deniedExpirationMs);
    if (c.type === 'Approved' && issued) {
      if (updated !== undefined) deadlines.push(updated + approvedExpirationMs);
      try {
        deadlines.push(Date.parse(new X509Certificate(Buffer.from(csr.status!.certificate!, 'base64')).validTo));
      } catch { /* not a certificate: only the other deadlines apply */ }
    }
  }
  return deadlines.length ? Math.min(...deadlines) : undefined;
}

export class CSRCleanerController extends QueueController {
  private csrs: SharedInformer<CertificateSigningRequest>;

  constructor(ctx: ControllerContext) {
    super('csrcleaner', ctx);
    this.csrs = ctx.informers.informerFor(resources.certificatesigningrequests);
    this.csrs.addEventHandler({ onAdd: (c) => this.enqueue(c), onUpdate: (_o, c) => this.enqueue(c) });
  }

  async reconcile(name: string): Promise<ReconcileResult | void> {
    const csr = this.csrs.lister.get(undefined, name);
    if (!csr || csr.metadata.deletionTimestamp) return;
    const deadline = cleanupDeadline(csr);
    if (deadline === undefined) return;
    const left = deadline - this.ctx.clock.now();
    if (left >= 0) return { requeueAfterMs: Math.min(left + 1, maxWaitMs) };
    this.log.info('deleting certificate signing request past its cleanup deadline', { csr: name });
    try {
      await this.ctx.clients.resource(resources.certificatesigningrequests).delete(undefined, name, { preconditions: { uid: csr.metadata.uid as string } });
    } catch (e) {
      if (!isNotFound(e) && !isConflict(e)) throw e;
    }
  }
}
