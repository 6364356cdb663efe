// The authentication stage: client certificate, else bearer token, else (when allowed) the
// anonymous user. Credentials that are presented and refused are 401 whatever else the
// request carries; only a request with no credentials at all may be anonymous.
import type { IncomingMessage } from 'node:http';
import { unauthorized } from '../errors.js';
import { bearerToken } from './tokens.js';
import {
  AuthenticationError, allAuthenticated, allUnauthenticated, anonymousUser,
  type Authenticated, type Authenticator, type RequestAuthenticator, type TokenAuthenticator, type UserInfo,
} from './types.js';

export interface RequestAuthenticationOptions {
  clientCerts: RequestAuthenticator;
  tokens: TokenAuthenticator;
  /** The audiences a token must be for to be accepted on a request to this server. */
  apiAudiences: string[];
  /** --anonymous-auth. */
  anonymous: boolean;
  /** Told why credentials were refused (the client only sees 401). */
  refused?(reason: string): void;
}

export const anonymous: UserInfo = { username: anonymousUser, groups: [allUnauthenticated] };

/** Every authenticated user is also `system:authenticated`. */
export function withAuthenticatedGroup(u: UserInfo): UserInfo {
  return u.groups.includes(allAuthenticated) ? u : { ...u, groups: [...u.groups, allAuthenticated] };
}

export function requestAuthenticator(opts: RequestAuthenticationOptions): Authenticator {
  return {
    async authenticate(req: IncomingMessage): Promise<Authenticated> {
      const errors: string[] = [];
      const attempt = async (fn: () => Promise<UserInfo | null>): Promise<UserInfo | null> => {
        try {
          return await fn();
        } catch (e) {
          if (!(e instanceof AuthenticationError)) throw e;
          errors.push(e.message);
          return null;
        }
      };
      const fromCert = await attempt(() => opts.clientCerts.authenticate(req));
      if (fromCert) return { user: withAuthenticatedGroup(fromCert), anonymous: false };
      const token = bearerToken(req);
      if (token !== null) {
        const fromToken = await attempt(async () => (await opts.tokens.authenticateToken(token, opts.apiAudiences))?.user ?? null);
        if (fromToken) return { user: withAuthenticatedGroup(fromToken), anonymous: false };
        if (!errors.length) errors.push('invalid bearer token');
      }
      if (errors.length) {
        opts.refused?.(errors.join('; '));
        throw unauthorized();
      }
      if (opts.anonymous) return { user: anonymous, anonymous: true };
      throw unauthorized();
    },
  };
}
