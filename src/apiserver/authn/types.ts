// What authentication hands the rest of the pipeline, and the two shapes an authenticator
// takes: one that reads a whole request (client certificates) and one that judges a bearer
// token (token file, ServiceAccount JWTs, bootstrap tokens), as k8s.io/apiserver splits them.
import type { IncomingMessage } from 'node:http';

export interface UserInfo {
  username: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

export const allAuthenticated = 'system:authenticated';
export const allUnauthenticated = 'system:unauthenticated';
export const anonymousUser = 'system:anonymous';

/** Credentials were presented and refused: the request is 401 whatever else it carries. */
export class AuthenticationError extends Error {}

/**
 * Reads one kind of credential from a request. Resolves null when the request carries none
 * of that kind; throws AuthenticationError when it carries them and they are not good.
 */
export interface RequestAuthenticator {
  authenticate(req: IncomingMessage): Promise<UserInfo | null>;
}

export interface TokenResult {
  user: UserInfo;
  /** The audiences the token was accepted for (a subset of those asked for). */
  audiences: string[];
}

/**
 * Judges a bearer token for the audiences asked for (the API server's own, or a
 * TokenReview's). Resolves null when the token is not of this kind; throws
 * AuthenticationError when it is and is not good (expired, bad signature, object gone).
 */
export interface TokenAuthenticator {
  authenticateToken(token: string, audiences: string[]): Promise<TokenResult | null>;
}

/** The result of authenticating a request: the user, and whether credentials (not anonymity) got it in. */
export interface Authenticated {
  user: UserInfo;
  /** The authenticated user before impersonation, when the request impersonated. */
  impersonator?: UserInfo;
  anonymous: boolean;
}

/** The whole authentication stage as the handler sees it: throws a 401 StatusError when refused. */
export interface Authenticator {
  authenticate(req: IncomingMessage): Promise<Authenticated>;
}
