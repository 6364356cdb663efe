// Authentication end to end with the real kubectl (/usr/bin/kubectl) and Debian's
// python3-kubernetes against `capstan apiserver` run as a process: `kubectl create token`
// and the token's life (whoami, deleted ServiceAccount or bound pod → 401, a restart keeps
// the key), TokenReview, OIDC discovery with the signature checked here from the published
// JWKS, bootstrap tokens and the token cleaner, impersonation; then anonymous requests
// against an in-process server whose authorizer is not AlwaysAllow.
import t, { type Test } from 'tap';
import { randomBytes, createPublicKey, verify } from 'node:crypto';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startAPIServerProcess, type APIServerProcess } from '../helpers/apiserver-process.js';
import { eventually, kubectlFor } from '../helpers/kubectl.js';
import { pythonClient } from '../helpers/python-client.js';
import { startAPIServer, type TestAPIServer } from '../helpers/api.js';
import { controllerContext } from '../helpers/controller-context.js';
import { kubeconfigYAML, writeKubeconfig } from '../../src/client/kubeconfig.js';
import { clientsetFromKubeconfig, realClock, SharedInformerFactory } from '../../src/client/index.js';
import { controllers as registry } from '../../src/controllers/index.js';
import { logger } from '../../src/log/index.js';
import { rfc3339 } from '../../src/api/time.js';
import { allow, deny, type DecisionAuthorizer } from '../../src/apiserver/authz/index.js';

const unauthorized = /error: You must be logged in to the server \(Unauthorized\)/;

/** A kubeconfig holding only the cluster's CA and `token` (none: no credentials at all). */
function tokenKubeconfig(t: Test, dir: string, server: string, caPem: string, token?: string) {
  const path = join(dir, `token-${randomBytes(4).toString('hex')}.kubeconfig`);
  writeKubeconfig(path, { server, caPem, ...(token ? { token } : {}) });
  return kubectlFor(t, path);
}

const whoami = async (k: ReturnType<typeof kubectlFor>, extra: string[] = []) => JSON.parse(await k.ok(['auth', 'whoami', '-o', 'json', ...extra])).status.userInfo;

/**
 * kubectl with a kubeconfig holding no credentials asks on the terminal for a username and
 * password (and fails without one). It sends those as Basic auth, which is not a bearer token:
 * the request carries no credentials the server knows, as with kube-apiserver (which dropped
 * basic auth). A kubeconfig with them written in stands for a user who answered the prompt.
 */
function anonymousKubectl(t: Test, dir: string, server: string, caPem: string) {
  const path = join(dir, `anonymous-${randomBytes(4).toString('hex')}.kubeconfig`);
  writeFileSync(path, kubeconfigYAML({ server, caPem }).replace('user: {}', 'user:\n      username: nobody\n      password: nothing'), { mode: 0o600 });
  return kubectlFor(t, path);
}

