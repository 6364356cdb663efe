// What the approver and the signer both read from a CertificateSigningRequest: its state,
// its parsed request, and whether the request fits a kubelet's client or serving
// certificate (upstream pkg/apis/certificates/v1 helpers ValidateKubeletClientCSR and
// ValidateKubeletServingCSR).
import type { CertificateSigningRequest } from '../../api/kinds.js';
import { parseCSR, type ParsedCSR } from '../../pki/csr.js';

export const signers = {
  apiserverClient: 'kubernetes.io/kube-apiserver-client',
  kubeletClient: 'kubernetes.io/kube-apiserver-client-kubelet',
  kubeletServing: 'kubernetes.io/kubelet-serving',
};

export type CSR = CertificateSigningRequest;

const conditionTrue = (csr: CSR, type: string): boolean => (csr.status?.conditions ?? []).some((c) => c.type === type && c.status === 'True');

export const isApproved = (csr: CSR): boolean => conditionTrue(csr, 'Approved') && !conditionTrue(csr, 'Denied') && !conditionTrue(csr, 'Failed');
export const isDenied = (csr: CSR): boolean => conditionTrue(csr, 'Denied');
export const isFailed = (csr: CSR): boolean => conditionTrue(csr, 'Failed');
export const isIssued = (csr: CSR): boolean => !!csr.status?.certificate;

/** The request's PKCS#10 content (throws CSRError when it does not parse). */
export const parsedRequest = (csr: CSR): ParsedCSR => parseCSR(Buffer.from(csr.spec.request, 'base64').toString('utf8'));

const sameSet = (a: string[], b: string[]): boolean => a.length === b.length && a.every((x) => b.includes(x)) && new Set(a).size === a.length;

/** Why the request is not a kubelet client certificate request, or null when it is. */
export function kubeletClientProblem(req: ParsedCSR, usages: string[]): string | null {
  if (!sameSet(req.organizations, ['system:nodes'])) return 'subject organization is not system:nodes';
  if (req.dnsNames.length) return 'DNS subjectAltNames are not allowed';
  if (req.emailAddresses.length) return 'Email subjectAltNames are not allowed';
  if (req.ipAddresses.length) return 'IP subjectAltNames are not allowed';
  if (req.uris.length) return 'URI subjectAltNames are not allowed';
  if (!req.commonName.startsWith('system:node:')) return 'subject common name does not begin with system:node:';
  if (!sameSet(usages, ['digital signature', 'key encipherment', 'client auth']) && !sameSet(usages, ['digital signature', 'client auth'])) {
    return 'usages did not match [client auth digital signature key encipherment] or [client auth digital signature]';
  }
  return null;
}

/** Why the request is not a kubelet serving certificate request, or null when it is. */
export function kubeletServingProblem(req: ParsedCSR, usages: string[]): string | null {
  if (!sameSet(usages, ['digital signature', 'key encipherment', 'server auth']) && !sameSet(usages, ['digital signature', 'server auth'])) {
    return 'usages did not match [digital signature key encipherment server auth] or [digital signature server auth]';
  }
  if (!req.dnsNames.length && !req.ipAddresses.length) return 'DNS or IP subjectAltName is required';
  if (req.emailAddresses.length) return 'Email subjectAltNames are not allowed';
  if (req.uris.length) return 'URI subjectAltNames are not allowed';
  if (!sameSet(req.organizations, ['system:nodes'])) return 'subject organization is not system:nodes';
  if (!req.commonName.startsWith('system:node:')) return 'subject common name does not begin with system:node:';
  return null;
}

/** Why the request is not for a client certificate to the API server, or null when it fits. */
export function apiserverClientProblem(usages: string[]): string | null {
  const allowed = ['digital signature', 'key encipherment', 'client auth'];
  if (!usages.includes('client auth')) return 'usages must include client auth';
  const bad = usages.filter((u) => !allowed.includes(u));
  return bad.length ? `invalid usage for client certificate: ${bad.join(', ')}` : null;
}

/**
 * Why the request is not for one of a node's component identities (the service proxy,
 * network agent and DNS of client/node-identities.ts), or null when it is: exactly that
 * subject, no subjectAltNames, client usages.
 */
export function nodeComponentClientProblem(req: ParsedCSR, usages: string[], identities: { commonName: string; organizations: string[] }[]): string | null {
  const id = identities.find((i) => i.commonName === req.commonName);
  if (!id) return 'subject common name is not a node component\'s';
  if (!sameSet(req.organizations, id.organizations) && !(req.organizations.length === 0 && id.organizations.length === 0)) return 'subject organizations do not match the component\'s';
  if (req.dnsNames.length || req.emailAddresses.length || req.ipAddresses.length || req.uris.length) return 'subjectAltNames are not allowed';
  if (!sameSet(usages, ['digital signature', 'key encipherment', 'client auth']) && !sameSet(usages, ['digital signature', 'client auth'])) {
    return 'usages did not match [client auth digital signature key encipherment] or [client auth digital signature]';
  }
  return null;
}
