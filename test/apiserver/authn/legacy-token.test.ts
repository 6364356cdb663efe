// Legacy ServiceAccount tokens as the authenticator judges them: good while the Secret holds
// this very token and the ServiceAccount keeps its uid; refused once either goes, changes, or
// the Secret is marked invalid.
import t from 'tap';
import { generateKeyPairSync } from 'node:crypto';
import { legacyTokenClaims } from '../../../src/api/legacy-serviceaccount-token.js';
import { loadServiceAccountKeys } from '../../../src/apiserver/authn/keys.js';
import { LegacyServiceAccountTokenAuthenticator } from '../../../src/apiserver/authn/legacy-token.js';
import { AuthenticationError } from '../../../src/apiserver/authn/types.js';
import { signJWT } from '../../../src/util/jwt.js';
import { MemoryObjects } from './objects.js';

const keys = loadServiceAccountKeys(generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string);
const b64 = (s: string) => Buffer.from(s).toString('base64');

t.test('legacy tokens', async (t) => {
  const objects = new MemoryObjects();
  const authn = new LegacyServiceAccountTokenAuthenticator(keys, objects);
  const sa = objects.add('serviceaccounts', 'team', 'old');
  const token = signJWT(legacyTokenClaims('team', 'old', sa.metadata.uid as string, 'old-token'), keys.signing);
  const secret = (extra: Record<string, unknown> = {}) => objects.add('secrets', 'team', 'old-token', {
    type: 'kubernetes.io/service-account-token',
    metadata: { name: 'old-token', namespace: 'team', annotations: { 'kubernetes.io/service-account.name': 'old' }, ...extra },
    data: { token: b64(token) },
  });
  const refusal = async (tok = token) => {
    try { await authn.authenticateToken(tok, ['api']); } catch (e) { if (e instanceof AuthenticationError) return e.message; throw e; }
    return null;
  };
  secret();
  const r = await authn.authenticateToken(token, ['api']);
  t.same(r, { user: { username: 'system:serviceaccount:team:old', uid: sa.metadata.uid, groups: ['system:serviceaccounts', 'system:serviceaccounts:team'] }, audiences: ['api'] });

  objects.add('secrets', 'team', 'old-token', { type: 'kubernetes.io/service-account-token', metadata: { name: 'old-token', namespace: 'team', annotations: { 'kubernetes.io/service-account.name': 'old' } }, data: { token: b64('another') } });
  t.equal(await refusal(), 'token does not match the secret', 'the Secret holds another token');
  secret({ labels: { 'kubernetes.io/legacy-token-invalid-since': '2026-01-01' } });
  t.match(await refusal(), /has been marked invalid/);
  objects.remove('secrets', 'team', 'old-token');
  t.equal(await refusal(), 'token has been invalidated', 'the Secret is gone');
  secret();
  objects.add('serviceaccounts', 'team', 'old');
  t.match(await refusal(), /^service account UID .* does not match claim/, 'the ServiceAccount was recreated');
  t.equal(await authn.authenticateToken(signJWT({ iss: 'https://other' }, keys.signing), ['api']), null, 'not a legacy token');
});
