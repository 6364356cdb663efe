// k8s.io/api certificates/v1: CertificateSigningRequest (what `kubectl certificate approve|deny` sends).
import { msg, type Messages } from '../schema.js';

export const certificates: Messages = {
  CertificateSigningRequest: msg({ 1: ['metadata', 'ObjectMeta'], 2: ['spec', 'CertificateSigningRequestSpec'], 3: ['status', 'CertificateSigningRequestStatus'] }),
  CertificateSigningRequestSpec: msg({
    1: ['request', 'bytes'], 7: ['signerName', 'string'], 8: ['expirationSeconds', '*int32'], 5: ['usages', '[]string'],
    2: ['username', 'string'], 3: ['uid', 'string'], 4: ['groups', '[]string'], 6: ['extra', 'map<ExtraValue>'],
  }),
  CertificateSigningRequestStatus: msg({ 1: ['conditions', '[]CertificateSigningRequestCondition'], 2: ['certificate', 'bytes'] }),
  CertificateSigningRequestCondition: msg({
    1: ['type', 'string'], 6: ['status', 'string'], 2: ['reason', 'string'], 3: ['message', 'string'],
    4: ['lastUpdateTime', 'Time'], 5: ['lastTransitionTime', 'Time'],
  }),
};
