// The control plane's files: the cluster's PKI and keys in /etc/capstan (created once, kept on
// upgrades), the components' kubeconfigs, and once the API server runs, what token joins need
// (kubeadm's bootstrap-token phase) and a token for the next node.
import { join } from 'node:path';
import { ensureSigningKeyFile } from '../../apiserver/authn/index.js';
import { clientsetFromKubeconfig } from '../../client/index.js';
import { ensureClusterPKI, writeAdminKubeconfig, writeComponentKubeconfig, type ClusterPKI } from '../pki-files.js';
import { ensureClusterInfo, ensureNodeBootstrapRBAC } from '../node-bootstrap.js';
import { clusterInfoSigned, createBootstrapToken } from '../token.js';
import { caCertHash } from '../../api/cluster-info.js';
import { retryingTransport } from './wait.js';
import { httpsURL } from '../inherited-listener.js';
import type { InstallFiles } from './files.js';
import type { Layout } from './layout.js';

export const API_PORT = 6443;

export interface ControlPlaneSettings {
  advertiseAddress: string;
  serviceCIDR: string;
}

export interface ControlPlaneFiles {
  pki: ClusterPKI;
  adminKubeconfig: string;
  server: string;
}

/** PKI, ServiceAccount key and kubeconfigs; existing keys and certificates are reused (serving certs reissued for new addresses). */
export function writeControlPlaneFiles(L: Layout, files: InstallFiles, s: ControlPlaneSettings): ControlPlaneFiles {
  files.mkdir(L.etc, 0o700);
  for (const f of ['pki', 'tokens.csv', 'sa.key', 'admin.kubeconfig', 'controller-manager.kubeconfig', 'scheduler.kubeconfig']) files.expect(join(L.etc, f));
  const pki = ensureClusterPKI(L.etc, ['127.0.0.1', s.advertiseAddress], s.serviceCIDR);
  ensureSigningKeyFile(join(L.etc, 'sa.key'));
  const server = httpsURL(s.advertiseAddress, API_PORT);
  const local = httpsURL('127.0.0.1', API_PORT);
  const adminKubeconfig = writeAdminKubeconfig(L.etc, pki, server);
  writeComponentKubeconfig(L.etc, pki, local, 'controller-manager');
  writeComponentKubeconfig(L.etc, pki, local, 'scheduler');
  return { pki, adminKubeconfig, server };
}

/** With the API server up: join RBAC, cluster-info naming `server`, and a fresh token's join command. */
export async function prepareJoins(cp: ControlPlaneFiles, tokenTTLMs: number): Promise<JoinArgs> {
  const clients = clientsetFromKubeconfig(cp.adminKubeconfig, 'capstan-install');
  try {
    await retryingTransport('the node bootstrap RBAC', 300_000, () => ensureNodeBootstrapRBAC(clients));
    await retryingTransport('cluster-info', 300_000, () => ensureClusterInfo(clients, cp.server, cp.pki.ca.certPem));
    const { token } = await createBootstrapToken(clients, tokenTTLMs, 'capstan install: joining nodes');
    // The controller-manager's bootstrap signer signs cluster-info for the new token; a node's
    // discovery fails until it has, so the join command is printed only then. On an emulated VM
    // the controller-manager took over 10 minutes to start (its CPU shared with other VMs).
    await clusterInfoSigned(clients, token, 1_800_000, 2000);
    return { server: cp.server, token, caCertHash: caCertHash(cp.pki.ca.certPem) };
  } finally {
    clients.close();
  }
}

/** What a node needs to join: kubeadm join's token discovery. */
export interface JoinArgs {
  server: string;
  token: string;
  caCertHash: string;
}

export const installJoinCommand = (j: JoinArgs): string =>
  `capstan install --role node --join ${j.server} --token ${j.token} --discovery-token-ca-cert-hash ${j.caCertHash}`;
