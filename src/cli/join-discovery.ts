// Token discovery, as `kubeadm join --discovery-token-ca-cert-hash` does it: read
// kube-public/cluster-info anonymously without trusting the server yet, check that the
// bootstrap signer signed it with our token (so the server knows the token), check that its
// CA's public key is one the user pinned, then read it again over TLS verified by that CA.
import { request } from 'node:https';
import yaml from 'js-yaml';
import { parseBootstrapToken } from '../api/bootstrap-token.js';
import { caCertHash, clusterInfo, verifyDetachedSignature } from '../api/cluster-info.js';

export interface Discovered {
  /** The API server named in cluster-info. */
  server: string;
  caPem: string;
}

const path = `/api/v1/namespaces/${clusterInfo.namespace}/configmaps/${clusterInfo.name}`;

function fetchClusterInfo(server: string, caPem: string | undefined): Promise<Record<string, string>> {
  const url = new URL(path, server);
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: 'GET', headers: { Accept: 'application/json' }, agent: false, timeout: 10_000,
      // The first read cannot verify the server: the signature and the pinned hash do.
      ...(caPem ? { ca: caPem } : { rejectUnauthorized: false }),
    }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => { body += d; });
      res.on('end', () => {
        if (res.statusCode !== 200) return reject(new Error(`reading ${clusterInfo.namespace}/${clusterInfo.name} from ${server}: HTTP ${res.statusCode}: ${body.trim()}`));
        try {
          resolve((JSON.parse(body) as { data?: Record<string, string> }).data ?? {});
        } catch (e) {
          reject(new Error(`reading ${clusterInfo.namespace}/${clusterInfo.name} from ${server}: ${(e as Error).message}`));
        }
      });
    });
    req.on('timeout', () => req.destroy(new Error(`reading cluster-info from ${server}: timed out`)));
    req.on('error', reject);
    req.end();
  });
}

/** The server and CA of the first cluster in cluster-info's kubeconfig. */
export function clusterOf(kubeconfig: string): Discovered {
  const raw = yaml.load(kubeconfig) as { clusters?: { cluster?: Record<string, string> }[] } | undefined;
  const cluster = raw?.clusters?.[0]?.cluster;
  if (!cluster?.server || !cluster['certificate-authority-data']) throw new Error('the cluster-info kubeconfig names no server and CA');
  return { server: cluster.server, caPem: Buffer.from(cluster['certificate-authority-data'], 'base64').toString('utf8') };
}

/** Throws with kubeadm's wording when the token or the CA cannot be trusted. */
export async function discover(server: string, token: string, caCertHashes: string[]): Promise<Discovered> {
  const t = parseBootstrapToken(token);
  if (!t) throw new Error(`the bootstrap token "${token.slice(0, 6)}…" was not of the form "[a-z0-9]{6}.[a-z0-9]{16}"`);
  if (!caCertHashes.length) throw new Error('--discovery-token-ca-cert-hash is required: without it any server could claim to be the cluster');
  const data = await fetchClusterInfo(server, undefined);
  const content = data[clusterInfo.kubeconfigKey];
  if (content === undefined) throw new Error(`there is no "${clusterInfo.kubeconfigKey}" key in the cluster-info ConfigMap of ${server}`);
  const jws = data[`${clusterInfo.jwsKeyPrefix}${t.id}`];
  if (jws === undefined) throw new Error(`token id "${t.id}" is invalid for this cluster or it has expired. Use "capstan token create" on the control-plane node to create a new valid token`);
  if (!verifyDetachedSignature(content, jws, t.id, t.secret)) throw new Error('failed to verify JWS signature of received cluster info object, can\'t trust this API Server');
  const found = clusterOf(content);
  const hash = caCertHash(found.caPem);
  const wanted = caCertHashes.map((h) => h.toLowerCase());
  if (!wanted.includes(hash)) throw new Error(`cluster CA found in cluster-info ConfigMap is invalid: none of the public keys "${hash}" are pinned`);
  // Now the CA is trusted: the server must prove it holds that CA's certificate.
  const again = await fetchClusterInfo(found.server, found.caPem);
  if (again[clusterInfo.kubeconfigKey] !== content) throw new Error('the cluster-info read with the pinned CA differs from the first read');
  return found;
}
