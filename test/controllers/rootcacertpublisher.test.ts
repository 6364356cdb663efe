// The root CA publisher against the in-memory API: kube-root-ca.crt with the CA and the
// description in every namespace, recreated when deleted, restored when edited.
import t from 'tap';
import { FakeClientset, FakeClock, SharedInformerFactory, resources } from '../../src/client/index.js';
import { RootCACertPublisher, description } from '../../src/controllers/rootcacertpublisher/index.js';
import { controllerContext, queueDriver } from '../helpers/controller-context.js';

const ca = '-----BEGIN CERTIFICATE-----\nMIIBfake\n-----END CERTIFICATE-----\n';

t.test('kube-root-ca.crt in every namespace, kept as published', async (t) => {
  const clock = new FakeClock();
  const fake = new FakeClientset(clock);
  fake.seed(resources.namespaces, { metadata: { name: 'a' }, status: { phase: 'Active' } }, { metadata: { name: 'b' }, status: { phase: 'Active' } });
  fake.seed(resources.configmaps, { metadata: { name: 'kube-root-ca.crt', namespace: 'b', labels: { keep: 'me' } }, data: { 'ca.crt': 'stale' } });
  const informers = new SharedInformerFactory(fake, { clock });
  const c = new RootCACertPublisher(controllerContext({ clients: fake, informers, clock }), ca);
  informers.start();
  t.teardown(async () => { await c.stop(); await informers.stop(); });
  await informers.waitForCacheSync();
  const { drain } = queueDriver(c, fake, clock);
  await drain();
  const cm = (ns: string) => fake.get(resources.configmaps, ns, 'kube-root-ca.crt');

  t.strictSame(cm('a')?.data, { 'ca.crt': ca });
  t.strictSame(cm('a')?.metadata.annotations, { 'kubernetes.io/description': description });
  t.match(description, /^Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes\.default\.svc\. No other usage/);
  t.strictSame(cm('b')?.data, { 'ca.crt': ca }, 'a stale one is restored');
  t.strictSame(cm('b')?.metadata.labels, { keep: 'me' }, 'its other metadata stays');

  await fake.resource(resources.namespaces).create(undefined, { metadata: { name: 'c' }, status: { phase: 'Active' } });
  await drain();
  t.strictSame(cm('c')?.data, { 'ca.crt': ca }, 'a new namespace gets one');

  await fake.resource(resources.configmaps).delete('a', 'kube-root-ca.crt');
  await drain();
  t.strictSame(cm('a')?.data, { 'ca.crt': ca }, 'recreated after deletion');

  const edited = { ...cm('c')!, data: { 'ca.crt': 'tampered', extra: 'x' } };
  await fake.resource(resources.configmaps).update(edited);
  await drain();
  t.strictSame(cm('c')?.data, { 'ca.crt': ca }, 'restored after an edit');

  const noNote = cm('c')!;
  await fake.resource(resources.configmaps).update({ ...noNote, metadata: { ...noNote.metadata, annotations: {} } });
  await drain();
  t.equal(cm('c')?.metadata.annotations?.['kubernetes.io/description'], description, 'the description comes back');

  const n = fake.actions.length;
  await fake.resource(resources.configmaps).create('a', { metadata: { name: 'other' }, data: { x: '1' } });
  await fake.resource(resources.configmaps).delete('a', 'other');
  await drain();
  t.equal(fake.actions.length, n + 2, 'other ConfigMaps are not its business');
});
