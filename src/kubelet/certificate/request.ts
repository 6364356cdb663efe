// Asks the API server for a certificate: creates a CertificateSigningRequest and waits on a
// watch of it until it is issued, denied or failed (client-go's certificate/csr helpers).
import type { CertificateSigningRequest } from '../../api/kinds.js';
import { resources, type ClientsetAPI, type Clock } from '../../client/index.js';

export interface CSRSpec {
  /** PEM CERTIFICATE REQUEST. */
  request: string;
  signerName: string;
  usages: string[];
  expirationSeconds?: number;
}

export class CSRRefusedError extends Error {}

/** The issued certificate of `csr`, null while it waits; throws when it was denied or failed. */
function outcome(csr: CertificateSigningRequest): string | null {
  for (const c of csr.status?.conditions ?? []) {
    if ((c.type === 'Denied' || c.type === 'Failed') && c.status === 'True') {
      throw new CSRRefusedError(`certificate signing request ${csr.metadata.name} is ${c.type.toLowerCase()}: ${c.reason ?? ''} ${c.message ?? ''}`.trim());
    }
  }
  return csr.status?.certificate ? Buffer.from(csr.status.certificate, 'base64').toString('utf8') : null;
}

/** Creates the request and resolves with the issued certificate (PEM); rejects after `timeoutMs` on `clock`. */
export async function requestCertificate(clients: ClientsetAPI, spec: CSRSpec, clock: Clock, timeoutMs: number): Promise<string> {
  const api = clients.resource(resources.certificatesigningrequests);
  const created = await api.create(undefined, {
    apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest',
    metadata: { generateName: 'csr-' },
    spec: { request: Buffer.from(spec.request).toString('base64'), signerName: spec.signerName, usages: spec.usages, ...(spec.expirationSeconds ? { expirationSeconds: spec.expirationSeconds } : {}) },
  });
  const name = created.metadata.name!;
  let timedOut = false;
  let closeWatch = () => {};
  const timer = clock.setTimeout(() => { timedOut = true; closeWatch(); }, timeoutMs);
  try {
    for (;;) {
      const csr = await api.get(undefined, name);
      const cert = outcome(csr);
      if (cert) return cert;
      const w = await api.watch(undefined, { fieldSelector: `metadata.name=${name}`, resourceVersion: csr.metadata.resourceVersion });
      closeWatch = () => w.close();
      if (timedOut) w.close();
      for await (const ev of w) {
        if (ev.type !== 'ADDED' && ev.type !== 'MODIFIED') continue;
        const issued = outcome(ev.object as CertificateSigningRequest);
        if (issued) { w.close(); return issued; }
      }
      if (timedOut) throw new Error(`timed out after ${timeoutMs} ms waiting for certificate signing request ${name} to be issued`);
      // The stream ended (server restart, rotation of our own credentials): read and watch again.
    }
  } finally {
    clock.clearTimeout(timer);
  }
}
