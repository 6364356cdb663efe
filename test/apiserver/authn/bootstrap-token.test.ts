// Bootstrap tokens: the token format, the Secret's fields as the authenticator reads them,
// and every way a token is refused (expired, wrong secret, not for authentication, bad groups).
import t from 'tap';
import { bootstrapTokenExpiry, bootstrapTokenGroups, parseBootstrapToken } from '../../../src/api/bootstrap-token.js';
import { BootstrapTokenAuthenticator } from '../../../src/apiserver/authn/bootstrap-token.js';
import { MemoryObjects } from './objects.js';

const b64 = (s: string) => Buffer.from(s).toString('base64');

t.test('token format: [a-z0-9]{6}.[a-z0-9]{16}', async (t) => {
  t.same(parseBootstrapToken('abcdef.0123456789abcdef'), { id: 'abcdef', secret: '0123456789abcdef' });
  for (const bad of ['ABCDEF.0123456789abcdef', 'abcde.0123456789abcdef', 'abcdef.0123456789abcde', 'abcdef-0123456789abcdef', 'abcdef.0123456789abcdef ', '']) {
    t.equal(parseBootstrapToken(bad), null, JSON.stringify(bad));
  }
});

t.test('expiration: RFC 3339, absent means never, unparseable means expired', async (t) => {
  t.equal(bootstrapTokenExpiry({ data: {} }), Infinity);
  t.equal(bootstrapTokenExpiry({ data: { expiration: b64('2026-06-01T00:00:00Z') } }), Date.parse('2026-06-01T00:00:00Z'));
  t.equal(bootstrapTokenExpiry({ data: { expiration: b64('2026-06-01T02:00:00+02:00') } }), Date.parse('2026-06-01T00:00:00Z'));
  t.equal(bootstrapTokenExpiry({ data: { expiration: b64('tomorrow') } }), -Infinity);
});

t.test('groups: system:bootstrappers plus extra groups under system:bootstrappers:', async (t) => {
  t.same(bootstrapTokenGroups({ data: {} }), ['system:bootstrappers']);
  t.same(bootstrapTokenGroups({ data: { 'auth-extra-groups': b64('system:bootstrappers:kubeadm:default-node-token, system:bootstrappers:x') } }),
    ['system:bootstrappers', 'system:bootstrappers:kubeadm:default-node-token', 'system:bootstrappers:x']);
  t.throws(() => bootstrapTokenGroups({ data: { 'auth-extra-groups': b64('system:masters') } }));
});

t.test('the authenticator', async (t) => {
  let now = Date.parse('2026-06-01T00:00:00Z');
  const objects = new MemoryObjects();
  const reasons: string[] = [];
  const authn = new BootstrapTokenAuthenticator(objects, () => now, (r) => reasons.push(r));
  const secret = (id: string, data: Record<string, string>, type = 'bootstrap.kubernetes.io/token') => objects.add('secrets', 'kube-system', `bootstrap-token-${id}`, {
    type, data: Object.fromEntries(Object.entries({ 'token-id': id, 'token-secret': '0123456789abcdef', 'usage-bootstrap-authentication': 'true', ...data }).map(([k, v]) => [k, b64(v)])),
  });
  secret('aaaaaa', { expiration: '2026-06-01T01:00:00Z', 'auth-extra-groups': 'system:bootstrappers:nodes' });
  secret('bbbbbb', { 'usage-bootstrap-authentication': 'false' });
  secret('cccccc', {}, 'Opaque');
  secret('dddddd', { 'auth-extra-groups': 'system:nodes' });
  secret('eeeeee', { 'token-id': 'ffffff' });

  const r = await authn.authenticateToken('aaaaaa.0123456789abcdef', ['api']);
  t.same(r, { user: { username: 'system:bootstrap:aaaaaa', groups: ['system:bootstrappers', 'system:bootstrappers:nodes'] }, audiences: ['api'] });
  t.equal(await authn.authenticateToken('aaaaaa.0123456789abcdee', ['api']), null, 'wrong secret');
  t.equal(await authn.authenticateToken('zzzzzz.0123456789abcdef', ['api']), null, 'no such secret');
  t.equal(await authn.authenticateToken('bbbbbb.0123456789abcdef', ['api']), null, 'not for authentication');
  t.equal(await authn.authenticateToken('cccccc.0123456789abcdef', ['api']), null, 'not a bootstrap token secret');
  t.equal(await authn.authenticateToken('dddddd.0123456789abcdef', ['api']), null, 'extra group outside system:bootstrappers:');
  t.equal(await authn.authenticateToken('eeeeee.0123456789abcdef', ['api']), null, 'token-id does not match the name');
  t.equal(await authn.authenticateToken('not-a-bootstrap-token', ['api']), null);
  now = Date.parse('2026-06-01T01:00:01Z');
  t.equal(await authn.authenticateToken('aaaaaa.0123456789abcdef', ['api']), null, 'expired');
  t.match(reasons, [/invalid value for key token-secret/, /not found/, /usage-bootstrap-authentication/, /invalid type/, /auth-extra-groups/, /token-id/, /has expired/]);
});
