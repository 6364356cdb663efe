// Client certificates for a joined node's other components — the service proxy
// (system:kube-proxy), the network agent and DNS — requested by the node itself with
// CertificateSigningRequests to kubernetes.io/kube-apiserver-client, which the
// controller-manager's approver grants an active node for exactly these subjects. So a node
// that joined with nothing but a bootstrap token runs each component as its own identity
// (upstream runs them as DaemonSet pods whose ServiceAccount tokens any node may obtain; the
// trust is the same). Each certificate lives in the cert dir as <component>-client-current.pem
// and is renewed in place by a CertificateManager, as the kubelet's own: by the process that
// requested it (capstan up), or on an installed node by the kubelet, which outlives the
// installer (renewComponentCertificates). The component's API client reads the renewed file
// again (RESTClient's certificate file recheck): no restart.
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import yaml from 'js-yaml';
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

/**
 * The node's own client, for the requests, shared by the components' managers (their requests
 * may overlap). The node's certificate rotates under its kubeconfig's path: each request first
 * looks whether the file holds a new one.
 */
function nodeClientsFrom(kubeletKubeconfig: string): { clients(): Clientset; close(): void } {
  let rest: RESTClient | undefined;
  return {
    clients: () => {
      if (!rest) rest = new RESTClient(readConfig(kubeletKubeconfig), 'capstan-node-components');
      else rest.reloadClientCertificate();
      return new Clientset(rest);
    },
    close: () => rest?.close(),
  };
}

const componentStore = (certDir: string, component: NodeComponent) => new CertificateStore(certDir, `${component}-client`);

/** A component's certificate, requested and renewed by the node (always as itself: a component's own certificate may have expired). */
function componentManager(component: NodeComponent, store: CertificateStore, node: { clients(): Clientset }, o: { clock: Clock; log: Logger; random?: () => number }): CertificateManager {
  const id = nodeIdentities('')[component];
  return new CertificateManager({
    store, signerName: APISERVER_CLIENT_SIGNER, usages: clientUsages, clock: o.clock, log: o.log, random: o.random,
    subject: () => id, clients: () => node.clients(),
  });
}

/** Requests (or reuses) each component's certificate and writes its kubeconfig; the managers keep them renewed until stop(). */
export async function componentCredentials(o: ComponentCredentialsOptions): Promise<{ kubeconfigs: Partial<Record<NodeComponent, string>>; stop(): void }> {
  const node = nodeClientsFrom(o.kubeletKubeconfig);
  const managers: CertificateManager[] = [];
  const stop = () => { for (const m of managers) m.stop(); node.close(); };
  const kubeconfigs: Partial<Record<NodeComponent, string>> = {};
  try {
    for (const component of o.components) {
      const store = componentStore(o.certDir, component);
      const manager = componentManager(component, store, node, o);
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

export interface ComponentRenewalOptions extends ComponentCredentialsOptions {
  /** How often to look again for a component whose certificate is not there yet (default 1 min). */
  rescanMs?: number;
  random?: () => number;
}

/** Whether the kubeconfig's current user is the pair at `pairPath` (by file, as writeCertDirKubeconfig writes it). */
function usesPair(kubeconfig: string, pairPath: string): boolean {
  try {
    const raw = yaml.load(readFileSync(kubeconfig, 'utf8')) as { users?: { name: string; user?: Record<string, unknown> }[]; contexts?: { name: string; context?: { user?: string } }[]; 'current-context'?: string };
    const userName = raw.contexts?.find((c) => c.name === raw['current-context'])?.context?.user;
    const file = raw.users?.find((u) => u.name === userName)?.user?.['client-certificate'];
    return typeof file === 'string' && resolve(dirname(kubeconfig), file) === resolve(pairPath);
  } catch {
    return false; // no kubeconfig yet
  }
}

/**
 * Keeps renewed, as the node, the certificates the node requested for its components (those
 * whose kubeconfig names the cert dir's `<component>-client-current.pem`): a new key and CSR at
 * 70–90% of the lifetime, and at once for one that expired while nothing renewed it. What is
 * not there yet (an installer requests them once the kubelet has registered its Node) is looked
 * for again every `rescanMs`; a kubeconfig with an operator's certificate is left alone.
 */
export function renewComponentCertificates(o: ComponentRenewalOptions): { managers: Map<NodeComponent, CertificateManager>; scanned: Promise<void>; stop(): void } {
  const node = nodeClientsFrom(o.kubeletKubeconfig);
  const managers = new Map<NodeComponent, CertificateManager>();
  let stopped = false;
  let timer: unknown;
  const scan = async () => {
    for (const component of o.components) {
      if (stopped || managers.has(component)) continue;
      const store = componentStore(o.certDir, component);
      if (!store.current() || !usesPair(o.kubeconfigPath(component), store.currentPath)) continue;
      const manager = componentManager(component, store, node, o);
      managers.set(component, manager);
      try {
        await manager.start();
        o.log.info('renewing a node component\'s certificate', { component, notAfter: manager.current?.cert.validTo });
      } catch (error) {
        manager.stop();
        managers.delete(component); // expired and not yet renewed: the next scan tries again
        o.log.error('a node component\'s certificate could not be renewed', { component, error: String(error) });
      }
    }
    if (!stopped && managers.size < o.components.length) timer = o.clock.setTimeout(() => void scan(), o.rescanMs ?? 60_000);
  };
  const scanned = scan();
  return {
    managers, scanned,
    stop: () => { stopped = true; o.clock.clearTimeout(timer); for (const m of managers.values()) m.stop(); node.close(); },
  };
}