t.test('capstan apiserver: ServiceAccount tokens, TokenReview, OIDC, bootstrap tokens, impersonation', async (t) => {
  const p: APIServerProcess = await startAPIServerProcess(t);
  const k = kubectlFor(t, p.kubeconfig);
  const as = (token?: string) => tokenKubeconfig(t, p.dataDir, p.url, p.pki.ca.certPem, token);
  await k.ok(['create', 'serviceaccount', 'bot']);

  t.test('the signing key is in the data dir, owner only', async (t) => {
    t.equal(statSync(join(p.dataDir, 'sa.key')).mode & 0o777, 0o600);
  });

  t.test('kubectl create token, then kubectl --token: auth whoami is the ServiceAccount', async (t) => {
    const token = (await k.ok(['create', 'token', 'bot', '--duration', '1h'])).trim();
    t.match(token, /^[\w-]+\.[\w-]+\.[\w-]+$/);
    const u = await whoami(as(), ['--token', token]);
    t.equal(u.username, 'system:serviceaccount:default:bot');
    t.same(u.groups, ['system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated']);
    t.match(u.extra['authentication.kubernetes.io/credential-id'], [/^JTI=/]);
    t.match(await as(token).ok(['auth', 'whoami']), /Username\s+system:serviceaccount:default:bot/, 'the token from a kubeconfig too');

    await p.kill();
    await p.restart();
    t.equal((await whoami(as(token))).username, 'system:serviceaccount:default:bot', 'still good after a restart: the key was kept');
  });

  t.test('a token for a deleted ServiceAccount is refused (401)', async (t) => {
    await k.ok(['create', 'serviceaccount', 'doomed']);
    const token = (await k.ok(['create', 'token', 'doomed'])).trim();
    await whoami(as(token));
    await k.ok(['delete', 'serviceaccount', 'doomed']);
    const r = await as(token)(['auth', 'whoami']);
    t.not(r.code, 0);
    t.match(r.stderr, unauthorized);
    await k.ok(['create', 'serviceaccount', 'doomed']);
    t.match((await as(token)(['auth', 'whoami'])).stderr, unauthorized, 'nor by a new ServiceAccount of the same name');
  });

  t.test('a token bound to a pod: --audience, --bound-object-kind Pod; deleting the pod invalidates it', async (t) => {
    await k.ok(['run', 'web', '--image=busybox', '--overrides', JSON.stringify({ spec: { serviceAccountName: 'bot' } })]);
    const token = (await k.ok(['create', 'token', 'bot', '--duration', '1h', '--audience', 'https://kubernetes.default.svc.cluster.local', '--audience', 'vault',
      '--bound-object-kind', 'Pod', '--bound-object-name', 'web'])).trim();
    const u = await whoami(as(token));
    const podUID = (await k.ok(['get', 'pod', 'web', '-o', 'jsonpath={.metadata.uid}'])).trim();
    t.same(u.extra['authentication.kubernetes.io/pod-name'], ['web']);
    t.same(u.extra['authentication.kubernetes.io/pod-uid'], [podUID]);
    const onlyVault = (await k.ok(['create', 'token', 'bot', '--audience', 'vault'])).trim();
    t.match((await as(onlyVault)(['auth', 'whoami'])).stderr, unauthorized, 'a token for another audience does not get into the API server');
    await k.ok(['delete', 'pod', 'web', '--grace-period=0', '--force']);
    t.match((await as(token)(['auth', 'whoami'])).stderr, unauthorized);
    const r = await k(['create', 'token', 'bot', '--bound-object-kind', 'Pod', '--bound-object-name', 'web']);
    t.match(r.stderr, /pods "web" not found/, 'no token for a pod that is gone');
    const short = await k(['create', 'token', 'bot', '--duration', '5m']);
    t.match(short.stderr, /may not specify a duration less than 10 minutes/);
  });

  t.test('TokenReview through python3-kubernetes', async (t) => {
    const token = (await k.ok(['create', 'token', 'bot', '--audience', 'vault'])).trim();
    const py = pythonClient(t, { dir: p.dataDir, pki: p.pki, port: p.port } as TestAPIServer);
    const { values } = await py.run(`
auth = client.AuthenticationV1Api(api)
def review(token, audiences=None):
    body = client.V1TokenReview(spec=client.V1TokenReviewSpec(token=token, audiences=audiences))
    emit(auth.create_token_review(body).status)
review(${JSON.stringify(token)}, ['vault'])
review(${JSON.stringify(token)})
review('not-a-token')
`);
    t.match(values[0], { authenticated: true, audiences: ['vault'], user: { username: 'system:serviceaccount:default:bot', groups: ['system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated'] } });
    t.notOk(values[1].authenticated);
    t.match(values[1].error, /token audiences \["vault"\] is invalid for the target audiences/);
    t.match(values[2], { error: 'invalid bearer token' });
  });

  t.test('OIDC discovery: the JWKS the server publishes verifies its tokens here', async (t) => {
    const conf = JSON.parse(await k.ok(['get', '--raw', '/.well-known/openid-configuration']));
    t.match(conf, { issuer: 'https://kubernetes.default.svc.cluster.local', jwks_uri: `${p.url}/openid/v1/jwks`, id_token_signing_alg_values_supported: ['RS256'] });
    const { keys } = JSON.parse(await k.ok(['get', '--raw', '/openid/v1/jwks']));
    const token = (await k.ok(['create', 'token', 'bot'])).trim();
    const [h, pl, s] = token.split('.');
    const header = JSON.parse(Buffer.from(h, 'base64url').toString());
    t.equal(header.alg, 'RS256');
    const jwk = keys.find((key: { kid: string }) => key.kid === header.kid);
    t.match(jwk, { kty: 'RSA', use: 'sig', alg: 'RS256' });
    const key = createPublicKey({ key: jwk, format: 'jwk' });
    t.ok(verify('sha256', Buffer.from(`${h}.${pl}`), key, Buffer.from(s, 'base64url')), 'signature verifies with the published key');
    const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(pl, 'base64url').toString()), sub: 'system:serviceaccount:kube-system:admin' })).toString('base64url');
    t.notOk(verify('sha256', Buffer.from(`${h}.${forged}`), key, Buffer.from(s, 'base64url')), 'and not a changed payload');
    t.match((await as(`${h}.${forged}.${s}`)(['auth', 'whoami'])).stderr, unauthorized, 'which the server refuses too');
  });

  t.test('bootstrap tokens: authenticate until expired; the token cleaner deletes them', async (t) => {
    const id = () => randomBytes(3).toString('hex');
    const secret = randomBytes(8).toString('hex');
    const create = (tokenID: string, expiration: Date, groups = 'system:bootstrappers:worker') => k.ok(['-n', 'kube-system', 'create', 'secret', 'generic', `bootstrap-token-${tokenID}`,
      '--type', 'bootstrap.kubernetes.io/token', `--from-literal=token-id=${tokenID}`, `--from-literal=token-secret=${secret}`,
      '--from-literal=usage-bootstrap-authentication=true', `--from-literal=auth-extra-groups=${groups}`, `--from-literal=expiration=${rfc3339(expiration)}`]);
    const live = id(), expired = id();
    await create(live, new Date(Date.now() + 8_000));
    await create(expired, new Date(Date.now() - 60_000));
    const u = await whoami(as(`${live}.${secret}`));
    t.same(u, { username: `system:bootstrap:${live}`, groups: ['system:bootstrappers', 'system:bootstrappers:worker', 'system:authenticated'] });
    t.match((await as(`${live}.${'0'.repeat(16)}`)(['auth', 'whoami'])).stderr, unauthorized, 'a wrong secret');
    t.match((await as(`${expired}.${secret}`)(['auth', 'whoami'])).stderr, unauthorized, 'an expired token');

    // The token cleaner as `capstan controller-manager --controllers tokencleaner` loads it.
    const clients = clientsetFromKubeconfig(p.kubeconfig, 'capstan-controller-manager');
    const informers = new SharedInformerFactory(clients, { clock: realClock });
    const cleaner = await (await registry.tokencleaner())(controllerContext({ clients, informers, clock: realClock, log: logger('test', {}, () => undefined) }));
    informers.start();
    await informers.waitForCacheSync();
    void cleaner.run(1);
    t.teardown(async () => { await cleaner.stop(); await informers.stop(); clients.close(); });
    const gone = async (tokenID: string) => (await k(['-n', 'kube-system', 'get', 'secret', `bootstrap-token-${tokenID}`])).stderr.includes('NotFound');
    await eventually(() => gone(expired), 15_000, 'the expired token secret deleted');
    t.notOk(await gone(live), 'the live one stays');
    await eventually(() => gone(live), 30_000, 'the live token secret deleted once it expired');
    t.match((await as(`${live}.${secret}`)(['auth', 'whoami'])).stderr, unauthorized);
  });

  t.test('legacy token Secrets: filled in by the tokens controller, good while the Secret lives', async (t) => {
    const clients = clientsetFromKubeconfig(p.kubeconfig, 'capstan-controller-manager');
    const informers = new SharedInformerFactory(clients, { clock: realClock });
    const ctx = controllerContext({
      clients, informers, clock: realClock, log: logger('test', {}, () => undefined),
      config: { serviceAccountPrivateKeyPem: readFileSync(join(p.dataDir, 'sa.key'), 'utf8'), rootCAPem: p.pki.ca.certPem },
    });
    const tokens = await (await registry['serviceaccount-token']())(ctx);
    informers.start();
    await informers.waitForCacheSync();
    void tokens.run(1);
    t.teardown(async () => { await tokens.stop(); await informers.stop(); clients.close(); });
    await k.ok(['apply', '-f', '-'], JSON.stringify({
      apiVersion: 'v1', kind: 'Secret', type: 'kubernetes.io/service-account-token',
      metadata: { name: 'bot-legacy', annotations: { 'kubernetes.io/service-account.name': 'bot' } },
    }));
    let token = '';
    await eventually(async () => {
      token = Buffer.from(await k.ok(['get', 'secret', 'bot-legacy', '-o', 'jsonpath={.data.token}']), 'base64').toString();
      return token.length > 0;
    }, 15_000, 'the token written into the Secret');
    t.equal(Buffer.from(await k.ok(['get', 'secret', 'bot-legacy', '-o', 'jsonpath={.data.ca\\.crt}']), 'base64').toString(), p.pki.ca.certPem);
    t.match(await whoami(as(token)), { username: 'system:serviceaccount:default:bot', groups: ['system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated'] });
    await k.ok(['delete', 'secret', 'bot-legacy']);
    t.match((await as(token)(['auth', 'whoami'])).stderr, unauthorized, 'deleting the Secret revokes the token');
  });

  t.test('kubectl --as, --as-group', async (t) => {
    t.same(await whoami(k, ['--as', 'jane', '--as-group', 'devs', '--as-group', 'ops']), { username: 'jane', groups: ['devs', 'ops', 'system:authenticated'] });
    t.same(await whoami(k, ['--as', 'system:serviceaccount:default:bot']), { username: 'system:serviceaccount:default:bot', groups: ['system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated'] });
    t.same(await whoami(k, ['--as', 'jane', '--as-uid', 'u-42']), { username: 'jane', uid: 'u-42', groups: ['system:authenticated'] });
    // Impersonated requests are authorized as the impersonated user (RBAC by default).
    t.match((await k(['--as', 'jane', 'create', 'configmap', 'from-jane'])).stderr, 'User "jane" cannot create resource "configmaps"');
    await k.ok(['create', 'role', 'cm-writer', '--verb', 'create', '--resource', 'configmaps']);
    await k.ok(['create', 'rolebinding', 'jane-cm', '--role', 'cm-writer', '--user', 'jane']);
    await eventually(async () => (await k(['--as', 'jane', 'create', 'configmap', 'from-jane'])).code === 0, 10_000, 'jane may create once bound to a role allowing it');
    t.ok(await k.ok(['get', 'configmap', 'from-jane']), 'requests run as the impersonated user');
  });
});

