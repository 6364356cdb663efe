// Bearer tokens: reading them from a request, trying each token authenticator in turn, and
// the audience rule for authenticators whose tokens carry no audience (token file, bootstrap
// tokens): they count as tokens for the API server's own audiences only.
import type { IncomingMessage } from 'node:http';
import { AuthenticationError, type TokenAuthenticator, type TokenResult } from './types.js';

/** The token of `Authorization: Bearer <token>`; null when there is none (an empty one is none, as upstream reads it). */
export function bearerToken(req: IncomingMessage): string | null {
  const h = req.headers.authorization;
  if (!h) return null;
  const m = /^\s*bearer\s+(.*?)\s*$/i.exec(h);
  return m && m[1] ? m[1] : null;
}

export function audienceAgnostic(inner: TokenAuthenticator, apiAudiences: string[]): TokenAuthenticator {
  return {
    async authenticateToken(token, audiences) {
      const auds = apiAudiences.filter((a) => audiences.includes(a));
      if (!auds.length) return null;
      const r = await inner.authenticateToken(token, auds);
      return r && { user: r.user, audiences: auds };
    },
  };
}

/** The first authenticator that knows the token decides; refusals are gathered as upstream's aggregate error. */
export function unionTokens(list: TokenAuthenticator[]): TokenAuthenticator {
  return {
    async authenticateToken(token, audiences): Promise<TokenResult | null> {
      const errors: string[] = [];
      for (const a of list) {
        try {
          const r = await a.authenticateToken(token, audiences);
          if (r) return r;
        } catch (e) {
          if (!(e instanceof AuthenticationError)) throw e;
          errors.push(e.message);
        }
      }
      if (errors.length) throw new AuthenticationError(errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`);
      return null;
    },
  };
}
