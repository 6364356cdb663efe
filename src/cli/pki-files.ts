// The cluster's credentials under the data dir: CA, API serving certificate (IP SANs for
// every address it is reached on, including the `kubernetes` Service IP), the admin client
// certificate, a static token file, and admin.kubeconfig.
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { createCA, ensureServingCert, issueCert, loadOrCreate, type KeyPair } from '../pki/index.js';
import { cidrRange } from '../apiserver/registry/core/allocator.js';
import { formatIPv4 } from '../util/index.js';
import { writeKubeconfig } from '../client/kubeconfig.js';

export interface ClusterPKI {
  ca: KeyPair;
  serving: KeyPair;
  admin: KeyPair;
  /** The API server's identity towards kubelets (logs, exec): CN kube-apiserver-kubelet-client, O system:masters. */
  kubeletClient: KeyPair;
  tokenFile: string;
}

export function ensureClusterPKI(dataDir: string, addresses: string[], serviceRange: string): ClusterPKI {
  const dir = join(dataDir, 'pki');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const ca = loadOrCreate(dir, 'ca', () => createCA('capstan-ca'));
  const serviceIP = formatIPv4(cidrRange(serviceRange).first);
  const ips = [...new Set(['127.0.0.1', ...addresses, serviceIP])];
  const serving = ensureServingCert(dir, 'apiserver', ca, ips, ['localhost', 'kubernetes', 'kubernetes.default', 'kubernetes.default.svc', 'kubernetes.default.svc.cluster.local']);
  const admin = loadOrCreate(dir, 'admin', () => issueCert(ca, { commonName: 'kubernetes-admin', organizations: ['system:masters'], usage: 'client' }));
  const kubeletClient = loadOrCreate(dir, 'apiserver-kubelet-client', () => issueCert(ca, { commonName: 'kube-apiserver-kubelet-client', organizations: ['system:masters'], usage: 'client' }));
  const tokenFile = join(dataDir, 'tokens.csv');
  if (!existsSync(tokenFile)) {
    writeFileSync(tokenFile, `${randomBytes(24).toString('hex')},admin-token,admin-token-uid,"system:masters"\n`, { mode: 0o600 });
  }
  chmodSync(tokenFile, 0o600);
  return { ca, serving, admin, kubeletClient, tokenFile };
}

export function writeAdminKubeconfig(dataDir: string, pki: ClusterPKI, server: string, file = 'admin.kubeconfig'): string {
  const path = join(dataDir, file);
  writeKubeconfig(path, { server, caPem: pki.ca.certPem, certPem: pki.admin.certPem, keyPem: pki.admin.keyPem });
  return path;
}

/** Kubernetes' identities of the control-plane components, for their own kubeconfigs. */
export const componentIdentities = {
  'controller-manager': { commonName: 'system:kube-controller-manager', organizations: [] as string[] },
  scheduler: { commonName: 'system:kube-scheduler', organizations: [] as string[] },
  'hollow-nodes': { commonName: 'system:capstan-hollow-nodes', organizations: [] as string[] },
} as const;

/** `<data-dir>/<component>.kubeconfig` with a client certificate of the component's own identity. */
export function writeComponentKubeconfig(dataDir: string, pki: ClusterPKI, server: string, component: keyof typeof componentIdentities): string {
  const id = componentIdentities[component];
  const kp = loadOrCreate(join(dataDir, 'pki'), component, () => issueCert(pki.ca, { commonName: id.commonName, organizations: [...id.organizations], usage: 'client' }));
  const path = join(dataDir, `${component}.kubeconfig`);
  writeKubeconfig(path, { server, caPem: pki.ca.certPem, certPem: kp.certPem, keyPem: kp.keyPem }, { user: component });
  return path;
}
