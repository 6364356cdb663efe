// The CSR signer (kube-controller-manager's csrsigning): issues certificates with the cluster
// CA (--cluster-signing-cert-file/--cluster-signing-key-file) for approved requests to the
// kube-apiserver-client, kube-apiserver-client-kubelet and kubelet-serving signers. A request
// that does not fit its signer gets a Failed condition instead. The certificate lives for
// --cluster-signing-duration, or spec.expirationSeconds when that is shorter, backdated five
// minutes for clock skew, as upstream.
import type { CertificateSigningRequest } from '../../api/kinds.js';
import { nullTime } from '../../api/kinds.js';
import { rfc3339 } from '../../api/time.js';
import { isNotFound, resources, type SharedInformer } from '../../client/index.js';
import { CSRError, signCSR } from '../../pki/csr.js';
import type { KeyPair } from '../../pki/index.js';
import { QueueController, type ControllerContext } from '../framework.js';
import { apiserverClientProblem, isApproved, isFailed, isIssued, kubeletClientProblem, kubeletServingProblem, parsedRequest, signers } from './csr.js';

const BACKDATE_MS = 5 * 60_000;

export interface SignerConfig {
  ca: KeyPair;
  /** The longest certificate this signer issues. */
  durationMs: number;
}

export class CSRSigningController extends QueueController {
  private csrs: SharedInformer<CertificateSigningRequest>;

  constructor(ctx: ControllerContext, private signer: SignerConfig) {
    super('csrsigning', ctx);
    this.csrs = ctx.informers.informerFor(resources.certificatesigningrequests);
    this.csrs.addEventHandler({ onAdd: (c) => this.enqueue(c), onUpdate: (_o, c) => this.enqueue(c) });
  }

  async reconcile(name: string): Promise<void> {
    const csr = this.csrs.lister.get(undefined, name);
    if (!csr || !isApproved(csr) || isIssued(csr) || isFailed(csr)) return;
    if (!Object.values(signers).includes(csr.spec.signerName)) return; // another signer's
    let problem: string | null;
    let req;
    try {
      req = parsedRequest(csr);
      const usages = csr.spec.usages ?? [];
      problem = csr.spec.signerName === signers.kubeletClient ? kubeletClientProblem(req, usages)
        : csr.spec.signerName === signers.kubeletServing ? kubeletServingProblem(req, usages)
        : apiserverClientProblem(usages);
    } catch (e) {
      if (!(e instanceof CSRError)) throw e;
      problem = e.message;
    }
    const now = this.ctx.clock.now();
    const next = structuredClone(csr);
    if (problem !== null || !req) {
      next.status = { ...next.status, conditions: [...next.status?.conditions ?? [], { type: 'Failed', status: 'True', reason: 'SignerValidationFailure', message: problem ?? 'unparseable request', lastUpdateTime: rfc3339(new Date(now)), lastTransitionTime: nullTime }] };
    } else {
      const requested = csr.spec.expirationSeconds ? csr.spec.expirationSeconds * 1000 : Infinity;
      const ttl = Math.min(this.signer.durationMs, requested);
      const pem = signCSR(this.signer.ca, req, { usages: csr.spec.usages ?? [], notBefore: new Date(now - BACKDATE_MS), notAfter: new Date(now + ttl) });
      next.status = { ...next.status, certificate: Buffer.from(pem).toString('base64') };
    }
    try {
      await this.ctx.clients.resource(resources.certificatesigningrequests).updateStatus(next);
      this.log.info(problem === null ? 'issued' : 'failed', { csr: name, signer: csr.spec.signerName, ...(problem === null ? {} : { reason: problem }) });
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
  }
}
