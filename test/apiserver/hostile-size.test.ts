// Stored objects are limited to 1.5 MiB (etcd's default request limit), checked once above
// every store: a real `capstan apiserver` on SQLite and on a real etcd answers 413 to every
// write that would store more, stores nothing, and never answers 500. Below it, on etcd, a
// value our check lets through but etcd refuses (its request adds the key and framing) is
// the same 413.
import t, { type Test } from 'tap';
import { startAPIServerProcess } from '../helpers/apiserver-process.js';
import { APIClient, fixtures } from '../helpers/api.js';
import { startEtcdFor } from '../helpers/etcd.js';
import { openStore } from '../../src/storage/index.js';
import { ValueTooLargeError } from '../../src/storage/store.js';
import { limitObjectSize } from '../../src/apiserver/registry/size-limit.js';
import { maxStoredObjectBytes } from '../../src/apiserver/limits.js';
import { StatusError } from '../../src/apiserver/errors.js';

const cms = '/api/v1/namespaces/default/configmaps';
const MiB = 1024 * 1024;

async function writes(t: Test, c: APIClient) {
  const twoMiB = fixtures.configMap('two-mib', {}, { blob: 'x'.repeat(2 * MiB) });
  const created = await c.post(cms, twoMiB);
  t.equal(created.status, 413, 'a 2 MiB create');
  t.match(created.body, { kind: 'Status', reason: 'RequestEntityTooLarge', code: 413 });
  t.equal((await c.get(`${cms}/two-mib`)).status, 404, 'nothing stored');
  const applied = await c.patch(`${cms}/two-mib?fieldManager=m`, twoMiB, { contentType: 'application/apply-patch+yaml' });
  t.equal(applied.status, 413, 'a 2 MiB apply');
  t.equal((await c.get(`${cms}/two-mib`)).status, 404, 'nothing stored');

  const oneMiB = await c.post(cms, fixtures.configMap('one-mib', {}, { blob: 'x'.repeat(MiB) }));
  t.equal(oneMiB.status, 201, 'a 1 MiB object is fine');
  const rv = oneMiB.body.metadata.resourceVersion;
  const grow = await c.patch(`${cms}/one-mib`, { data: { more: 'y'.repeat(MiB) } });
  t.equal(grow.status, 413, 'a merge patch to 2 MiB');
  const put = { ...oneMiB.body, data: { blob: 'z'.repeat(2 * MiB) } };
  t.equal((await c.put(`${cms}/one-mib`, put)).status, 413, 'an update to 2 MiB');
  const after = await c.get(`${cms}/one-mib`);
  t.equal(after.body.metadata.resourceVersion, rv, 'unchanged');
  t.same(Object.keys(after.body.data), ['blob']);
  const list = await c.get(cms);
  t.equal(list.status, 200, 'lists still answer');
}

const client = (p: { port: number; pki: any }) => new APIClient(p.port, { ca: p.pki.ca.certPem, cert: p.pki.admin.certPem, key: p.pki.admin.keyPem });

t.test('SQLite: objects over 1.5 MiB are 413', async (t) => {
  await writes(t, client(await startAPIServerProcess(t)));
});

t.test('etcd: objects over 1.5 MiB are 413', async (t) => {
  const etcd = await startEtcdFor(t);
  await writes(t, client(await startAPIServerProcess(t, { store: etcd.url })));

  await t.test('a value at the limit that etcd itself refuses is 413 too', async (t) => {
    const store = await openStore(`${etcd.url}?prefix=/size-${process.pid}`);
    t.teardown(() => store.close());
    const value = Buffer.alloc(maxStoredObjectBytes, 'x');
    await t.rejects(store.create('/registry/configmaps/default/edge', value), ValueTooLargeError, 'etcd: request is too large');
    const limited = limitObjectSize(store);
    const err = await limited.create('/registry/configmaps/default/edge', value).then(() => null, (e: unknown) => e);
    t.ok(err instanceof StatusError, 'a Status error');
    t.match(err, { code: 413, reason: 'RequestEntityTooLarge' });
    t.equal(await store.get('/registry/configmaps/default/edge'), null, 'nothing stored');
  });
});
