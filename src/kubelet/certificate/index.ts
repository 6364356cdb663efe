// The kubelet's certificates from the cluster: bootstrap, rotation, serving.
export { clientCredentials, clientUsages, servingUsages, KUBELET_CLIENT_SIGNER, KUBELET_SERVING_SIGNER, type ClientCredentials, type ClientCredentialsOptions } from './bootstrap.js';
export { servingCertificateManager, type ServingCertificateOptions } from './serving.js';
export { CertificateManager, rotationDeadline, type CertificateManagerOptions } from './manager.js';
export { CertificateStore, splitPair, type CertificatePair } from './store.js';
export { requestCertificate, CSRRefusedError, type CSRSpec } from './request.js';
export { componentCredentials, renewComponentCertificates, APISERVER_CLIENT_SIGNER, type NodeComponent, type ComponentCredentialsOptions, type ComponentRenewalOptions } from './components.js';
