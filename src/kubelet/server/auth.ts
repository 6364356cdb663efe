// Who may use the kubelet's API, as upstream's kubelet does with webhook authentication and
// authorization: a client certificate of the cluster CA, or a bearer token the API server
// vouches for (TokenReview); then a SubjectAccessReview on `nodes/<subresource>` of this node.
// Answers are cached briefly, with upstream's default lifetimes. No credentials is 401.
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { KubeObject } from '../../api/object.js';
import type { ClientsetAPI, ResourceType } from '../../client/index.js';

export interface KubeletUser {
  username: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

export interface KubeletAuth {
  /** The user, or null for a request without valid credentials (401). */
  authenticate(req: IncomingMessage): Promise<KubeletUser | null>;
  /** Whether `user` may `verb` the node's subresource. */
  authorize(user: KubeletUser, verb: string, subresource: string): Promise<boolean>;
}

/** Upstream's kubelet: `--authentication-token-webhook-cache-ttl` (2m), authorization 5m allowed, 30s denied. */
export const cacheTTLs = { tokenMs: 120_000, allowedMs: 300_000, deniedMs: 30_000 };
const MAX_ENTRIES = 1024;

const verbs: Record<string, string> = { GET: 'get', HEAD: 'get', POST: 'create', PUT: 'update', PATCH: 'patch', DELETE: 'delete' };

const underPath = (path: string, prefix: string) => path === prefix || path.startsWith(`${prefix}/`);

/**
 * The verb and the subresources asked, in order (the first allowed wins), after upstream's
 * kubelet GetRequestAttributes with KubeletFineGrainedAuthz: /stats, /metrics, /logs and
 * /spec have their own; /healthz and /pods theirs, falling back to proxy; everything else
 * (containerLogs, exec, attach, portForward, run) is `nodes/proxy`.
 */
export function requestAttributes(method: string, path: string): { verb: string; subresources: string[] } {
  const verb = verbs[method] ?? method.toLowerCase();
  for (const [prefix, sub] of [['/stats', 'stats'], ['/metrics', 'metrics'], ['/logs', 'log'], ['/spec', 'spec'], ['/checkpoint', 'checkpoint']]) {
    if (underPath(path, prefix)) return { verb, subresources: [sub] };
  }
  if (underPath(path, '/healthz')) return { verb, subresources: ['healthz', 'proxy'] };
  if (underPath(path, '/pods')) return { verb, subresources: ['pods', 'proxy'] };
  return { verb, subresources: ['proxy'] };
}

/** upstream's message for a denied kubelet request. */
export function forbiddenMessage(user: KubeletUser, verb: string, subresource: string): string {
  return `Forbidden (user=${user.username}, verb=${verb}, resource=nodes, subresource=${subresource})`;
}

const tokenReviews: ResourceType<KubeObject> = { group: 'authentication.k8s.io', version: 'v1', resource: 'tokenreviews', kind: 'TokenReview', namespaced: false };
const subjectAccessReviews: ResourceType<KubeObject> = { group: 'authorization.k8s.io', version: 'v1', resource: 'subjectaccessreviews', kind: 'SubjectAccessReview', namespaced: false };

class TTLCache<V> {
  private entries = new Map<string, { value: V; expires: number }>();
  constructor(private now: () => number) {}
  get(key: string): V | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    if (e.expires <= this.now()) { this.entries.delete(key); return undefined; }
    return e.value;
  }
  set(key: string, value: V, ttlMs: number): void {
    // Bounded: the oldest entry goes first (Map keeps insertion order).
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(key, { value, expires: this.now() + ttlMs });
  }
}

function certificateUser(req: IncomingMessage): KubeletUser | null {
  const socket = req.socket as TLSSocket;
  if (typeof socket.getPeerCertificate !== 'function' || !socket.authorized) return null;
  const subject = socket.getPeerCertificate().subject as unknown as Record<string, string | string[]> | undefined;
  const cn = subject?.CN;
  if (!cn) return null;
  const o = subject.O;
  return { username: Array.isArray(cn) ? cn[0] : cn, groups: o === undefined ? [] : Array.isArray(o) ? o : [o] };
}

function bearerToken(req: IncomingMessage): string | undefined {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
  return m?.[1];
}

/** Authentication and authorization delegated to the API server through the kubelet's own client. */
export function delegatedAuth(clients: ClientsetAPI, nodeName: string, now: () => number = Date.now): KubeletAuth {
  const tokens = new TTLCache<KubeletUser | null>(now);
  const decisions = new TTLCache<boolean>(now);
  return {
    async authenticate(req) {
      const token = bearerToken(req);
      if (token === undefined) return certificateUser(req);
      const key = createHash('sha256').update(token).digest('hex');
      const cached = tokens.get(key);
      if (cached !== undefined) return cached;
      const review = await clients.resource(tokenReviews).create(undefined, {
        apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', metadata: {}, spec: { token },
      } as KubeObject) as KubeObject & { status?: { authenticated?: boolean; user?: KubeletUser } };
      const user = review.status?.authenticated && review.status.user
        ? { username: review.status.user.username, uid: review.status.user.uid, groups: review.status.user.groups ?? [], extra: review.status.user.extra }
        : null;
      tokens.set(key, user, cacheTTLs.tokenMs);
      return user;
    },
    async authorize(user, verb, subresource) {
      const key = JSON.stringify([user.username, user.uid ?? '', [...user.groups].sort(), user.extra ?? {}, verb, subresource]);
      const cached = decisions.get(key);
      if (cached !== undefined) return cached;
      const review = await clients.resource(subjectAccessReviews).create(undefined, {
        apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', metadata: {},
        spec: {
          user: user.username, uid: user.uid, groups: user.groups, extra: user.extra,
          resourceAttributes: { verb, group: '', version: 'v1', resource: 'nodes', subresource, name: nodeName },
        },
      } as KubeObject) as KubeObject & { status?: { allowed?: boolean } };
      const allowed = review.status?.allowed === true;
      decisions.set(key, allowed, allowed ? cacheTTLs.allowedMs : cacheTTLs.deniedMs);
      return allowed;
    },
  };
}
