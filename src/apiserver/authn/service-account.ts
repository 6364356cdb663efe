// Bound ServiceAccount tokens: the claims kube-apiserver signs for a TokenRequest, and the
// authenticator that accepts them on every request only while the signature, the time window,
// the audience and every object the token names (the ServiceAccount, and the Pod, Secret or
// Node it is bound to, each with the same uid) still hold.
import { randomUUID } from 'node:crypto';
import type { KubeObject } from '../../api/object.js';
import { decodeJWT, signJWT, verifySignature } from '../../util/jwt.js';
import type { ServiceAccountKeys } from './keys.js';
import { AuthenticationError, type TokenAuthenticator, type TokenResult, type UserInfo } from './types.js';

export const defaultIssuer = 'https://kubernetes.default.svc.cluster.local';
/** The lifetime kubelets ask for; with --service-account-extend-token-expiration it is stretched to a year and warns after it. */
export const warnOnlyBoundTokenExpirationSeconds = 60 * 60 + 7;
export const expirationExtensionSeconds = 24 * 365 * 60 * 60;
/** Clock skew tolerated on exp/nbf/iat and on deletions (go-jose's DefaultLeeway). */
const leewaySeconds = 60;

export const extraKeys = {
  podName: 'authentication.kubernetes.io/pod-name',
  podUID: 'authentication.kubernetes.io/pod-uid',
  nodeName: 'authentication.kubernetes.io/node-name',
  nodeUID: 'authentication.kubernetes.io/node-uid',
  credentialID: 'authentication.kubernetes.io/credential-id',
};

export const serviceAccountUsernamePrefix = 'system:serviceaccount:';

export function serviceAccountUsername(namespace: string, name: string): string {
  return `${serviceAccountUsernamePrefix}${namespace}:${name}`;
}

/** `system:serviceaccount:NS:NAME` → {namespace, name}, or null for any other username. */
export function splitServiceAccountUsername(username: string): { namespace: string; name: string } | null {
  if (!username.startsWith(serviceAccountUsernamePrefix)) return null;
  const parts = username.slice(serviceAccountUsernamePrefix.length).split(':');
  if (parts.length !== 2 || !parts[0] || !parts[1]) return null;
  return { namespace: parts[0], name: parts[1] };
}

export function serviceAccountGroups(namespace: string): string[] {
  return ['system:serviceaccounts', `system:serviceaccounts:${namespace}`];
}

/** Reads the objects a token names, current as the API server's watch cache has them. */
export interface ObjectGetter {
  get(resource: 'serviceaccounts' | 'pods' | 'secrets' | 'nodes', namespace: string | undefined, name: string): Promise<KubeObject | null>;
}

interface Ref { name: string; uid: string }

interface KubernetesClaim {
  namespace: string;
  serviceaccount: Ref;
  pod?: Ref;
  secret?: Ref;
  node?: Ref;
  warnafter?: number;
}

export interface TokenSpec {
  issuer: string;
  serviceAccount: KubeObject;
  audiences: string[];
  expirationSeconds: number;
  /** Seconds after issue when the token counts as stale (extended kubelet tokens). */
  warnAfterSeconds?: number;
  pod?: KubeObject;
  secret?: KubeObject;
  /** The node the token is bound to, or the node the bound pod runs on. */
  node?: KubeObject;
  nowMs: number;
}

const ref = (o: KubeObject): Ref => ({ name: o.metadata.name as string, uid: o.metadata.uid as string });

export function serviceAccountClaims(s: TokenSpec): Record<string, unknown> {
  const now = Math.floor(s.nowMs / 1000);
  const k8s: KubernetesClaim = { namespace: s.serviceAccount.metadata.namespace as string, serviceaccount: ref(s.serviceAccount) };
  if (s.pod) k8s.pod = ref(s.pod);
  else if (s.secret) k8s.secret = ref(s.secret);
  if (s.node) k8s.node = ref(s.node);
  if (s.warnAfterSeconds) k8s.warnafter = now + s.warnAfterSeconds;
  return {
    aud: s.audiences, exp: now + s.expirationSeconds, iat: now, iss: s.issuer, jti: randomUUID(),
    'kubernetes.io': k8s, nbf: now, sub: serviceAccountUsername(k8s.namespace, k8s.serviceaccount.name),
  };
}

export function signServiceAccountToken(s: TokenSpec, keys: ServiceAccountKeys): string {
  return signJWT(serviceAccountClaims(s), keys.signing);
}

/** What the TokenRequest endpoint signs with and by which rules. */
export interface TokenIssuerConfig {
  issuer: string;
  keys: ServiceAccountKeys;
  /** --api-audiences: what a TokenRequest without audiences gets. */
  apiAudiences: string[];
  /** --service-account-max-token-expiration in seconds; 0 for no cap. */
  maxExpirationSeconds: number;
  /** --service-account-extend-token-expiration. */
  extendExpiration: boolean;
}

export interface ServiceAccountAuthenticatorOptions {
  /** Issuers accepted; the first is the one new tokens carry. */
  issuers: string[];
  keys: ServiceAccountKeys;
  objects: ObjectGetter;
  now?: () => number;
}

export class ServiceAccountTokenAuthenticator implements TokenAuthenticator {
  constructor(private readonly opts: ServiceAccountAuthenticatorOptions) {}

