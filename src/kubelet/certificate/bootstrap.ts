// The kubelet's API credentials (upstream pkg/kubelet/certificate/bootstrap): a --kubeconfig
// with a valid client certificate is used as it is; without one, the --bootstrap-kubeconfig
// (a bootstrap token) requests a certificate for `system:node:<name>` in `system:nodes`,
// writes it to --cert-dir as kubelet-client-current.pem and a --kubeconfig that points at
// it. With rotation on, the certificate renews itself, the node asking as itself.
import { X509Certificate } from 'node:crypto';
import { chmodSync, existsSync, writeFileSync } from 'node:fs';
import yaml from 'js-yaml';
import { Clientset, loadKubeconfig, RESTClient, type ClientConfig, type Clock } from '../../client/index.js';
import type { Logger } from '../../log/index.js';
import { CertificateManager } from './manager.js';
import { CertificateStore, splitPair } from './store.js';

export const KUBELET_CLIENT_SIGNER = 'kubernetes.io/kube-apiserver-client-kubelet';
export const KUBELET_SERVING_SIGNER = 'kubernetes.io/kubelet-serving';
// ECDSA keys: no "key encipherment", as upstream's kubelet asks.
export const clientUsages = ['digital signature', 'client auth'];
export const servingUsages = ['digital signature', 'server auth'];

export interface ClientCredentialsOptions {
  nodeName: string;
  kubeconfig: string;
  bootstrapKubeconfig?: string;
  certDir: string;
  /** Keep the client certificate renewed (--rotate-certificates). */
  rotate: boolean;
  clock: Clock;
  log: Logger;
  userAgent?: string;
  expirationSeconds?: number;
  random?: () => number;
}

export interface ClientCredentials {
  rest: RESTClient;
  clients: Clientset;
  /** Present when the certificate is the cert dir's and rotation is on. */
  manager?: CertificateManager;
  stop(): void;
}

/** A kubeconfig whose client-certificate file holds both the certificate and the key, read as a pair. */
export function readConfig(path: string): ClientConfig {
  const cfg = loadKubeconfig(path);
  if (!cfg.certPem?.includes('PRIVATE KEY') && !cfg.keyPem?.includes('CERTIFICATE')) return cfg;
  return { ...cfg, certPem: splitPair(cfg.certPem ?? '').certPem, keyPem: splitPair(cfg.keyPem ?? '').keyPem };
}

/** A kubeconfig whose user is the cert dir's current pair, by path, so rotations need no rewrite. */
export function writeCertDirKubeconfig(path: string, cluster: ClientConfig, pairPath: string): void {
  const doc = {
    apiVersion: 'v1', kind: 'Config',
    clusters: [{ name: 'default-cluster', cluster: { server: cluster.server, ...(cluster.caPem ? { 'certificate-authority-data': Buffer.from(cluster.caPem).toString('base64') } : {}) } }],
    users: [{ name: 'default-auth', user: { 'client-certificate': pairPath, 'client-key': pairPath } }],
    contexts: [{ name: 'default-context', context: { cluster: 'default-cluster', user: 'default-auth' } }],
    'current-context': 'default-context',
  };
  writeFileSync(path, yaml.dump(doc, { lineWidth: -1 }), { mode: 0o600 });
  chmodSync(path, 0o600);
}

function certificateValid(cfg: ClientConfig, now: number): boolean {
  if (!cfg.certPem || !cfg.keyPem) return !!cfg.token;
  try {
    return Date.parse(new X509Certificate(cfg.certPem).validTo) > now;
  } catch {
    return false;
  }
}

export async function clientCredentials(o: ClientCredentialsOptions): Promise<ClientCredentials> {
  const userAgent = o.userAgent ?? 'capstan-kubelet';
  const store = new CertificateStore(o.certDir, 'kubelet-client');
  const bootstrap = o.bootstrapKubeconfig ? (() => { const rest = new RESTClient(readConfig(o.bootstrapKubeconfig!), userAgent); return { rest, clients: new Clientset(rest) }; })() : undefined;
  let own: { rest: RESTClient; clients: Clientset } | undefined;
  const manager = new CertificateManager({
    store, signerName: KUBELET_CLIENT_SIGNER, usages: clientUsages, clock: o.clock, log: o.log,
    subject: () => ({ commonName: `system:node:${o.nodeName}`, organizations: ['system:nodes'] }),
    clients: (current) => {
      if (current && own) return own.clients;
      if (!bootstrap) throw new Error(`no valid client certificate in ${o.certDir} and no --bootstrap-kubeconfig to request one`);
      return bootstrap.clients;
    },
    onRotate: (pair) => own?.rest.setClientCertificate(pair.certPem, pair.keyPem),
    expirationSeconds: o.expirationSeconds, random: o.random,
  });
  const stop = () => { manager.stop(); bootstrap?.rest.close(); own?.rest.close(); };
  try {
    const existing = existsSync(o.kubeconfig) ? readConfig(o.kubeconfig) : undefined;
    if (!existing || !certificateValid(existing, o.clock.now())) {
      if (!bootstrap) throw new Error(`${o.kubeconfig} has no valid credentials and there is no --bootstrap-kubeconfig`);
      o.log.info('requesting a client certificate with the bootstrap credentials', { node: o.nodeName });
      await manager.start();
      writeCertDirKubeconfig(o.kubeconfig, bootstrap.rest.config, store.currentPath);
    }
    const cfg = readConfig(o.kubeconfig);
    const rest = new RESTClient(cfg, userAgent);
    own = { rest, clients: new Clientset(rest) };
    // Only a certificate of the cert dir's is renewed: one given by hand stays as it is.
    const managed = !!manager.current && !!cfg.certPem && new X509Certificate(cfg.certPem).fingerprint256 === manager.current.cert.fingerprint256;
    if (o.rotate && managed) {
      await manager.start();
      return { ...own, manager, stop };
    }
    manager.stop();
    return { ...own, stop };
  } catch (e) {
    stop();
    throw e;
  }
}
