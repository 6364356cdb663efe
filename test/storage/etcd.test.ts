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
