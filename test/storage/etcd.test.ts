// The shared storage suite against a real three-member etcd cluster. Each store gets its own
// key prefix, so tests share the cluster without seeing each other's keys.
import t from 'tap';
import { openStore } from '../../src/storage/index.js';
import { startEtcdFor } from '../helpers/etcd.js';
import { storageSuite } from './suite.js';
import { WatchRecorder } from './watch-recorder.js';

const cluster = await startEtcdFor(t, { members: 3 });
let n = 0;

storageSuite(t, async () => openStore(`${cluster.url}?prefix=/suite-${++n}`));

t.test('two stores on one cluster see each other\'s writes through watch', async (t) => {
  const [one, other] = await Promise.all([
    openStore(cluster.url, { keyPrefix: '/shared' }),
    openStore(`etcd://${cluster.endpoints[2].replace('http://', '')}`, { keyPrefix: '/shared' }),
  ]);
  t.teardown(() => Promise.all([one.close(), other.close()]));
  const rec = await WatchRecorder.start(other, '/registry/cm/', await other.currentRevision());
  t.teardown(() => rec.cancel());
  const rev = await one.create('/registry/cm/ns/a', Buffer.from('from one'));
  const [ev] = await rec.waitForEvents(1);
  t.same([ev.type, ev.key, ev.value.toString(), ev.revision], ['PUT', '/registry/cm/ns/a', 'from one', rev]);
  t.equal((await other.get('/registry/cm/ns/a'))?.modRevision, rev, 'the other store reads it at the same revision');
});

t.test('a watch on a member that dies resumes after it returns, without gaps or duplicates', async (t) => {
  const onMember0 = await openStore(`etcd://${cluster.endpoints[0].replace('http://', '')}`, { keyPrefix: '/failover' });
  const writer = await openStore(`etcd://${cluster.endpoints.slice(1).map((e) => e.replace('http://', '')).join(',')}`,
    { keyPrefix: '/failover' });
  t.teardown(() => Promise.all([onMember0.close(), writer.close()]));
  const rec = await WatchRecorder.start(onMember0, '/registry/cm/', await writer.currentRevision());
  t.teardown(() => rec.cancel());
  const written = [await writer.create('/registry/cm/ns/before', Buffer.from('1'))];
  await rec.waitForEvents(1);
  await cluster.killMember(0);
  for (const name of ['down-1', 'down-2', 'down-3']) written.push(await writer.create(`/registry/cm/ns/${name}`, Buffer.from(name)));
  await cluster.restartMember(0);
  written.push(await writer.create('/registry/cm/ns/after', Buffer.from('5')));
  // One stream delivers in revision order, so a duplicate or a late replay of the writes
  // above would arrive before this last one: once it is in, the record is complete.
  written.push(await writer.create('/registry/cm/ns/last', Buffer.from('6')));
  await rec.waitForEvents(written.length);
  t.same(rec.events.map((ev) => ev.revision), written);
  t.equal(rec.error, null);
});

t.test('checkHealth fails within its timeout while the member is down, and passes once it is back', async (t) => {
  // The store's own call deadline is a day away: a check that waited for it instead of its
  // timeout would never answer here, and the test would hang and fail rather than pass.
  const onMember0 = await openStore(`etcd://${cluster.endpoints[0].replace('http://', '')}`, { keyPrefix: '/health', callTimeoutMs: 86_400_000 });
  t.teardown(() => onMember0.close());
  await onMember0.checkHealth(2_000);
  await cluster.killMember(0);
  await t.rejects(onMember0.checkHealth(2_000), 'unhealthy while down: answered by its own timeout, not the call deadline');
  await cluster.restartMember(0);
  let healthy = false;
  for (const deadline = Date.now() + 30_000; !healthy && Date.now() < deadline;) {
    healthy = await onMember0.checkHealth(2_000).then(() => true, () => false);
    if (!healthy) await new Promise((r) => setTimeout(r, 500));
  }
  t.ok(healthy, 'healthy again after the restart');
});
