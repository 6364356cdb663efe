// The tokens controller against the in-memory API: a token Secret of an existing
// ServiceAccount gets a token the legacy authenticator accepts, the CA and the namespace; a
// Secret of a missing ServiceAccount is deleted; without a key nothing is written.
import t, { type Test } from 'tap';
import { generateKeyPairSync } from 'node:crypto';
import { FakeClientset, FakeClock, SharedInformerFactory, resources } from '../../src/client/index.js';
import { TokensController } from '../../src/controllers/serviceaccount/index.js';
import { decodeJWT, verifySignature, verifyingKey } from '../../src/util/jwt.js';
import { controllerContext, queueDriver } from '../helpers/controller-context.js';

const key = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
const tokenSecret = (name: string, sa: string) => ({
  metadata: { name, namespace: 'team', annotations: { 'kubernetes.io/service-account.name': sa } }, type: 'kubernetes.io/service-account-token',
});

async function setup(t: Test, withKey: boolean) {
  const clock = new FakeClock();
  const fake = new FakeClientset(clock);
  fake.seed(resources.serviceaccounts, { metadata: { name: 'bot', namespace: 'team', uid: 'sa-uid-1' } });
  fake.seed(resources.secrets, tokenSecret('bot-token', 'bot'), tokenSecret('ghost-token', 'ghost'));
  const informers = new SharedInformerFactory(fake, { clock });
  const c = new TokensController(controllerContext({
    clients: fake, informers, clock,
    config: withKey ? { serviceAccountPrivateKeyPem: key.export({ type: 'pkcs8', format: 'pem' }) as string, rootCAPem: 'CA PEM' } : {},
  }));
  informers.start();
  t.teardown(async () => { await c.stop(); await informers.stop(); });
  await informers.waitForCacheSync();
  const { drain } = queueDriver(c, fake, clock);
  await drain();
  return { fake };
}

t.test('token Secrets are filled in; those of missing ServiceAccounts deleted', async (t) => {
  const { fake } = await setup(t, true);
  const s = fake.get(resources.secrets, 'team', 'bot-token')!;
  t.equal(s.metadata.annotations?.['kubernetes.io/service-account.uid'], 'sa-uid-1');
  t.equal(Buffer.from(s.data!['ca.crt'], 'base64').toString(), 'CA PEM');
  t.equal(Buffer.from(s.data!.namespace, 'base64').toString(), 'team');
  const jwt = decodeJWT(Buffer.from(s.data!.token, 'base64').toString())!;
  t.ok(verifySignature(jwt, [verifyingKey(key)]));
  t.match(jwt.claims, {
    iss: 'kubernetes/serviceaccount', sub: 'system:serviceaccount:team:bot',
    'kubernetes.io/serviceaccount/namespace': 'team', 'kubernetes.io/serviceaccount/secret.name': 'bot-token',
    'kubernetes.io/serviceaccount/service-account.name': 'bot', 'kubernetes.io/serviceaccount/service-account.uid': 'sa-uid-1',
  });
  t.notOk(fake.get(resources.secrets, 'team', 'ghost-token'), 'the Secret of a ServiceAccount that does not exist is deleted');
});

t.test('without a private key nothing is written', async (t) => {
  const { fake } = await setup(t, false);
  t.notOk(fake.get(resources.secrets, 'team', 'bot-token')?.data?.token);
  t.ok(fake.get(resources.secrets, 'team', 'ghost-token'));
});
