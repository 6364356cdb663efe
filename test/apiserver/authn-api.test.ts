// Authentication over HTTPS against an in-process API server: the TokenRequest endpoint's
// validation and binding rules, TokenReview, OIDC discovery, anonymous requests (and that
// they never make a connection trusted), and refused credentials staying 401.
import t from 'tap';
import { Agent } from 'node:https';
import { createPublicKey, verify } from 'node:crypto';
import { startAPIServer } from '../helpers/api.js';
import { allow, deny, type DecisionAuthorizer } from '../../src/apiserver/authz/index.js';

/** Stands in for RBAC (branch rbac): authenticated users may do anything, anonymous only ask who they are and read /version. */
const anonymousMayAskOnly: DecisionAuthorizer = {
  decide(user, info) {
    if (user.groups.includes('system:authenticated')) return allow();
    if (info.group === 'authentication.k8s.io' && info.resource === 'selfsubjectreviews') return allow();
    if (!info.isResourceRequest && info.path === '/version') return allow();
    return deny(`User "${user.username}" cannot ${info.verb} here`);
  },
};

const api = await startAPIServer(t);
const sa = (name: string) => api.client.post('/api/v1/namespaces/default/serviceaccounts', { metadata: { name } });
const tokenFor = (name: string, spec: Record<string, unknown> = {}) =>
  api.client.post(`/api/v1/namespaces/default/serviceaccounts/${name}/token`, { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec });
const whoami = (token: string) => api.client.as({ token }).post('/apis/authentication.k8s.io/v1/selfsubjectreviews', { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' });
const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString());

t.test('TokenRequest: defaults, answer and expiry', async (t) => {
  await sa('bot');
  const before = Math.floor(Date.now() / 1000);
  const r = await tokenFor('bot');
  t.equal(r.status, 201);
  t.match(r.body, { kind: 'TokenRequest', apiVersion: 'authentication.k8s.io/v1', metadata: { name: 'bot', namespace: 'default' }, spec: { expirationSeconds: 3600, audiences: ['https://kubernetes.default.svc.cluster.local'] }, status: { token: String, expirationTimestamp: String } });
  const c = claimsOf(r.body.status.token);
  t.ok(c.exp - c.iat === 3600 && c.iat >= before, 'an hour by default');
  t.equal(Date.parse(r.body.status.expirationTimestamp) / 1000, c.exp);
  const who = await whoami(r.body.status.token);
  t.equal(who.status, 201);
  t.equal(who.body.status.userInfo.username, 'system:serviceaccount:default:bot');
});

t.test('TokenRequest: refusals as kube-apiserver words them', async (t) => {
  const short = await tokenFor('bot', { expirationSeconds: 599 });
  t.equal(short.status, 422);
  t.equal(short.body.message, 'TokenRequest.authentication.k8s.io "bot" is invalid: spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 10 minutes');
  const missing = await tokenFor('nobody');
  t.equal(missing.status, 404);
  t.equal(missing.body.message, 'serviceaccounts "nobody" not found');
  const kind = await tokenFor('bot', { boundObjectRef: { kind: 'ConfigMap', apiVersion: 'v1', name: 'x' } });
  t.equal(kind.status, 400);
  t.match(kind.body.message, /^cannot bind token to object of type ConfigMap/);
  await sa('default');
  await api.client.post('/api/v1/namespaces/default/pods', { metadata: { name: 'other-sa' }, spec: { serviceAccountName: 'default', containers: [{ name: 'c', image: 'busybox' }] } });
  const wrongSA = await tokenFor('bot', { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'other-sa' } });
  t.equal(wrongSA.status, 400);
  t.equal(wrongSA.body.message, 'cannot bind token for serviceaccount "bot" to pod running with different serviceaccount name.');
  const uid = await tokenFor('default', { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'other-sa', uid: 'not-its-uid' } });
  t.equal(uid.status, 409);
  t.match(uid.body.message, /the UID in the bound object reference \(not-its-uid\) does not match the UID in record/);
  const get = await api.client.get('/api/v1/namespaces/default/serviceaccounts/bot/token');
  t.equal(get.status, 405);
});