/** Stands in for RBAC (branch rbac): authenticated users may do anything except impersonate
 *  when they are ServiceAccounts; anonymous only asks who it is. */
const notAlwaysAllow: DecisionAuthorizer = {
  decide(user, info) {
    if (info.verb === 'impersonate' && user.username.startsWith('system:serviceaccount:')) return deny('no impersonation for service accounts');
    if (user.groups.includes('system:authenticated')) return allow();
    if (info.group === 'authentication.k8s.io' && info.resource === 'selfsubjectreviews') return allow();
    return deny(`User "${user.username}" cannot ${info.verb} here`);
  },
};

t.test('anonymous requests, --anonymous-auth=false, and impersonation refused', async (t) => {
  const s = await startAPIServer(t, { authorizer: notAlwaysAllow });
  const url = `https://127.0.0.1:${s.port}`;
  const nobody = anonymousKubectl(t, s.dir, url, s.pki.ca.certPem);
  t.same(await whoami(nobody), { username: 'system:anonymous', groups: ['system:unauthenticated'] });
  const r = await nobody(['get', 'pods']);
  t.match(r.stderr, /Forbidden/, 'anonymous may do only what the authorizer allows');
  t.match((await tokenKubeconfig(t, s.dir, url, s.pki.ca.certPem, 'not-a-token')(['auth', 'whoami'])).stderr, unauthorized, 'bad credentials are never anonymous');

  await s.client.post('/api/v1/namespaces/default/serviceaccounts', { metadata: { name: 'bot' } });
  const token = (await s.client.post('/api/v1/namespaces/default/serviceaccounts/bot/token', { spec: {} })).body.status.token;
  const bot = tokenKubeconfig(t, s.dir, url, s.pki.ca.certPem, token);
  // Discovery first, as the bot itself: kubectl words a 403 on discovery as "unknown".
  await bot.ok(['get', 'configmaps']);
  const denied = await bot(['get', 'configmaps', '--as', 'jane']);
  t.match(denied.stderr, 'Error from server (Forbidden): users "jane" is forbidden: User "system:serviceaccount:default:bot" cannot impersonate resource "users" in API group "" at the cluster scope');

  const closed = await startAPIServer(t, { authorizer: notAlwaysAllow, anonymousAuth: false });
  const nobodyClosed = anonymousKubectl(t, closed.dir, `https://127.0.0.1:${closed.port}`, closed.pki.ca.certPem);
  t.match((await nobodyClosed(['auth', 'whoami'])).stderr, unauthorized, '--anonymous-auth=false: 401');
});
