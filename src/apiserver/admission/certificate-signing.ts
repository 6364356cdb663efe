// The CertificateSigning admission plugin (upstream plugin/pkg/admission/certificates/signing):
// setting or changing a CertificateSigningRequest's `status.certificate` (an update of its
// `status` subresource) needs the `sign` verb on the request's signer. Other status changes
// (a Failed condition) need nothing more.
import type { AdmissionPlugin } from '../admission.js';
import type { Authorizer } from '../authz/index.js';
import { authorizedForSigner, csrForbidden, isCSR } from './signer-access.js';

export function certificateSigning(authz: Authorizer): AdmissionPlugin {
  return {
    name: 'CertificateSigning',
    async validate(a) {
      if (a.operation !== 'UPDATE' || !isCSR(a, 'status')) return;
      if ((a.object?.status?.certificate ?? '') === (a.oldObject?.status?.certificate ?? '')) return;
      const signer: string = a.oldObject?.spec?.signerName ?? a.object?.spec?.signerName ?? '';
      if (!await authorizedForSigner(authz, a.user, 'sign', signer)) {
        throw csrForbidden(a.object, `user not permitted to sign requests with signerName ${JSON.stringify(signer)}`);
      }
    },
  };
}