t.test("a kubelet's 3607 s pod token lives a year and warns after 3607 s; other audiences are not extended", async (t) => {
  await api.client.post('/api/v1/namespaces/default/pods', { metadata: { name: 'runner' }, spec: { serviceAccountName: 'bot', nodeName: 'n1', containers: [{ name: 'c', image: 'busybox' }] } });
  const r = await tokenFor('bot', { expirationSeconds: 3607, boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'runner' } });
  t.equal(r.status, 201);
  const c = claimsOf(r.body.status.token);
  t.equal(c.exp - c.iat, 365 * 24 * 3600);
  t.equal(c['kubernetes.io'].warnafter - c.iat, 3607);
  t.equal(Date.parse(r.body.status.expirationTimestamp) / 1000 - c.iat, 3607, 'the status tells the kubelet to refresh after 3607 s');
  t.notOk('node' in c['kubernetes.io'], 'a node that does not exist is left out');
  const other = claimsOf((await tokenFor('bot', { expirationSeconds: 3607, audiences: ['vault'], boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'runner' } })).body.status.token);
  t.equal(other.exp - other.iat, 3607);
});

t.test('tokens bound to a Secret or a Node live as long as it does', async (t) => {
  await api.client.post('/api/v1/namespaces/default/secrets', { metadata: { name: 'holder' } });
  await api.client.post('/api/v1/nodes', { metadata: { name: 'node-a' } });
  const bySecret = (await tokenFor('bot', { boundObjectRef: { kind: 'Secret', apiVersion: 'v1', name: 'holder' } })).body.status.token;
  const byNode = (await tokenFor('bot', { boundObjectRef: { kind: 'Node', apiVersion: 'v1', name: 'node-a' } })).body.status.token;
  t.equal((await whoami(bySecret)).status, 201);
  const nodeUser = (await whoami(byNode)).body.status.userInfo;
  t.same(nodeUser.extra['authentication.kubernetes.io/node-name'], ['node-a']);
  t.match(claimsOf(bySecret)['kubernetes.io'], { secret: { name: 'holder' } });
  await api.client.delete('/api/v1/namespaces/default/secrets/holder');
  await api.client.delete('/api/v1/nodes/node-a');
  t.equal((await whoami(bySecret)).status, 401);
  t.equal((await whoami(byNode)).status, 401);
});

t.test('TokenReview', async (t) => {
  const token = (await tokenFor('bot', { audiences: ['vault'] })).body.status.token;
  const review = (spec: Record<string, unknown>) => api.client.post('/apis/authentication.k8s.io/v1/tokenreviews', { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec });
  const ok = await review({ token, audiences: ['vault'] });
  t.equal(ok.status, 201);
  t.match(ok.body.status, { authenticated: true, audiences: ['vault'], user: { username: 'system:serviceaccount:default:bot', groups: ['system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated'] } });
  const wrongAud = await review({ token });
  t.notOk(wrongAud.body.status.authenticated);
  t.equal(wrongAud.body.status.error, 'token audiences ["vault"] is invalid for the target audiences ["https://kubernetes.default.svc.cluster.local"]');
  const fileToken = await review({ token: api.token });
  t.match(fileToken.body.status, { authenticated: true, user: { username: 'admin-token' } });
  t.notOk((await review({ token: api.token, audiences: ['vault'] })).body.status.authenticated, 'the token file is for the API server only');
  const junk = await review({ token: 'junk' });
  t.match(junk.body.status, { error: 'invalid bearer token' });
  t.notOk(junk.body.status.authenticated);
  t.equal((await review({})).status, 400);
  t.equal((await api.client.get('/apis/authentication.k8s.io/v1/tokenreviews')).status, 405);
  const disc = await api.client.get('/apis/authentication.k8s.io/v1');
  t.ok(disc.body.resources.some((r: any) => r.name === 'tokenreviews' && r.verbs.includes('create')));
  const core = await api.client.get('/api/v1');
  t.ok(core.body.resources.some((r: any) => r.name === 'serviceaccounts/token' && r.kind === 'TokenRequest' && r.group === 'authentication.k8s.io'));
});

