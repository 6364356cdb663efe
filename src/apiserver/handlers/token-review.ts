// POST authentication.k8s.io/v1 tokenreviews: may this token authenticate, as whom, for which
// audiences. Answered from the same token authenticators requests use; nothing is stored.
import { isPlainObject } from '../../api/object.js';
import { decodeBody, readBody } from '../body.js';
import { badRequest } from '../errors.js';
import { sendObject } from '../respond.js';
import { withAuthenticatedGroup } from '../authn/request.js';
import { AuthenticationError, type TokenAuthenticator } from '../authn/types.js';
import type { HandlerContext } from './context.js';

export async function reviewToken(h: Pick<HandlerContext, 'req' | 'res' | 'info' | 'accept'>, tokens: TokenAuthenticator, apiAudiences: string[]): Promise<void> {
  const body = decodeBody(await readBody(h.req), h.req.headers['content-type']).value;
  if (!isPlainObject(body)) throw badRequest('TokenReview must be an object');
  const spec = isPlainObject(body.spec) ? body.spec : {};
  const token = typeof spec.token === 'string' ? spec.token : '';
  if (!token) throw badRequest('token is required for TokenReview in authentication');
  const requested = Array.isArray(spec.audiences) ? spec.audiences.filter((a): a is string => typeof a === 'string') : [];
  const audiences = requested.length ? requested : apiAudiences;
  const status: Record<string, unknown> = { user: {} };
  try {
    const r = await tokens.authenticateToken(token, audiences);
    if (r) {
      const u = withAuthenticatedGroup(r.user);
      Object.assign(status, {
        authenticated: true,
        user: { username: u.username, ...(u.uid ? { uid: u.uid } : {}), groups: u.groups, ...(u.extra ? { extra: u.extra } : {}) },
        audiences: r.audiences,
      });
    } else {
      status.error = 'invalid bearer token';
    }
  } catch (e) {
    if (!(e instanceof AuthenticationError)) throw e;
    status.error = e.message;
  }
  sendObject(h.res, 201, {
    kind: 'TokenReview', apiVersion: `authentication.k8s.io/${h.info.version}`, metadata: { creationTimestamp: null },
    spec: { token, ...(requested.length ? { audiences: requested } : {}) }, status,
  }, h.accept === 'yaml' ? 'yaml' : 'json');
}
