// `capstan token create [--ttl 24h]`: a bootstrap token for joining nodes (kubeadm's token
// create): a kube-system Secret `bootstrap-token-<id>` usable for authentication and for
// signing cluster-info, in kubeadm's default-node-token group; prints the join command with
// the server cluster-info names and the CA's public key hash — once the controller-manager's
// bootstrap signer has signed cluster-info for the token, since a node's discovery fails
// until then (a join started the moment the command returned used to fail).
import { parseArgs } from 'node:util';
import { randomInt } from 'node:crypto';
import { resolve } from 'node:path';
import { bootstrapTokenKeys, bootstrapTokenNamespace, bootstrapTokenSecretPrefix, bootstrapTokenSecretType } from '../api/bootstrap-token.js';
import { caCertHash, clusterInfo } from '../api/cluster-info.js';
import { clientsetFromKubeconfig, isNotFound, loadKubeconfig, resources, type ClientsetAPI } from '../client/index.js';
import { parseDuration } from '../util/index.js';
import { NODE_BOOTSTRAP_TOKEN_GROUP } from './node-bootstrap.js';
import { clusterOf } from './join-discovery.js';
import { until } from './install/wait.js';

/**
 * The server cluster-info names (capstan up's advertise address, reachable from other
 * machines, as kubeadm prints its control-plane endpoint), else undefined.
 */
async function advertisedServer(clients: ClientsetAPI): Promise<string | undefined> {
  try {
    const cm = await clients.resource(resources.configmaps).get(clusterInfo.namespace, clusterInfo.name);
    const kubeconfig = cm.data?.[clusterInfo.kubeconfigKey];
    return kubeconfig ? clusterOf(kubeconfig).server : undefined;
  } catch (e) {
    if (isNotFound(e)) return undefined; // no cluster-info (a bare API server): the kubeconfig's server
    throw e;
  }
}

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';
const randomString = (n: number) => Array.from({ length: n }, () => ALPHABET[randomInt(ALPHABET.length)]).join('');

export interface CreatedToken {
  token: string;
  /** Epoch ms; Infinity for a token that does not expire (--ttl 0). */
  expires: number;
}

/** Creates the token Secret; `ttlMs` 0 means no expiry. */
export async function createBootstrapToken(clients: ClientsetAPI, ttlMs: number, description = 'bootstrap token for capstan join', now = Date.now()): Promise<CreatedToken> {
  const id = randomString(6), secret = randomString(16);
  const data: Record<string, string> = {
    [bootstrapTokenKeys.id]: id, [bootstrapTokenKeys.secret]: secret,
    [bootstrapTokenKeys.usageAuthentication]: 'true', [bootstrapTokenKeys.usageSigning]: 'true',
    [bootstrapTokenKeys.extraGroups]: NODE_BOOTSTRAP_TOKEN_GROUP, [bootstrapTokenKeys.description]: description,
  };
  const expires = ttlMs > 0 ? now + ttlMs : Infinity;
  if (ttlMs > 0) data[bootstrapTokenKeys.expiration] = new Date(expires).toISOString().replace(/\.\d{3}Z$/, 'Z');
  await clients.resource(resources.secrets).create(bootstrapTokenNamespace, {
    apiVersion: 'v1', kind: 'Secret', type: bootstrapTokenSecretType,
    metadata: { name: `${bootstrapTokenSecretPrefix}${id}`, namespace: bootstrapTokenNamespace },
    data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
  });
  return { token: `${id}.${secret}`, expires };
}

/**
 * Resolves once the bootstrap signer has signed cluster-info for `token` (its
 * `jws-kubeconfig-<id>` entry): only then can a node's discovery verify the control plane.
 */
export async function clusterInfoSigned(clients: ClientsetAPI, token: string, timeoutMs: number, everyMs = 1000): Promise<void> {
  const jwsKey = `${clusterInfo.jwsKeyPrefix}${token.split('.')[0]}`;
  await until('the bootstrap signer to sign cluster-info for the new token', timeoutMs, async () =>
    (await clients.resource(resources.configmaps).get(clusterInfo.namespace, clusterInfo.name)).data?.[jwsKey] ? true : undefined, everyMs);
}

/** The `capstan join …` command line for a token. */
export function joinCommand(server: string, token: string, caPem: string): string {
  return `capstan join --server ${server} --token ${token} --discovery-token-ca-cert-hash ${caCertHash(caPem)}`;
}

export async function run(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub !== 'create') throw new Error('usage: capstan token create [--ttl 24h] [--description TEXT] [--timeout 5m] [--kubeconfig FILE | --data-dir DIR]');
  const { values } = parseArgs({ args: rest, strict: true, options: {
    ttl: { type: 'string', default: '24h' }, description: { type: 'string' },
    // How long to wait for the bootstrap signer (kubeadm's discovery timeout).
    timeout: { type: 'string', default: '5m' },
    kubeconfig: { type: 'string' }, 'data-dir': { type: 'string', default: '.capstan' },
  } });
  const kubeconfig = resolve(values.kubeconfig ?? `${values['data-dir']}/admin.kubeconfig`);
  const cfg = loadKubeconfig(kubeconfig);
  if (!cfg.caPem) throw new Error(`${kubeconfig} names no certificate authority: the join command needs its hash`);
  const clients = clientsetFromKubeconfig(kubeconfig, 'capstan-token');
  try {
    const timeoutMs = parseDuration(values.timeout);
    const advertised = await advertisedServer(clients);
    const created = await createBootstrapToken(clients, values.ttl === '0' ? 0 : parseDuration(values.ttl), values.description);
    // Without cluster-info (a bare API server) there is nothing to sign: the kubeconfig's server.
    if (advertised) {
      try {
        await clusterInfoSigned(clients, created.token, timeoutMs);
      } catch (e) {
        // A token no node can discover with is not handed out; nor left behind.
        await clients.resource(resources.secrets).delete(bootstrapTokenNamespace, `${bootstrapTokenSecretPrefix}${created.token.split('.')[0]}`).catch(() => undefined);
        throw new Error(`${(e as Error).message} (is the controller-manager running with its bootstrapsigner controller?); the token was deleted`);
      }
    }
    process.stdout.write(`${joinCommand(advertised ?? cfg.server, created.token, cfg.caPem)}\n`);
  } finally {
    clients.close();
  }
  return 0;
}
