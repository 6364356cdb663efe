// Who may approve or sign for a signer (upstream pkg/apis/certificates IsAuthorizedForSignerName):
// the verb on `signers` in certificates.k8s.io named after the signer, or after its domain
// with a wildcard (`example.com/*`). Shared by CertificateApproval and CertificateSigning.
import type { KubeObject } from '../../api/object.js';
import type { AdmissionAttributes } from '../admission.js';
import type { UserInfo } from '../authn/index.js';
import { forbiddenWording, type Attributes, type Authorizer } from '../authz/index.js';
import { forbidden } from '../errors.js';

export const CERTIFICATES_GROUP = 'certificates.k8s.io';

const signerAttributes = (verb: string, name: string): Attributes =>
  ({ isResourceRequest: true, path: '', verb, group: CERTIFICATES_GROUP, version: '*', namespace: '', resource: 'signers', subresource: '', name });

export async function authorizedForSigner(authz: Authorizer, user: UserInfo, verb: 'approve' | 'sign', signerName: string): Promise<boolean> {
  if (await authz.authorize(user, signerAttributes(verb, signerName)) === null) return true;
  const slash = signerName.indexOf('/');
  return slash > 0 && await authz.authorize(user, signerAttributes(verb, `${signerName.slice(0, slash)}/*`)) === null;
}

/** Whether the request writes a CertificateSigningRequest's `subresource`. */
export const isCSR = (a: AdmissionAttributes, subresource: string): boolean =>
  a.info.group === CERTIFICATES_GROUP && a.info.resource === 'certificatesigningrequests' && a.info.subresource === subresource;

/** admission.NewForbidden's wording for a CSR. */
export function csrForbidden(csr: KubeObject | undefined, why: string): Error {
  const name = csr?.metadata.name ?? '';
  return forbidden(forbiddenWording('certificatesigningrequests', CERTIFICATES_GROUP, name, why), { name: name || undefined, group: CERTIFICATES_GROUP, kind: 'certificatesigningrequests' });
}
