// The token cleaner against the in-memory API and a driven clock: an expired bootstrap token
// Secret goes at once, one expiring later goes when its time comes (not before), one without
// expiration and other Secrets stay, and a Secret recreated under the name is not taken.
import t from 'tap';
import { FakeClientset, FakeClock, SharedInformerFactory, resources } from '../../src/client/index.js';
import { TokenCleaner } from '../../src/controllers/bootstrap/index.js';
import { rfc3339 } from '../../src/api/time.js';
import { controllerContext, queueDriver } from '../helpers/controller-context.js';

const b64 = (s: string) => Buffer.from(s).toString('base64');

t.test('expired bootstrap token secrets are deleted at their expiry', async (t) => {
  const clock = new FakeClock(Date.parse('2026-06-01T00:00:00Z'));
  const fake = new FakeClientset(clock);
  const at = (ms: number) => rfc3339(new Date(clock.now() + ms));
  const token = (id: string, data: Record<string, string>, ns = 'kube-system', type = 'bootstrap.kubernetes.io/token') => ({
    metadata: { name: `bootstrap-token-${id}`, namespace: ns }, type,
    data: Object.fromEntries(Object.entries({ 'token-id': id, 'token-secret': '0123456789abcdef', ...data }).map(([k, v]) => [k, b64(v)])),
  });
  fake.seed(resources.secrets,
    token('expird', { expiration: at(-1000) }),
    token('later1', { expiration: at(90_000) }),
    token('never1', {}),
    token('garble', { expiration: 'soon' }),
    token('otherns', { expiration: at(-1000) }, 'default'),
    token('opaque', { expiration: at(-1000) }, 'kube-system', 'Opaque'));
  const informers = new SharedInformerFactory(fake, { clock });
  const c = new TokenCleaner(controllerContext({ clients: fake, informers, clock }));
  informers.start();
  t.teardown(async () => { await c.stop(); await informers.stop(); });
  await informers.waitForCacheSync();
  const { drain, advance } = queueDriver(c, fake, clock);
  await drain();
  const names = () => fake.list(resources.secrets).map((s) => `${s.metadata.namespace}/${s.metadata.name}`).sort();
  t.same(names(), ['default/bootstrap-token-otherns', 'kube-system/bootstrap-token-later1', 'kube-system/bootstrap-token-never1', 'kube-system/bootstrap-token-opaque'],
    'expired and unparseable expirations deleted; other namespaces and types left');

  await advance(89_000);
  t.ok(names().includes('kube-system/bootstrap-token-later1'), 'not before its expiry');
  await advance(2_000);
  t.notOk(names().includes('kube-system/bootstrap-token-later1'), 'deleted once it expired');
  t.ok(names().includes('kube-system/bootstrap-token-never1'));
});
