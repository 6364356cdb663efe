// Where an operator finds its API server: inside a pod from the ServiceAccount token and CA
// the kubelet mounts at /var/run/secrets/kubernetes.io/serviceaccount and the
// KUBERNETES_SERVICE_HOST/PORT variables it sets (client-go's rest.InClusterConfig), else
// from a kubeconfig (--kubeconfig, then $KUBECONFIG, then ~/.kube/config).
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { loadKubeconfig, type ClientConfig } from '../client/index.js';

export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

export interface Connection {
  config: ClientConfig;
  /** The namespace the operator runs in (the pod's, or the kubeconfig context's). */
  namespace: string;
  /** Stops re-reading a rotating token. */
  close(): void;
}

/** How often the projected token is read again: the kubelet rotates it at 80% of its life. */
const TOKEN_REFRESH_MS = 60_000;

/** The in-cluster connection; throws when the process does not run in a pod. */
export function inClusterConnection(env: NodeJS.ProcessEnv = process.env, dir = SERVICE_ACCOUNT_DIR): Connection {
  const host = env.KUBERNETES_SERVICE_HOST;
  const port = env.KUBERNETES_SERVICE_PORT;
  if (!host || !port) throw new Error('unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be defined');
  const read = (name: string) => readFileSync(join(dir, name), 'utf8');
  const config: ClientConfig = {
    server: `https://${host.includes(':') ? `[${host}]` : host}:${port}`,
    caPem: read('ca.crt'),
    token: read('token').trim(),
  };
  const namespace = existsSync(join(dir, 'namespace')) ? read('namespace').trim() : 'default';
  // The client reads config.token on every request: a rotated token is used from the next one.
  const timer = setInterval(() => {
    try { config.token = read('token').trim(); } catch { /* keep the last token until the file is back */ }
  }, TOKEN_REFRESH_MS);
  timer.unref();
  return { config, namespace, close: () => clearInterval(timer) };
}

/** From a kubeconfig file and optional context. */
export function kubeconfigConnection(path: string, context?: string): Connection {
  const { namespace, ...config } = loadKubeconfig(path, context);
  return { config, namespace: namespace ?? 'default', close: () => undefined };
}

/** The kubeconfig given, else in-cluster when in a pod, else $KUBECONFIG or ~/.kube/config. */
export function connect(opts: { kubeconfig?: string; context?: string } = {}, env: NodeJS.ProcessEnv = process.env): Connection {
  if (opts.kubeconfig) return kubeconfigConnection(opts.kubeconfig, opts.context);
  if (env.KUBERNETES_SERVICE_HOST && existsSync(join(SERVICE_ACCOUNT_DIR, 'token'))) return inClusterConnection(env);
  const path = env.KUBECONFIG?.split(':')[0] || join(homedir(), '.kube', 'config');
  return kubeconfigConnection(path, opts.context);
}
