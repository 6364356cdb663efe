// kubeadm's discovery objects: the kube-public/cluster-info ConfigMap holds a kubeconfig naming
// the API server and its CA; the bootstrap signer adds `jws-kubeconfig-<token-id>`, a detached
// JWS (HS256, keyed by the token's secret) of that kubeconfig, so a joining node that knows a
// token can tell the ConfigMap is genuine. The CA is pinned by the hash of its public key.
import { createHash, createHmac, timingSafeEqual, X509Certificate } from 'node:crypto';

export const clusterInfo = { namespace: 'kube-public', name: 'cluster-info', kubeconfigKey: 'kubeconfig', jwsKeyPrefix: 'jws-kubeconfig-' };

const b64url = (b: Buffer | string) => Buffer.from(b).toString('base64url');

/** `<header>..<signature>`: a compact JWS of `content` with the payload left out (kubeadm's ComputeDetachedSignature). */
export function detachedSignature(content: string, tokenID: string, tokenSecret: string): string {
  const header = b64url(JSON.stringify({ alg: 'HS256', kid: tokenID }));
  const signature = createHmac('sha256', tokenSecret).update(`${header}.${b64url(content)}`).digest();
  return `${header}..${b64url(signature)}`;
}

/** Whether `jws` is the detached signature of `content` by this token (constant-time). */
export function verifyDetachedSignature(content: string, jws: string, tokenID: string, tokenSecret: string): boolean {
  const want = Buffer.from(detachedSignature(content, tokenID, tokenSecret));
  const got = Buffer.from(jws);
  return want.length === got.length && timingSafeEqual(want, got);
}

/** `sha256:<hex>` of the CA certificate's SubjectPublicKeyInfo, as `--discovery-token-ca-cert-hash` names it. */
export function caCertHash(caPem: string): string {
  const spki = new X509Certificate(caPem).publicKey.export({ type: 'spki', format: 'der' });
  return `sha256:${createHash('sha256').update(spki).digest('hex')}`;
}
