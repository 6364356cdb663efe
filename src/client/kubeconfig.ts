// kubeconfig files: written by `capstan up` for kubectl, read by every capstan component that
// talks to the API server.
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import yaml from 'js-yaml';

export interface ClientConfig {
  server: string;
  caPem?: string;
  certPem?: string;
  keyPem?: string;
  token?: string;
  insecureSkipTLSVerify?: boolean;
  /** Where certPem and keyPem were read from, when the kubeconfig names files: they are read again as they change (RESTClient). */
  certFile?: string;
  keyFile?: string;
  /** Connections to the API server at most (requests in flight, HTTP/1.1); default 64. */
  maxSockets?: number;
}

const b64 = (s: string) => Buffer.from(s).toString('base64');

export function kubeconfigYAML(cfg: ClientConfig, opts: { cluster?: string; user?: string } = {}): string {
  const cluster = opts.cluster ?? 'capstan';
  const user = opts.user ?? 'admin';
  const doc = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: cluster, cluster: { server: cfg.server, ...(cfg.caPem ? { 'certificate-authority-data': b64(cfg.caPem) } : {}), ...(cfg.insecureSkipTLSVerify ? { 'insecure-skip-tls-verify': true } : {}) } }],
    users: [{ name: user, user: { ...(cfg.certPem ? { 'client-certificate-data': b64(cfg.certPem) } : {}), ...(cfg.keyPem ? { 'client-key-data': b64(cfg.keyPem) } : {}), ...(cfg.token ? { token: cfg.token } : {}) } }],
    contexts: [{ name: cluster, context: { cluster, user } }],
    'current-context': cluster,
    preferences: {},
  };
  return yaml.dump(doc, { lineWidth: -1 });
}

export function writeKubeconfig(path: string, cfg: ClientConfig, opts: { cluster?: string; user?: string } = {}): void {
  // It holds a private key or token: owner only, also when it overwrites an older file.
  writeFileSync(path, kubeconfigYAML(cfg, opts), { mode: 0o600 });
  chmodSync(path, 0o600);
}

interface RawKubeconfig {
  clusters?: { name: string; cluster: Record<string, string | boolean> }[];
  users?: { name: string; user: Record<string, string> }[];
  contexts?: { name: string; context: { cluster: string; user: string; namespace?: string } }[];
  'current-context'?: string;
}

/** Reads the current context of a kubeconfig (inline data or file references). */
export function loadKubeconfig(path: string, context?: string): ClientConfig & { namespace?: string } {
  const raw = yaml.load(readFileSync(path, 'utf8')) as RawKubeconfig;
  const ctxName = context ?? raw['current-context'];
  const ctx = raw.contexts?.find((c) => c.name === ctxName)?.context;
  if (!ctx) throw new Error(`kubeconfig ${path}: context "${ctxName}" not found`);
  const cluster = raw.clusters?.find((c) => c.name === ctx.cluster)?.cluster;
  const user = raw.users?.find((u) => u.name === ctx.user)?.user ?? {};
  if (!cluster) throw new Error(`kubeconfig ${path}: cluster "${ctx.cluster}" not found`);
  const base = dirname(path);
  const path_ = (file: unknown) => typeof file === 'string' ? (isAbsolute(file) ? file : resolve(base, file)) : undefined;
  const data = (inline: unknown, file: unknown): string | undefined => {
    if (typeof inline === 'string') return Buffer.from(inline, 'base64').toString('utf8');
    if (typeof file === 'string') return readFileSync(path_(file)!, 'utf8');
    return undefined;
  };
  return {
    server: String(cluster.server),
    caPem: data(cluster['certificate-authority-data'], cluster['certificate-authority']),
    insecureSkipTLSVerify: cluster['insecure-skip-tls-verify'] === true,
    certPem: data(user['client-certificate-data'], user['client-certificate']),
    keyPem: data(user['client-key-data'], user['client-key']),
    ...(typeof user['client-certificate-data'] !== 'string' && typeof user['client-key-data'] !== 'string' && user['client-certificate'] && user['client-key']
      ? { certFile: path_(user['client-certificate']), keyFile: path_(user['client-key']) } : {}),
    token: user.token ?? (user.tokenFile ? readFileSync(user.tokenFile, 'utf8').trim() : undefined),
    namespace: ctx.namespace,
  };
}
