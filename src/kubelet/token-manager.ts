// Service account tokens for projected volumes, as upstream's kubelet token manager keeps
// them: one TokenRequest per (service account, audiences, expiration, bound pod), cached and
// reused until it is older than 80 % of its lifetime or than 24 h (each less a jitter of up
// to 10 s); a failed refresh keeps serving the cached token until it expires.
import type { TokenRequest } from 'kubernetes-types/authentication/v1.js';
import type { Clock } from '../util/index.js';
import type { Logger } from '../log/index.js';

/** POST /api/v1/namespaces/NS/serviceaccounts/NAME/token. */
export type RequestToken = (namespace: string, name: string, request: TokenRequest) => Promise<TokenRequest>;

export interface TokenManagerOptions {
  clock: Clock;
  log?: Logger;
  /** Upstream's maxTTL: a token older than this is refreshed whatever its expiry (24 h). */
  maxTTLMs?: number;
  /** Upstream's maxJitter (10 s). */
  maxJitterMs?: number;
  random?: () => number;
  /** How often expired tokens leave the cache (upstream: a minute). */
  gcPeriodMs?: number;
}

export const defaultTokenMaxTTLMs = 24 * 3600_000;

export class TokenManager {
  private cache = new Map<string, TokenRequest>();
  private gcTimer: unknown;
  private readonly maxTTLMs: number;
  private readonly maxJitterMs: number;

  constructor(private request: RequestToken, private o: TokenManagerOptions) {
    this.maxTTLMs = o.maxTTLMs ?? defaultTokenMaxTTLMs;
    // A short max TTL (tests) gets a proportionally short jitter, so it still means something.
    this.maxJitterMs = Math.min(o.maxJitterMs ?? 10_000, this.maxTTLMs / 2);
  }

  /** The token for `request`, from the cache unless it needs a refresh. */
  async getServiceAccountToken(namespace: string, name: string, request: TokenRequest): Promise<TokenRequest> {
    const key = cacheKey(namespace, name, request);
    const cached = this.cache.get(key);
    if (cached && !this.requiresRefresh(cached)) return cached;
    let fresh: TokenRequest;
    try {
      fresh = await this.request(namespace, name, request);
    } catch (e) {
      if (!cached) throw new Error(`failed to fetch token: ${(e as Error).message}`);
      if (this.expired(cached)) throw new Error(`token ${key} expired and refresh failed: ${(e as Error).message}`);
      this.o.log?.warn('could not refresh a service account token; the cached one stays in use', { namespace, serviceAccount: name, error: (e as Error).message });
      return cached;
    }
    this.cache.set(key, fresh);
    this.scheduleGC();
    return fresh;
  }

  /** A pod is gone: its bound tokens are dropped. */
  deleteServiceAccountToken(podUID: string): void {
    for (const [k, tr] of this.cache) if (tr.spec.boundObjectRef?.uid === podUID) this.cache.delete(k);
  }

  /** Whether the token is older than 80 % of its lifetime or than maxTTL (less a jitter). */
  requiresRefresh(tr: TokenRequest): boolean {
    const seconds = tr.spec.expirationSeconds;
    if (seconds === undefined || seconds === null) {
      this.o.log?.error('expiration seconds was nil for token request', { audiences: tr.spec.audiences });
      return false;
    }
    const now = this.o.clock.now();
    const exp = Date.parse(tr.status!.expirationTimestamp);
    const iat = exp - seconds * 1000;
    const jitter = Math.floor((this.o.random ?? Math.random)() * this.maxJitterMs / 1000) * 1000;
    if (now > iat + this.maxTTLMs - jitter) return true;
    return now > exp - Math.floor(seconds * 20 / 100) * 1000 - jitter;
  }

  get size(): number {
    return this.cache.size;
  }

  stop(): void {
    if (this.gcTimer !== undefined) this.o.clock.clearTimeout(this.gcTimer);
    this.gcTimer = undefined;
  }

  private expired(tr: TokenRequest): boolean {
    return this.o.clock.now() > Date.parse(tr.status!.expirationTimestamp);
  }

  private scheduleGC(): void {
    if (this.gcTimer !== undefined) return;
    this.gcTimer = this.o.clock.setTimeout(() => {
      this.gcTimer = undefined;
      for (const [k, tr] of this.cache) if (this.expired(tr)) this.cache.delete(k);
      if (this.cache.size) this.scheduleGC();
    }, this.o.gcPeriodMs ?? 60_000);
  }
}

/** Upstream's keyFunc: name, namespace, audiences, expiration and bound object. */
function cacheKey(namespace: string, name: string, tr: TokenRequest): string {
  const ref = tr.spec.boundObjectRef;
  return JSON.stringify([name, namespace, tr.spec.audiences ?? [], tr.spec.expirationSeconds ?? 0, ref ? [ref.apiVersion, ref.kind, ref.name, ref.uid] : null]);
}
