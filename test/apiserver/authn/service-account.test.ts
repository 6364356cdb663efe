// ServiceAccount tokens as the authenticator judges them: good while signature, time window,
// audience and the bound objects (with the same uids) hold; refused with upstream's reasons
// once any of them does not. Time is a number the test moves.
import t from 'tap';
import { generateKeyPairSync } from 'node:crypto';
import { loadServiceAccountKeys, ephemeralServiceAccountKeys } from '../../../src/apiserver/authn/keys.js';
import { ServiceAccountTokenAuthenticator, defaultIssuer, signServiceAccountToken, type TokenSpec } from '../../../src/apiserver/authn/service-account.js';
import { AuthenticationError } from '../../../src/apiserver/authn/types.js';
import { MemoryObjects } from './objects.js';

const keys = loadServiceAccountKeys(generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string);
const start = Date.parse('2026-06-01T00:00:00Z');
const aud = [defaultIssuer];

function setup() {
  let now = start;
  const objects = new MemoryObjects();
  const sa = objects.add('serviceaccounts', 'team', 'bot');
  const authn = new ServiceAccountTokenAuthenticator({ issuers: [defaultIssuer], keys, objects, now: () => now });
  const mint = (s: Partial<TokenSpec> = {}) => signServiceAccountToken({ issuer: defaultIssuer, serviceAccount: sa, audiences: aud, expirationSeconds: 3600, nowMs: now, ...s }, keys);
  const refusal = async (token: string, audiences = aud) => {
    try {
      await authn.authenticateToken(token, audiences);
    } catch (e) {
      if (e instanceof AuthenticationError) return e.message;
      throw e;
    }
    return null;
  };
  return { objects, sa, authn, mint, refusal, setNow: (ms: number) => { now = ms; } };
}

t.test('a fresh token is the ServiceAccount, with its groups, uid and credential id', async (t) => {
  const { sa, authn, mint } = setup();
  const r = await authn.authenticateToken(mint(), aud);
  t.ok(r);
  t.equal(r!.user.username, 'system:serviceaccount:team:bot');
  t.equal(r!.user.uid, sa.metadata.uid);
  t.same(r!.user.groups, ['system:serviceaccounts', 'system:serviceaccounts:team']);
  t.match(r!.user.extra, { 'authentication.kubernetes.io/credential-id': [/^JTI=[0-9a-f-]{36}$/] });
  t.same(r!.audiences, aud);
});

t.test('claims as kube-apiserver writes them', async (t) => {
  const { sa, mint, objects } = setup();
  const pod = objects.add('pods', 'team', 'web', { spec: { nodeName: 'n1' } });
  const node = objects.add('nodes', undefined, 'n1');
  const token = mint({ pod, node, warnAfterSeconds: 3607, audiences: ['a', 'b'] });
  const claims = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString());
  const now = start / 1000;
  t.match(claims, {
    iss: defaultIssuer, sub: 'system:serviceaccount:team:bot', aud: ['a', 'b'], iat: now, nbf: now, exp: now + 3600, jti: String,
    'kubernetes.io': {
      namespace: 'team', serviceaccount: { name: 'bot', uid: sa.metadata.uid },
      pod: { name: 'web', uid: pod.metadata.uid }, node: { name: 'n1', uid: node.metadata.uid }, warnafter: now + 3607,
    },
  });
});

t.test('expiry and not-before, with a minute of leeway', async (t) => {
  const { mint, refusal, setNow } = setup();
  const token = mint({ expirationSeconds: 600 });
  setNow(start + 600_000 + 59_000);
  t.equal(await refusal(token), null, 'within the leeway');
  setNow(start + 600_000 + 61_000);
  t.equal(await refusal(token), 'service account token has expired');
  setNow(start - 120_000);
  t.equal(await refusal(token), 'service account token is not valid yet');
});

t.test('audience: the token must be for one of the audiences asked for', async (t) => {
  const { authn, mint, refusal } = setup();
  const token = mint({ audiences: ['vault', 'other'] });
  t.equal(await refusal(token), `token audiences ["vault" "other"] is invalid for the target audiences ["${defaultIssuer}"]`);
  const r = await authn.authenticateToken(token, ['vault']);
  t.same(r?.audiences, ['vault']);
});

t.test('a tampered or foreign token', async (t) => {
  const { mint, refusal, authn, sa } = setup();
  const [h, p, s] = mint().split('.');
  const claims = JSON.parse(Buffer.from(p, 'base64url').toString());
  claims['kubernetes.io'].serviceaccount.name = 'admin';
  t.equal(await refusal(`${h}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${s}`), 'invalid signature');
  const foreign = signServiceAccountToken({ issuer: defaultIssuer, serviceAccount: sa, audiences: aud, expirationSeconds: 3600, nowMs: start }, ephemeralServiceAccountKeys());
  t.equal(await refusal(foreign), 'invalid signature', 'signed by a key this server does not hold');
  const otherIssuer = signServiceAccountToken({ issuer: 'https://elsewhere', serviceAccount: sa, audiences: aud, expirationSeconds: 3600, nowMs: start }, keys);
  t.equal(await authn.authenticateToken(otherIssuer, aud), null, "another issuer's token is left to other authenticators");
  t.equal(await authn.authenticateToken('abcdef.0123456789abcdef', aud), null, 'not a JWT');
});

t.test('the ServiceAccount must still exist with the same uid', async (t) => {
  const { objects, mint, refusal, sa } = setup();
  const token = mint();
  objects.remove('serviceaccounts', 'team', 'bot');
  t.equal(await refusal(token), 'serviceaccounts "bot" not found');
  const again = objects.add('serviceaccounts', 'team', 'bot');
  t.equal(await refusal(token), `service account UID (${again.metadata.uid}) does not match claim (${sa.metadata.uid})`, 'recreated under the same name');
});

t.test('a token bound to a pod dies with the pod; to a secret with the secret; to a node with the node', async (t) => {
  const { objects, mint, refusal, authn } = setup();
  const pod = objects.add('pods', 'team', 'web');
  const podToken = mint({ pod });
  const r = await authn.authenticateToken(podToken, aud);
  t.match(r?.user.extra, { 'authentication.kubernetes.io/pod-name': ['web'], 'authentication.kubernetes.io/pod-uid': [pod.metadata.uid] });
  objects.remove('pods', 'team', 'web');
  t.equal(await refusal(podToken), 'service account token has been invalidated');
  objects.add('pods', 'team', 'web');
  t.match(await refusal(podToken), /^pod UID \(.*\) does not match service account pod ref claim/);

  const secret = objects.add('secrets', 'team', 's');
  const secretToken = mint({ secret });
  t.equal(await refusal(secretToken), null);
  objects.add('secrets', 'team', 's', { metadata: { name: 's', namespace: 'team', uid: secret.metadata.uid, deletionTimestamp: '2026-01-01T00:00:00Z' } });
  t.equal(await refusal(secretToken), 'service account token has been invalidated', 'a secret deleted long ago and still terminating');

  const node = objects.add('nodes', undefined, 'n1');
  const nodeToken = mint({ node });
  t.match((await authn.authenticateToken(nodeToken, aud))?.user.extra, { 'authentication.kubernetes.io/node-name': ['n1'], 'authentication.kubernetes.io/node-uid': [node.metadata.uid] });
  objects.remove('nodes', undefined, 'n1');
  t.equal(await refusal(nodeToken), 'service account token has been invalidated');
});
