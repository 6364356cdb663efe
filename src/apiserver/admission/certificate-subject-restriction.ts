// The CertificateSubjectRestriction admission plugin (upstream
// plugin/pkg/admission/certificates/subjectrestriction): no request to the
// kubernetes.io/kube-apiserver-client signer may ask for the system:masters group, so no
// approver can hand out a superuser certificate by mistake.
import { CSRError, parseCSR } from '../../pki/csr.js';
import type { AdmissionPlugin } from '../admission.js';
import { csrForbidden, isCSR } from './signer-access.js';

const APISERVER_CLIENT_SIGNER = 'kubernetes.io/kube-apiserver-client';
const SUPERUSER_GROUP = 'system:masters';

export function certificateSubjectRestriction(): AdmissionPlugin {
  return {
    name: 'CertificateSubjectRestriction',
    async validate(a) {
      if (a.operation !== 'CREATE' || !isCSR(a, '')) return;
      if (a.object?.spec?.signerName !== APISERVER_CLIENT_SIGNER) return;
      let organizations: string[];
      try {
        organizations = parseCSR(Buffer.from(String(a.object.spec.request ?? ''), 'base64').toString('utf8')).organizations;
      } catch (e) {
        // The strategy's validation refuses a request that does not parse (422).
        if (e instanceof CSRError) return;
        throw e;
      }
      if (organizations.includes(SUPERUSER_GROUP)) {
        throw csrForbidden(a.object, `use of ${APISERVER_CLIENT_SIGNER} signer with ${SUPERUSER_GROUP} group is not allowed`);
      }
    },
  };
}
