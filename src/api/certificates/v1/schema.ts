// certificates.k8s.io/v1 CertificateSigningRequest.
import { str, int32, obj, arr, map, bytes, defineType, ref, keyedList } from '../../schema.js';
import { listMeta, objectMeta, timeRef } from '../../meta/v1/names.js';

const certificates = (name: string, description?: string) => ref(`io.k8s.api.certificates.v1.${name}`, description);

defineType('io.k8s.api.certificates.v1.CertificateSigningRequest', obj({
  apiVersion: str('The versioned schema of this object, e.g. apps/v1; the server converts to it.'),
  kind: str('The type of this object in CamelCase, e.g. Deployment.'),
  metadata: objectMeta(),
  spec: certificates('CertificateSigningRequestSpec', 'The certificate request; immutable after creation.'),
  status: certificates('CertificateSigningRequestStatus', 'Approval conditions and the issued certificate.'),
}, 'A request for a certificate from a signer, approved or denied, then signed or failed.', {
  required: ['spec'], gvk: [{ group: 'certificates.k8s.io', version: 'v1', kind: 'CertificateSigningRequest' }],
}));

defineType('io.k8s.api.certificates.v1.CertificateSigningRequestList', obj({
  apiVersion: str('The versioned schema of this object, e.g. apps/v1; the server converts to it.'),
  kind: str('The type of this object in CamelCase, e.g. Deployment.'),
  metadata: listMeta(),
  items: arr(certificates('CertificateSigningRequest'), 'The objects in the list.'),
}, 'A list of CertificateSigningRequests.', { required: ['items'], gvk: [{ group: 'certificates.k8s.io', version: 'v1', kind: 'CertificateSigningRequestList' }] }));

defineType('io.k8s.api.certificates.v1.CertificateSigningRequestSpec', obj({
  request: bytes('A PEM-encoded "CERTIFICATE REQUEST" (PKCS#10).'),
  signerName: str('The signer asked to sign: kubernetes.io/kube-apiserver-client, kubernetes.io/kube-apiserver-client-kubelet, kubernetes.io/kubelet-serving, or another signer\'s name.'),
  expirationSeconds: int32('Requested validity of the certificate; the signer may shorten it. At least 600.'),
  usages: arr(str(), 'Key usages asked for ("digital signature", "key encipherment", "client auth", "server auth", ...).', { listType: 'atomic' }),
  username: str('Who created the request; set by the server.'),
  uid: str('UID of the user who created the request; set by the server.'),
  groups: arr(str(), 'Groups of the user who created the request; set by the server.', { listType: 'atomic' }),
  extra: map(arr(str()), 'Extra attributes of the user who created the request; set by the server.'),
}, undefined, { required: ['request', 'signerName'] }));

defineType('io.k8s.api.certificates.v1.CertificateSigningRequestStatus', obj({
  conditions: keyedList(certificates('CertificateSigningRequestCondition'), 'type', 'Approved, Denied or Failed.'),
  certificate: bytes('The issued certificate (PEM CERTIFICATE blocks), set by the signer once approved.'),
}));

defineType('io.k8s.api.certificates.v1.CertificateSigningRequestCondition', obj({
  type: str('Approved, Denied, Failed, or another condition type.'),
  status: str('True, False or Unknown.'),
  reason: str('A brief machine-readable reason.'),
  message: str('A human-readable description.'),
  lastUpdateTime: timeRef('When the condition was last updated.'),
  lastTransitionTime: timeRef('When the condition last changed status.'),
}, undefined, { required: ['type', 'status'] }));