  async authenticateToken(token: string, audiences: string[]): Promise<TokenResult | null> {
    const jwt = decodeJWT(token);
    // Not a JWT, or another issuer's: another authenticator may know it.
    if (!jwt || typeof jwt.claims.iss !== 'string' || !this.opts.issuers.includes(jwt.claims.iss)) return null;
    const k8s = jwt.claims['kubernetes.io'] as KubernetesClaim | undefined;
    if (!k8s || typeof k8s !== 'object') return null;
    if (!verifySignature(jwt, this.opts.keys.verifying)) throw new AuthenticationError('invalid signature');
    const now = Math.floor((this.opts.now ?? Date.now)() / 1000);
    checkTimes(jwt.claims, now);
    const tokenAudiences = asStrings(jwt.claims.aud);
    const accepted = tokenAudiences.filter((a) => audiences.includes(a));
    if (!accepted.length) throw new AuthenticationError(`token audiences ${goQuoted(tokenAudiences)} is invalid for the target audiences ${goQuoted(audiences)}`);
    const user = await this.validateObjects(k8s, now);
    if (typeof jwt.claims.jti === 'string' && jwt.claims.jti) user.extra = { ...user.extra, [extraKeys.credentialID]: [`JTI=${jwt.claims.jti}`] };
    return { user, audiences: accepted };
  }

  private async validateObjects(k8s: KubernetesClaim, now: number): Promise<UserInfo> {
    const ns = k8s.namespace;
    const saName = k8s.serviceaccount?.name;
    if (typeof ns !== 'string' || typeof saName !== 'string') throw new AuthenticationError('service account token claims are incomplete');
    const sa = await this.opts.objects.get('serviceaccounts', ns, saName);
    if (!sa) throw new AuthenticationError(`serviceaccounts "${saName}" not found`);
    if (deletedBefore(sa, now - leewaySeconds)) throw new AuthenticationError(`service account ${ns}/${saName} has been deleted`);
    if (sa.metadata.uid !== k8s.serviceaccount.uid) throw new AuthenticationError(`service account UID (${String(sa.metadata.uid)}) does not match claim (${k8s.serviceaccount.uid})`);
    const extra: Record<string, string[]> = {};
    if (k8s.secret) {
      const secret = await this.opts.objects.get('secrets', ns, k8s.secret.name);
      if (!secret || deletedBefore(secret, now - leewaySeconds)) throw new AuthenticationError('service account token has been invalidated');
      if (secret.metadata.uid !== k8s.secret.uid) throw new AuthenticationError(`secret UID (${String(secret.metadata.uid)}) does not match service account secret ref claim (${k8s.secret.uid})`);
    }
    if (k8s.pod) {
      const pod = await this.opts.objects.get('pods', ns, k8s.pod.name);
      if (!pod || deletedBefore(pod, now - leewaySeconds)) throw new AuthenticationError('service account token has been invalidated');
      if (pod.metadata.uid !== k8s.pod.uid) throw new AuthenticationError(`pod UID (${String(pod.metadata.uid)}) does not match service account pod ref claim (${k8s.pod.uid})`);
      extra[extraKeys.podName] = [k8s.pod.name];
      extra[extraKeys.podUID] = [k8s.pod.uid];
    }
    if (k8s.node) {
      // A pod-bound token only reports the pod's node; a node-bound one lives as long as the node.
      if (!k8s.pod) {
        const node = await this.opts.objects.get('nodes', undefined, k8s.node.name);
        if (!node || deletedBefore(node, now - leewaySeconds)) throw new AuthenticationError('service account token has been invalidated');
        if (node.metadata.uid !== k8s.node.uid) throw new AuthenticationError(`node UID (${String(node.metadata.uid)}) does not match service account node ref claim (${k8s.node.uid})`);
      }
      extra[extraKeys.nodeName] = [k8s.node.name];
      if (k8s.node.uid) extra[extraKeys.nodeUID] = [k8s.node.uid];
    }
    return { username: serviceAccountUsername(ns, saName), uid: k8s.serviceaccount.uid, groups: serviceAccountGroups(ns), ...(Object.keys(extra).length ? { extra } : {}) };
  }
}

function checkTimes(claims: Record<string, unknown>, now: number): void {
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
  const exp = num(claims.exp), nbf = num(claims.nbf), iat = num(claims.iat);
  if (exp !== undefined && now > exp + leewaySeconds) throw new AuthenticationError('service account token has expired');
  if ((nbf !== undefined && now + leewaySeconds < nbf) || (iat !== undefined && now + leewaySeconds < iat)) throw new AuthenticationError('service account token is not valid yet');
}

function deletedBefore(o: KubeObject, limitSeconds: number): boolean {
  const ts = o.metadata.deletionTimestamp;
  return typeof ts === 'string' && Date.parse(ts) / 1000 < limitSeconds;
}

function asStrings(v: unknown): string[] {
  if (typeof v === 'string') return [v];
  return Array.isArray(v) ? v.filter((a): a is string => typeof a === 'string') : [];
}

/** A []string as Go's %q prints it: `["a" "b"]`. */
export function goQuoted(list: string[]): string {
  return `[${list.map((s) => JSON.stringify(s)).join(' ')}]`;
}
