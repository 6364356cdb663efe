// Client certificates for a joined node's other components — the service proxy
// (system:kube-proxy), the network agent and DNS — requested by the node itself with
// CertificateSigningRequests to kubernetes.io/kube-apiserver-client, which the
// controller-manager's approver grants an active node for exactly these subjects. So a node
// that joined with nothing but a bootstrap token runs each component as its own identity
// (upstream runs them as DaemonSet pods whose ServiceAccount tokens any node may obtain; the
// trust is the same). Each certificate lives in the cert dir as <component>-client-current.pem
// and is renewed in place by a CertificateManager; the component reads it when it starts.
import { Clientset, RESTClient, nodeIdentities, type Clock, type NodeKubeconfigs } from '../../client/index.js';
import type { Logger } from '../../log/index.js';
import { clientUsages, readConfig, writeCertDirKubeconfig } from './bootstrap.js';
import { CertificateManager } from './manager.js';
import { CertificateStore } from './store.js';

export const APISERVER_CLIENT_SIGNER = 'kubernetes.io/kube-apiserver-client';

export type NodeComponent = Exclude<keyof NodeKubeconfigs, 'kubelet'>;

export interface ComponentCredentialsOptions {
  /** The node's own kubeconfig (system:node:<name>): it asks for the certificates. */
  kubeletKubeconfig: string;
  certDir: string;
  /** Where each component's kubeconfig goes. */
  kubeconfigPath(component: NodeComponent): string;
  components: NodeComponent[];
  clock: Clock;
  log: Logger;
}

/** Requests (or reuses) each component's certificate and writes its kubeconfig; the managers keep them renewed until stop(). */
export async function componentCredentials(o: ComponentCredentialsOptions): Promise<{ kubeconfigs: Partial<Record<NodeComponent, string>>; stop(): void }> {
  const ids = nodeIdentities('');
  // The node's certificate rotates under its kubeconfig's path: read it afresh for each request.
  let rest: RESTClient | undefined;
  const nodeClients = () => {
    rest?.close();
    rest = new RESTClient(readConfig(o.kubeletKubeconfig), 'capstan-node-components');
    return new Clientset(rest);
  };
  const managers: CertificateManager[] = [];
  const stop = () => { for (const m of managers) m.stop(); rest?.close(); };
  const kubeconfigs: Partial<Record<NodeComponent, string>> = {};
  try {
    for (const component of o.components) {
      const store = new CertificateStore(o.certDir, `${component}-client`);
      const manager = new CertificateManager({
        store, signerName: APISERVER_CLIENT_SIGNER, usages: clientUsages, clock: o.clock, log: o.log,
        subject: () => ids[component], clients: nodeClients,
      });
      managers.push(manager);
      await manager.start();
      const path = o.kubeconfigPath(component);
      writeCertDirKubeconfig(path, readConfig(o.kubeletKubeconfig), store.currentPath);
      kubeconfigs[component] = path;
    }
  } catch (e) {
    stop();
    throw e;
  }
  return { kubeconfigs, stop };
}
