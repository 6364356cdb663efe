// certificates.k8s.io/v1 CertificateSigningRequest.
import { str, int32, obj, arr, map, bytes, defineType, ref, keyedList, pb } from '../../schema.js';
import { listMeta, objectMeta, timeRef } from '../../meta/v1/names.js';

const certificates = (name: string, description?: string) => ref(`io.k8s.api.certificates.v1.${name}`, description);

defineType('io.k8s.api.certificates.v1.CertificateSigningRequest', obj({
  apiVersion: str('The versioned schema of this object, e.g. apps/v1; the server converts to it.'),
  kind: str('The type of this object in CamelCase, e.g. Deployment.'),
  metadata: pb(1, objectMeta()),
  spec: pb(2, certificates('CertificateSigningRequestSpec', 'The certificate request; immutable after creation.')),
  status: pb(3, certificates('CertificateSigningRequestStatus', 'Approval conditions and the issued certificate.')),
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
  request: pb(1, bytes('A PEM-encoded "CERTIFICATE REQUEST" (PKCS#10).')),
  signerName: pb(7, str('The signer asked to sign: kubernetes.io/kube-apiserver-client, kubernetes.io/kube-apiserver-client-kubelet, kubernetes.io/kubelet-serving, or another signer\'s name.')),
  expirationSeconds: pb(8, int32('Requested validity of the certificate; the signer may shorten it. At least 600.'), 'keepZero'),
  usages: pb(5, arr(str(), 'Key usages asked for ("digital signature", "key encipherment", "client auth", "server auth", ...).', { listType: 'atomic' })),
  username: pb(2, str('Who created the request; set by the server.')),
  uid: pb(3, str('UID of the user who created the request; set by the server.')),
  groups: pb(4, arr(str(), 'Groups of the user who created the request; set by the server.', { listType: 'atomic' })),
  extra: pb(6, map(arr(str()), 'Extra attributes of the user who created the request; set by the server.')),
}, undefined, { required: ['request', 'signerName'] }));

defineType('io.k8s.api.certificates.v1.CertificateSigningRequestStatus', obj({
  conditions: pb(1, keyedList(certificates('CertificateSigningRequestCondition'), 'type', 'Approved, Denied or Failed.')),
  certificate: pb(2, bytes('The issued certificate (PEM CERTIFICATE blocks), set by the signer once approved.')),
}));

defineType('io.k8s.api.certificates.v1.CertificateSigningRequestCondition', obj({
  type: pb(1, str('Approved, Denied, Failed, or another condition type.')),
  status: pb(6, str('True, False or Unknown.')),
  reason: pb(2, str('A brief machine-readable reason.')),
  message: pb(3, str('A human-readable description.')),
  lastUpdateTime: pb(4, timeRef('When the condition was last updated.')),
  lastTransitionTime: pb(5, timeRef('When the condition last changed status.')),
}, undefined, { required: ['type', 'status'] }));
