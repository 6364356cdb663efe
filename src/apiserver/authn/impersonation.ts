// Impersonation (`kubectl --as/--as-group/--as-uid`): the Impersonate-* headers name another
// user; each part of that identity must be allowed to the caller (verb `impersonate`) by the
// authorizer, and the request then runs as the impersonated user, as k8s.io/apiserver's
// WithImpersonation filter does.
import type { IncomingMessage } from 'node:http';
import type { Authorizer } from '../authz/index.js';

/** What impersonation asks of an authorizer: only its decision on each part of the identity. */
export type ImpersonationAuthorizer = Pick<Authorizer, 'authorize'>;
import type { RequestInfo } from '../request-info.js';
import { StatusError, forbidden, internalError, qualified } from '../errors.js';
import { serviceAccountGroups, splitServiceAccountUsername } from './service-account.js';
import { allAuthenticated, allUnauthenticated, anonymousUser, type Authenticator, type UserInfo } from './types.js';

export const headers = { user: 'impersonate-user', uid: 'impersonate-uid', group: 'impersonate-group', extraPrefix: 'impersonate-extra-' };

export interface ImpersonationRequest {
  user?: string;
  uid?: string;
  groups: string[];
  /** Keys lowercased and unescaped, as the header names carry them. */
  extra: Record<string, string[]>;
}

/** The impersonation a request asks for, or null when it carries no Impersonate-* header. */
export function parseImpersonation(req: Pick<IncomingMessage, 'headersDistinct'> & Partial<Pick<IncomingMessage, 'rawHeaders'>>): ImpersonationRequest | null {
  // headersDistinct is rebuilt from the raw headers on every read: a request that names no
  // Impersonate-* header (nearly all) is told apart from the raw names alone.
  if (req.rawHeaders && !namesImpersonation(req.rawHeaders)) return null;
  const h = req.headersDistinct;
  const r: ImpersonationRequest = { groups: [], extra: {} };
  let any = false;
  for (const [name, values] of Object.entries(h)) {
    if (!values) continue;
    if (name === headers.user) { r.user = values[0]; any = true; }
    else if (name === headers.uid) { r.uid = values[0]; any = true; }
    else if (name === headers.group) { r.groups.push(...values); any = true; }
    else if (name.startsWith(headers.extraPrefix)) {
      let key = name.slice(headers.extraPrefix.length);
      try { key = decodeURIComponent(key); } catch { /* kept as sent, as url.PathUnescape failing leaves it */ }
      (r.extra[key.toLowerCase()] ??= []).push(...values);
      any = true;
    }
  }
  if (!any) return null;
  if (r.user === undefined || r.user === '') {
    const asked = [...r.groups.map((g) => `Group ${JSON.stringify(g)}`), ...(r.uid !== undefined ? [`UID ${JSON.stringify(r.uid)}`] : []),
      ...Object.entries(r.extra).flatMap(([k, vs]) => vs.map((v) => `UserExtra ${k}=${JSON.stringify(v)}`))];
    throw internalError(`requested [${asked.join(' ')}] without impersonating a user`);
  }
  return r;
}

function namesImpersonation(raw: string[]): boolean {
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i];
    if (name.length >= 12 && (name.charCodeAt(0) | 0x20) === 0x69 /* i */ && name.slice(0, 12).toLowerCase() === 'impersonate-') return true;
  }
  return false;
}

interface Check {
  group: string;
  resource: string;
  subresource?: string;
  namespace?: string;
  name: string;
}

function attributes(c: Check): RequestInfo {
  return {
    isResourceRequest: true, path: '', verb: 'impersonate', apiPrefix: c.group ? 'apis' : 'api', group: c.group, version: 'v1',
    namespace: c.namespace ?? '', resource: c.resource, subresource: c.subresource ?? '', name: c.name, parts: [],
  };
}

/** upstream's responsewriters.Forbidden message for an impersonation the caller may not make. */
function denied(requester: UserInfo, c: Check): StatusError {
  const resource = c.subresource ? `${c.resource}/${c.subresource}` : c.resource;
  const scope = c.namespace ? `in the namespace ${JSON.stringify(c.namespace)}` : 'at the cluster scope';
  const msg = `${qualified(c.resource, c.group)} ${JSON.stringify(c.name)} is forbidden: User ${JSON.stringify(requester.username)} cannot impersonate resource ${JSON.stringify(resource)} in API group ${JSON.stringify(c.group)} ${scope}`;
  return forbidden(msg, { name: c.name, group: c.group, kind: c.resource });
}

/** The user the request runs as; throws 403 at the first part of the identity the caller may not take on. */
export async function impersonate(requester: UserInfo, r: ImpersonationRequest, authz: ImpersonationAuthorizer): Promise<UserInfo> {
  const username = r.user!;
  const sa = splitServiceAccountUsername(username);
  const checks: Check[] = [sa
    ? { group: '', resource: 'serviceaccounts', namespace: sa.namespace, name: sa.name }
    : { group: '', resource: 'users', name: username }];
  for (const g of r.groups) checks.push({ group: '', resource: 'groups', name: g });
  for (const [key, values] of Object.entries(r.extra)) for (const v of values) checks.push({ group: 'authentication.k8s.io', resource: 'userextras', subresource: key, name: v });
  if (r.uid !== undefined) checks.push({ group: 'authentication.k8s.io', resource: 'uids', name: r.uid });
  for (const c of checks) {
    if (await authz.authorize(requester, attributes(c)) !== null) throw denied(requester, c);
  }
  // A service account's groups follow from its name when none are asked for.
  const groups = sa && !r.groups.length ? serviceAccountGroups(sa.namespace) : [...r.groups];
  // A non-anonymous user is authenticated unless the caller said it is unauthenticated.
  if (username === anonymousUser) {
    if (!groups.includes(allUnauthenticated)) groups.push(allUnauthenticated);
  } else if (!groups.includes(allAuthenticated) && !groups.includes(allUnauthenticated)) {
    groups.push(allAuthenticated);
  }
  return {
    username, groups,
    ...(r.uid !== undefined ? { uid: r.uid } : {}),
    ...(Object.keys(r.extra).length ? { extra: r.extra } : {}),
  };
}

/** The authentication stage with impersonation on top: the caller authenticates, then becomes who it asked to be. */
export function withImpersonation(inner: Authenticator, authz: ImpersonationAuthorizer): Authenticator {
  return {
    async authenticate(req) {
      const result = await inner.authenticate(req);
      const asked = parseImpersonation(req);
      if (!asked) return result;
      const user = await impersonate(result.user, asked, authz);
      return { user, impersonator: result.user, anonymous: result.anonymous };
    },
  };
}
