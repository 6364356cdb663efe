// Informers against a real API server: list then watch, handlers in order, frozen objects,
// and recovery when the watch breaks.
import t, { type Test } from 'tap';
import { startAPIServer } from '../helpers/api.js';
import { Clientset, RESTClient, SharedInformerFactory, resources, LeaderElector, stripManagedFields } from '../../src/client/index.js';
import { eventually } from '../helpers/kubectl.js';

async function setup(t: Test) {
  const server = await startAPIServer(t);
  const rest = new RESTClient({ server: `https://127.0.0.1:${server.port}`, caPem: server.pki.ca.certPem, certPem: server.pki.admin.certPem, keyPem: server.pki.admin.keyPem }, 'informer-test');
  t.teardown(() => rest.close());
  return { server, clients: new Clientset(rest) };
}

t.test('an informer lists, watches, and keeps handlers and cache in step', async (t) => {
  const { clients } = await setup(t);
  const cms = clients.resource(resources.configmaps);
  await cms.create('default', { metadata: { name: 'before' }, data: { a: '1' } });
  const factory = new SharedInformerFactory(clients);
  const inf = factory.informerFor(resources.configmaps);
  const seen: string[] = [];
  inf.addEventHandler({
    onAdd: (o) => seen.push(`add ${o.metadata.name}`),
    onUpdate: (_o, n) => seen.push(`update ${n.metadata.name} ${n.data?.a}`),
    onDelete: (o) => seen.push(`delete ${o.metadata.name}`),
  });
  t.equal(factory.informerFor(resources.configmaps), inf, 'one informer per resource');
  factory.start();
  t.teardown(() => factory.stop());
  await factory.waitForCacheSync();
  t.ok(inf.hasSynced());
  t.ok(inf.lister.get('default', 'before'));
  t.throws(() => { (inf.lister.get('default', 'before')!.data as Record<string, string>).a = 'x'; }, 'cached objects are frozen');
  await cms.create('default', { metadata: { name: 'during', labels: { pick: 'me' } }, data: { a: '1' } });
  await cms.patch('default', 'during', 'merge', { data: { a: '2' } });
  await cms.delete('default', 'during');
  await eventually(() => seen.includes('delete during'), 10_000, 'delete event');
  t.same(seen.filter((s) => s.includes('during')), ['add during', 'update during 2', 'delete during']);
  t.equal(inf.lister.get('default', 'during'), undefined);
  t.equal(inf.lister.list('default', 'pick=me').length, 0);
});

t.test('a transform applies to listed and watched objects: stripManagedFields keeps them out of the cache', async (t) => {
  const { clients } = await setup(t);
  const cms = clients.resource(resources.configmaps);
  const listed = await cms.create('default', { metadata: { name: 'listed' }, data: { a: '1' } });
  t.ok(listed.metadata.managedFields?.length, 'the server records managedFields');
  const factory = new SharedInformerFactory(clients, { transform: stripManagedFields });
  const inf = factory.informerFor(resources.configmaps);
  const updated: string[] = [];
  inf.addEventHandler({ onUpdate: (_o, n) => updated.push(`${n.metadata.name} ${n.data?.a} ${n.metadata.managedFields === undefined}`) });
  factory.start();
  t.teardown(() => factory.stop());
  await factory.waitForCacheSync();
  t.equal(inf.lister.get('default', 'listed')!.metadata.managedFields, undefined, 'listed without managedFields');
  t.equal(inf.lister.get('default', 'listed')!.data?.a, '1');
  await cms.create('default', { metadata: { name: 'watched' }, data: { a: '1' } });
  await cms.patch('default', 'watched', 'merge', { data: { a: '2' } });
  await eventually(() => updated.includes('watched 2 true'), 10_000, 'the update without managedFields');
  t.equal(inf.lister.get('default', 'watched')!.metadata.managedFields, undefined, 'watched without managedFields');
  // An update written from the stripped copy keeps what the server recorded.
  const copy = structuredClone(inf.lister.get('default', 'watched')!);
  copy.data = { a: '3' };
  const before = (await cms.get('default', 'watched')).metadata.managedFields ?? [];
  t.ok(before.length, 'recorded before the update');
  const written = await cms.update(copy);
  t.equal(written.data?.a, '3');
  t.same(written.metadata.managedFields?.map((m) => m.manager), before.map((m) => m.manager), 'an update without managedFields keeps the stored owners');
});

t.test('a broken watch is resumed from the last version without losing events', async (t) => {
  const { server, clients } = await setup(t);
  const cms = clients.resource(resources.configmaps);
  const factory = new SharedInformerFactory(clients);
  const inf = factory.informerFor(resources.configmaps);
  const added: string[] = [];
  inf.addEventHandler({ onAdd: (o) => added.push(o.metadata.name as string) });
  factory.start();
  t.teardown(() => factory.stop());
  await factory.waitForCacheSync();
  await cms.create('default', { metadata: { name: 'one' } });
  await eventually(() => added.includes('one'), 10_000, 'first add');
  // Cut every open connection: the reflector must re-watch from where it was.
  server.server.dropConnections();
  for (let i = 0; i < 5; i++) await cms.create('default', { metadata: { name: `after-${i}` } }).catch(async () => { await new Promise((r) => setTimeout(r, 200)); return cms.create('default', { metadata: { name: `after-${i}` } }); });
  await eventually(() => added.filter((n) => n.startsWith('after-')).length === 5, 15_000, 'adds after the break');
  t.equal(new Set(added).size, added.length, 'no duplicates');
});

t.test('leader election: exactly one of two leads; the other takes over when it stops', async (t) => {
  const { clients } = await setup(t);
  const leases = clients.resource(resources.leases);
  const leading: string[] = [];
  // b's reads of the Lease, counted: each is one attempt of b's to acquire it.
  let bReads = 0;
  const countingLeases = Object.assign(Object.create(leases) as typeof leases, {
    get: async (...args: Parameters<typeof leases.get>) => { const lease = await leases.get(...args); bReads++; return lease; },
  });
  const mk = (id: string) => new LeaderElector(id === 'b' ? countingLeases : leases, {
    namespace: 'kube-system', name: 'test-lock', identity: id, leaseDurationMs: 2000, renewDeadlineMs: 1500, retryPeriodMs: 200,
    onStartedLeading: () => leading.push(`start ${id}`), onStoppedLeading: () => leading.push(`stop ${id}`),
  });
  const a = mk('a'), b = mk('b');
  a.start();
  await eventually(() => a.isLeader, 5000, 'a leads');
  b.start();
  // Two attempts of b's have seen a's lease (the first one's verdict is in by the second).
  await eventually(() => bReads >= 2, 5000, 'b tried to acquire the lease');
  t.notOk(b.isLeader, 'b waits while a renews');
  t.ok(a.isLeader, 'a still leads');
  await a.stop();
  await eventually(() => b.isLeader, 5000, 'b takes over');
  await b.stop();
  t.same(leading, ['start a', 'stop a', 'start b', 'stop b']);
});
