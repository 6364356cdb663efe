// Each node component's own identity (a client certificate from the cluster CA in a kubeconfig
// of its own), so none of them holds system:masters: the kubelet is `system:node:<name>` in
// `system:nodes` (the Node authorizer and NodeRestriction apply), the proxy is
// `system:kube-proxy` (system:node-proxier), the network agent `system:capstan-network-agent`,
// and DNS the ServiceAccount kube-system/capstan-dns (a certificate for that user rather than a
// token: a TokenRequest token expires, and the DNS process has no kubelet to renew it).
import { join } from 'node:path';
import { loadKubeconfig, writeKubeconfig } from './kubeconfig.js';
import { issueCert, loadOrCreate, type KeyPair } from '../pki/index.js';

export interface NodeKubeconfigs {
  kubelet: string;
  proxy: string;
  networkAgent: string;
  dns: string;
}

export const NETWORK_AGENT_USER = 'system:capstan-network-agent';
export const DNS_SERVICE_ACCOUNT = { namespace: 'kube-system', name: 'capstan-dns' };

export function nodeIdentities(nodeName: string): Record<keyof NodeKubeconfigs, { commonName: string; organizations: string[] }> {
  return {
    kubelet: { commonName: `system:node:${nodeName}`, organizations: ['system:nodes'] },
    proxy: { commonName: 'system:kube-proxy', organizations: [] },
    networkAgent: { commonName: NETWORK_AGENT_USER, organizations: [] },
    dns: {
      commonName: `system:serviceaccount:${DNS_SERVICE_ACCOUNT.namespace}:${DNS_SERVICE_ACCOUNT.name}`,
      organizations: ['system:serviceaccounts', `system:serviceaccounts:${DNS_SERVICE_ACCOUNT.namespace}`],
    },
  };
}

/** Where writeNodeKubeconfigs puts a component's kubeconfig. */
export const nodeKubeconfigPath = (dataDir: string, component: keyof NodeKubeconfigs): string => join(dataDir, `${component}.kubeconfig`);

/**
 * Writes `<dataDir>/<component>.kubeconfig` for each node component (all by default; an
 * operator provisioning a node that joins with a token writes all but the kubelet's), for the API server that
 * `fromKubeconfig` names, with client certificates issued by `ca` (kept in `<dataDir>/pki`).
 */
export function writeNodeKubeconfigs(dataDir: string, ca: KeyPair, fromKubeconfig: string, nodeName: string,
  components: (keyof NodeKubeconfigs)[] = ['kubelet', 'proxy', 'networkAgent', 'dns']): NodeKubeconfigs {
  const { server } = loadKubeconfig(fromKubeconfig);
  const ids = nodeIdentities(nodeName);
  const out = {} as NodeKubeconfigs;
  for (const component of components) {
    const id = ids[component];
    // The node name is part of the kubelet's file name: a renamed node gets a new identity.
    const file = component === 'kubelet' ? `kubelet-client-${nodeName}` : `${component}-client`;
    const kp = loadOrCreate(join(dataDir, 'pki'), file, () => issueCert(ca, { ...id, usage: 'client' }));
    const path = nodeKubeconfigPath(dataDir, component);
    writeKubeconfig(path, { server, caPem: ca.certPem, certPem: kp.certPem, keyPem: kp.keyPem }, { user: component });
    out[component] = path;
  }
  return out;
}
