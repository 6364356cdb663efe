// Impersonation headers: how they are read, which checks the authorizer is asked, the user
// that results, and the refusals kube-apiserver gives.
import t from 'tap';
import type { IncomingMessage } from 'node:http';
import { impersonate, parseImpersonation } from '../../../src/apiserver/authn/impersonation.js';
import type { ImpersonationAuthorizer as Authorizer } from '../../../src/apiserver/authn/impersonation.js';
import type { Attributes as RequestInfo } from '../../../src/apiserver/authz/index.js';
import { StatusError } from '../../../src/apiserver/errors.js';

const req = (h: Record<string, string[]>) => ({ headersDistinct: h }) as unknown as Pick<IncomingMessage, 'headersDistinct'>;
const admin = { username: 'admin', groups: ['system:masters', 'system:authenticated'] };

/** Allows what `allowed` says and records every question. */
function recordingAuthorizer(allowed: (i: RequestInfo) => boolean) {
  const asked: RequestInfo[] = [];
  const authz: Authorizer = { async authorize(_u, i) { asked.push(i); return allowed(i) ? null : 'no'; } };
  return { authz, asked };
}

t.test('parsing', async (t) => {
  t.equal(parseImpersonation(req({ accept: ['*/*'] })), null, 'no impersonation');
  t.same(parseImpersonation(req({
    'impersonate-user': ['jane'], 'impersonate-group': ['devs', 'ops'], 'impersonate-uid': ['u-1'],
    'impersonate-extra-scopes': ['view', 'edit'], 'impersonate-extra-example.com%2fteam': ['Blue'],
  })), { user: 'jane', uid: 'u-1', groups: ['devs', 'ops'], extra: { scopes: ['view', 'edit'], 'example.com/team': ['Blue'] } });
  const err = (() => { try { parseImpersonation(req({ 'impersonate-group': ['devs'] })); } catch (e) { return e; } })();
  t.ok(err instanceof StatusError);
  t.match((err as StatusError).message, /without impersonating a user/);
  // A real request's raw header names decide whether headersDistinct is read at all.
  const raw = (names: string[], h: Record<string, string[]>) => ({ rawHeaders: names.flatMap((n) => [n, 'x']), headersDistinct: h }) as unknown as IncomingMessage;
  t.equal(parseImpersonation(raw(['Accept', 'User-Agent'], { accept: ['x'], 'user-agent': ['x'] })), null, 'no Impersonate-* raw header');
  t.same(parseImpersonation(raw(['Accept', 'IMPERSONATE-USER'], { accept: ['x'], 'impersonate-user': ['jane'] })), { user: 'jane', groups: [], extra: {} }, 'raw names in any case');
  t.same(parseImpersonation(raw(['Impersonate-Extra-Scopes', 'Impersonate-User'], { 'impersonate-extra-scopes': ['view'], 'impersonate-user': ['jane'] })), { user: 'jane', groups: [], extra: { scopes: ['view'] } });
});

t.test('each part of the identity is checked, with upstream attributes', async (t) => {
  const { authz, asked } = recordingAuthorizer(() => true);
  const user = await impersonate(admin, { user: 'jane', uid: 'u-1', groups: ['devs'], extra: { scopes: ['view'] } }, authz);
  t.same(user, { username: 'jane', uid: 'u-1', groups: ['devs', 'system:authenticated'], extra: { scopes: ['view'] } });
  t.same(asked.map((i) => [i.verb, i.group, i.resource, i.subresource, i.namespace, i.name]), [
    ['impersonate', '', 'users', '', '', 'jane'],
    ['impersonate', '', 'groups', '', '', 'devs'],
    ['impersonate', 'authentication.k8s.io', 'userextras', 'scopes', '', 'view'],
    ['impersonate', 'authentication.k8s.io', 'uids', '', '', 'u-1'],
  ]);
});

t.test('service accounts: checked in their namespace, their groups implied', async (t) => {
  const { authz, asked } = recordingAuthorizer(() => true);
  const user = await impersonate(admin, { user: 'system:serviceaccount:team:bot', groups: [], extra: {} }, authz);
  t.same(user.groups, ['system:serviceaccounts', 'system:serviceaccounts:team', 'system:authenticated']);
  t.match(asked[0], { resource: 'serviceaccounts', namespace: 'team', name: 'bot', group: '' });
  const anon = await impersonate(admin, { user: 'system:anonymous', groups: [], extra: {} }, authz);
  t.same(anon.groups, ['system:unauthenticated'], 'anonymous is unauthenticated, not authenticated');
  const unauth = await impersonate(admin, { user: 'jane', groups: ['system:unauthenticated'], extra: {} }, authz);
  t.same(unauth.groups, ['system:unauthenticated'], 'a user the caller says is unauthenticated is not made authenticated');
});

t.test('a refused part is 403 with upstream message', async (t) => {
  const { authz } = recordingAuthorizer((i) => i.resource !== 'groups');
  const e = await impersonate({ username: 'jane', groups: [] }, { user: 'bob', groups: ['system:masters'], extra: {} }, authz).catch((x) => x);
  t.ok(e instanceof StatusError);
  t.equal(e.code, 403);
  t.equal(e.message, 'groups "system:masters" is forbidden: User "jane" cannot impersonate resource "groups" in API group "" at the cluster scope');
  const sa = recordingAuthorizer((i) => i.resource !== 'serviceaccounts');
  const e2 = await impersonate({ username: 'jane', groups: [] }, { user: 'system:serviceaccount:team:bot', groups: [], extra: {} }, sa.authz).catch((x) => x);
  t.equal(e2.message, 'serviceaccounts "bot" is forbidden: User "jane" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "team"');
});
