// The kubelet's serving certificate from the cluster (--rotate-server-certificates): signer
// kubernetes.io/kubelet-serving, subject `system:node:<name>` in `system:nodes`, the node's
// name and its Node's addresses as SANs, renewed like the client certificate.
import { isIP } from 'node:net';
import { resources, type ClientsetAPI, type Clock } from '../../client/index.js';
import type { Logger } from '../../log/index.js';
import { CertificateManager } from './manager.js';
import { CertificateStore, type CertificatePair } from './store.js';
import { KUBELET_SERVING_SIGNER, servingUsages } from './bootstrap.js';

export interface ServingCertificateOptions {
  nodeName: string;
  certDir: string;
  clients: ClientsetAPI;
  clock: Clock;
  log: Logger;
  onRotate?(pair: CertificatePair): void;
  expirationSeconds?: number;
}

export function servingCertificateManager(o: ServingCertificateOptions): CertificateManager {
  return new CertificateManager({
    store: new CertificateStore(o.certDir, 'kubelet-server'), signerName: KUBELET_SERVING_SIGNER, usages: servingUsages,
    clock: o.clock, log: o.log, onRotate: o.onRotate, expirationSeconds: o.expirationSeconds,
    clients: () => o.clients,
    // What the Node reports now: the approver grants only those names and addresses.
    subject: async () => {
      const node = await o.clients.resource(resources.nodes).get(undefined, o.nodeName);
      const addresses = (node.status?.addresses ?? []).map((a) => a.address);
      return {
        commonName: `system:node:${o.nodeName}`, organizations: ['system:nodes'],
        dnsNames: [...new Set([o.nodeName, ...addresses.filter((a) => !isIP(a))])],
        ipAddresses: [...new Set(addresses.filter((a) => isIP(a)))],
      };
    },
  });
}
