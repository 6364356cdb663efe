// The CertificateApproval admission plugin (upstream plugin/pkg/admission/certificates/approval):
// approving or denying a CertificateSigningRequest (an update of its `approval` subresource)
// needs the `approve` verb on the request's signer.
import type { AdmissionPlugin } from '../admission.js';
import type { Authorizer } from '../authz/index.js';
import { authorizedForSigner, csrForbidden, isCSR } from './signer-access.js';

export function certificateApproval(authz: Authorizer): AdmissionPlugin {
  return {
    name: 'CertificateApproval',
    async validate(a) {
      if (a.operation !== 'UPDATE' || !isCSR(a, 'approval')) return;
      const signer: string = a.object?.spec?.signerName ?? '';
      if (!await authorizedForSigner(authz, a.user, 'approve', signer)) {
        throw csrForbidden(a.object, `user not permitted to approve requests with signerName ${JSON.stringify(signer)}`);
      }
    },
  };
}
