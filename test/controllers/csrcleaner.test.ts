// The CSR cleaner against the in-memory API and a driven clock, with upstream's periods:
// issued-and-approved requests go an hour after approval, denied and failed ones an hour
// after the condition, pending ones a day after creation, issued ones whose certificate
// expired at once; each not a moment before.
import t from 'tap';
import { FakeClientset, FakeClock, SharedInformerFactory, resources } from '../../src/client/index.js';
import { CSRCleanerController } from '../../src/controllers/certificates/index.js';
import { rfc3339 } from '../../src/api/time.js';
import { issueCert, createCA } from '../../src/pki/index.js';
import { controllerContext, queueDriver } from '../helpers/controller-context.js';

const HOUR = 3600_000;

t.test('requests are deleted at upstream\'s deadlines', async (t) => {
  const clock = new FakeClock(Date.now());
  const fake = new FakeClientset(clock);
  const at = (ms: number) => rfc3339(new Date(clock.now() + ms));
  const ca = createCA('test-ca');
  const live = Buffer.from(issueCert(ca, { commonName: 'x', organizations: [], usage: 'client' }).certPem).toString('base64');
  const cond = (type: string, ago: number) => ({ type, status: 'True', reason: 'Test', lastUpdateTime: at(-ago) });
  const csr = (name: string, created: number, status: Record<string, unknown> = {}) => ({
    apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest',
    metadata: { name, creationTimestamp: at(-created), uid: `${name}-uid` },
    spec: { request: '', signerName: 'kubernetes.io/kube-apiserver-client', usages: ['client auth'] }, status,
  });
  fake.seed(resources.certificatesigningrequests,
    csr('pending-new', 22.5 * HOUR),
    csr('pending-old', 25 * HOUR),
    csr('issued-new', 2 * HOUR, { conditions: [cond('Approved', 30 * 60_000)], certificate: live }),
    csr('issued-old', 2 * HOUR, { conditions: [cond('Approved', 2 * HOUR)], certificate: live }),
    csr('approved-unissued', 30 * HOUR, { conditions: [cond('Approved', 30 * HOUR)] }),
    csr('denied-new', 2 * HOUR, { conditions: [cond('Denied', 10 * 60_000)] }),
    csr('failed-old', 2 * HOUR, { conditions: [cond('Approved', 90 * 60_000), cond('Failed', 90 * 60_000)] }));
  const informers = new SharedInformerFactory(fake, { clock });
  const c = new CSRCleanerController(controllerContext({ clients: fake, informers, clock }));
  informers.start();
  t.teardown(async () => { await c.stop(); await informers.stop(); });
  await informers.waitForCacheSync();
  const { drain, advance } = queueDriver(c, fake, clock);
  await drain();
  const names = () => fake.list(resources.certificatesigningrequests).map((x) => x.metadata.name).sort();
  t.same(names(), ['approved-unissued', 'denied-new', 'issued-new', 'pending-new'], 'past their deadlines: deleted; an approved request not yet issued stays');
  await advance(29 * 60_000);
  t.same(names(), ['approved-unissued', 'denied-new', 'issued-new', 'pending-new'], 'nothing before its time');
  await advance(2 * 60_000);
  t.same(names(), ['approved-unissued', 'denied-new', 'pending-new'], 'issued: an hour after approval');
  await advance(30 * 60_000);
  t.same(names(), ['approved-unissued', 'pending-new'], 'denied: an hour after the condition');
  await advance(HOUR);
  t.same(names(), ['approved-unissued'], 'pending: a day after creation');
});