t.test('OIDC discovery: the issuer, and keys that verify its tokens', async (t) => {
  const conf = await api.client.get('/.well-known/openid-configuration');
  t.equal(conf.status, 200);
  t.same(conf.body, {
    issuer: 'https://kubernetes.default.svc.cluster.local', jwks_uri: `https://127.0.0.1:${api.port}/openid/v1/jwks`,
    response_types_supported: ['id_token'], subject_types_supported: ['public'], id_token_signing_alg_values_supported: ['ES256'],
  });
  const jwks = await api.client.get('/openid/v1/jwks');
  t.equal(jwks.headers['content-type'], 'application/jwk-set+json');
  const keys = JSON.parse(jwks.text).keys;
  const token = (await tokenFor('bot')).body.status.token as string;
  const [h, p, s] = token.split('.');
  const kid = JSON.parse(Buffer.from(h, 'base64url').toString()).kid;
  const jwk = keys.find((k: any) => k.kid === kid);
  t.ok(jwk, 'the token names a published key');
  t.ok(verify('sha256', Buffer.from(`${h}.${p}`), { key: createPublicKey({ key: jwk, format: 'jwk' }), dsaEncoding: 'ieee-p1363' }, Buffer.from(s, 'base64url')));
});

t.test('bad credentials are 401 even where anonymous is allowed; no credentials are anonymous', async (t) => {
  const open = await startAPIServer(t, { authorizer: anonymousMayAskOnly, connections: { maxUnauthenticated: 1000 } });
  const nobody = open.client.as({});
  const who = await nobody.post('/apis/authentication.k8s.io/v1/selfsubjectreviews', { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' });
  t.equal(who.status, 201);
  t.same(who.body.status.userInfo, { username: 'system:anonymous', groups: ['system:unauthenticated'] });
  t.equal((await nobody.get('/api/v1/namespaces/default/pods')).status, 403, 'what anonymous may do is the authorizer\'s call');
  for (const token of ['junk', 'abcdef.0123456789abcdef', `${api.token}x`]) {
    const r = await open.client.as({ token }).get('/version');
    t.equal(r.status, 401, `token ${token.slice(0, 8)}… refused`);
  }

  // Anonymous requests on a kept-alive connection leave it counted; a credentialed one trusts it.
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  t.teardown(() => agent.destroy());
  const kept = new (nobody.constructor as any)(open.port, { ca: open.pki.ca.certPem }, agent);
  await kept.get('/version');
  await kept.get('/version');
  t.equal(open.server.connectionStats.unauthenticated, 1, 'anonymous: still an unauthenticated connection');
  const keptToken = new (nobody.constructor as any)(open.port, { ca: open.pki.ca.certPem, token: open.token }, agent);
  await keptToken.get('/version');
  t.equal(open.server.connectionStats.unauthenticated, 0, 'credentials made it trusted');

  const closed = await startAPIServer(t, { authorizer: anonymousMayAskOnly, anonymousAuth: false });
  t.equal((await closed.client.as({}).get('/version')).status, 401, '--anonymous-auth=false');
  t.match(closed.logs.join('\n'), /./, 'server started');
});

t.test('with the AlwaysAllow authorizer anonymous is switched off, as kube-apiserver does', async (t) => {
  const s = await startAPIServer(t, { anonymousAuth: true, authorizationMode: 'AlwaysAllow' });
  t.equal((await s.client.as({}).get('/version')).status, 401);
  t.match(s.logs.join('\n'), /AnonymousAuth is not allowed with the AlwaysAllow authorizer/);
});
