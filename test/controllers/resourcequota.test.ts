// The resource quota controller against the in-memory API: status.hard from the spec and
// status.used recounted from the namespace's pods, services, configmaps and secrets (compute
// of active pods only), kept as objects come and go.
import t from 'tap';
import { FakeClientset, FakeClock, SharedInformerFactory, resources } from '../../src/client/index.js';
import { ResourceQuotaController } from '../../src/controllers/resourcequota/index.js';
import { controllerContext, queueDriver } from '../helpers/controller-context.js';

const pod = (name: string, cpu: string, memory: string, phase = 'Running') => ({
  metadata: { name, namespace: 'team' },
  spec: { containers: [{ name: 'c', image: 'busybox', resources: { requests: { cpu, memory }, limits: { cpu, memory } } }] },
  status: { phase },
});

t.test('status.used follows what the namespace holds', async (t) => {
  const clock = new FakeClock();
  const fake = new FakeClientset(clock);
  fake.seed(resources.pods, pod('a', '250m', '64Mi'), pod('b', '500m', '64Mi'), pod('done', '1', '1Gi', 'Succeeded'), { ...pod('other', '1', '1Gi'), metadata: { name: 'other', namespace: 'elsewhere' } });
  fake.seed(resources.configmaps, { metadata: { name: 'cm', namespace: 'team' }, data: {} });
  fake.seed(resources.resourcequotas, {
    metadata: { name: 'q', namespace: 'team' },
    spec: { hard: { pods: '10', 'requests.cpu': '2', 'limits.memory': '1Gi', configmaps: '5', services: '2', 'count/pods': '20', 'services.nodeports': '1' } },
  });
  const informers = new SharedInformerFactory(fake, { clock });
  const c = new ResourceQuotaController(controllerContext({ clients: fake, informers, clock }));
  informers.start();
  t.teardown(async () => { await c.stop(); await informers.stop(); });
  await informers.waitForCacheSync();
  const { drain } = queueDriver(c, fake, clock);
  await drain();
  const status = () => fake.get(resources.resourcequotas, 'team', 'q')?.status;

  t.strictSame(status()?.hard, { pods: '10', 'requests.cpu': '2', 'limits.memory': '1Gi', configmaps: '5', services: '2', 'count/pods': '20', 'services.nodeports': '1' });
  t.strictSame(status()?.used, { pods: '2', 'requests.cpu': '750m', 'limits.memory': '128Mi', configmaps: '1', services: '0', 'count/pods': '3', 'services.nodeports': '0' },
    'a finished pod counts as an object but uses no compute; other namespaces do not count');

  await fake.resource(resources.services).create('team', { metadata: { name: 'np' }, spec: { type: 'NodePort', ports: [{ port: 80 }] } });
  await fake.resource(resources.pods).delete('team', 'a');
  await drain();
  t.equal(status()?.used?.services, '1');
  t.equal(status()?.used?.['services.nodeports'], '1');
  t.equal(status()?.used?.pods, '1');
  t.equal(status()?.used?.['requests.cpu'], '500m');

  const q = fake.get(resources.resourcequotas, 'team', 'q')!;
  await fake.resource(resources.resourcequotas).update({ ...q, spec: { hard: { pods: '3' } } });
  await drain();
  t.strictSame(status(), { hard: { pods: '3' }, used: { pods: '1' } }, 'a changed spec is reflected at once');
});
