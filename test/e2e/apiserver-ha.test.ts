// Two API servers on one etcd cluster serve one consistent cluster: a watch on one sees
// writes made through the other, names and ClusterIPs are never handed out twice.
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAPIServerProcess, type APIServerProcess } from '../helpers/apiserver-process.js';
import { startEtcdFor } from '../helpers/etcd.js';
import { APIClient } from '../helpers/api.js';

const clientFor = (p: APIServerProcess) => new APIClient(p.port, { ca: p.pki.ca.certPem, cert: p.pki.admin.certPem, key: p.pki.admin.keyPem });

t.test('two API servers on a 3-member etcd cluster', async (t) => {
  const etcd = await startEtcdFor(t, { members: 3 });
  // One data dir, so both servers share the cluster CA and credentials.
  const dataDir = mkdtempSync(join(tmpdir(), 'capstan-ha-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const a = await startAPIServerProcess(t, { store: etcd.url, dataDir });
  const b = await startAPIServerProcess(t, { store: etcd.url, dataDir });
  const ca = clientFor(a), cb = clientFor(b);

  await t.test('a watch on one server sees writes made through the other', async (t) => {
    const list = await ca.get('/api/v1/namespaces/default/configmaps');
    const watch = await ca.watch(`/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${list.body.metadata.resourceVersion}`);
    t.teardown(() => watch.close());
    t.equal((await cb.post('/api/v1/namespaces/default/configmaps', { metadata: { name: 'via-b' }, data: { k: 'v' } })).status, 201);
    t.equal((await cb.patch('/api/v1/namespaces/default/configmaps/via-b', { data: { k: 'w' } })).status, 200);
    t.equal((await cb.delete('/api/v1/namespaces/default/configmaps/via-b')).status, 200);
    const seen: string[] = [];
    while (seen.length < 3) {
      const ev = await watch.next(15_000);
      if (!ev) break;
      seen.push(`${ev.type} ${ev.object.metadata.name} ${ev.object.data?.k ?? ''}`);
    }
    t.same(seen, ['ADDED via-b v', 'MODIFIED via-b w', 'DELETED via-b w']);
  });

  await t.test('a stale write through one server conflicts with a write through the other', async (t) => {
    const created = await ca.post('/api/v1/namespaces/default/configmaps', { metadata: { name: 'shared' }, data: { n: '0' } });
    const rv = created.body.metadata.resourceVersion;
    t.equal((await cb.put('/api/v1/namespaces/default/configmaps/shared', { metadata: { name: 'shared', resourceVersion: rv }, data: { n: '1' } })).status, 200);
    const stale = await ca.put('/api/v1/namespaces/default/configmaps/shared', { metadata: { name: 'shared', resourceVersion: rv }, data: { n: '2' } });
    t.equal(stale.status, 409);
    t.equal(stale.body.reason, 'Conflict');
    t.equal((await ca.post('/api/v1/namespaces/default/configmaps', { metadata: { name: 'shared' } })).status, 409, 'AlreadyExists across servers');
  });

  await t.test('a read with a resourceVersion from the other server waits until this one has caught up', async (t) => {
    const path = '/api/v1/namespaces/default/configmaps';
    // Ahead of everything: this server's cache, and etcd itself, until the write below.
    const target = Number((await cb.get(path)).body.metadata.resourceVersion) + 1;
    const listed = cb.get(`${path}?resourceVersion=${target}`);
    const got = cb.get(`${path}/from-a?resourceVersion=${target}`);
    const waiting = async () => Number(/^apiserver_watch_cache_waiting_reads (\d+)$/m.exec((await cb.get('/metrics')).text)?.[1] ?? 0);
    for (const deadline = Date.now() + 2500; (await waiting()) < 2;) {
      if (Date.now() > deadline) return t.fail('the reads on B never waited for its cache');
      await new Promise((r) => setTimeout(r, 20));
    }
    const created = await ca.post(path, { metadata: { name: 'from-a' } });
    t.equal(created.status, 201);
    t.ok(Number(created.body.metadata.resourceVersion) >= target);
    const list = await listed;
    t.equal(list.status, 200);
    t.ok(Number(list.body.metadata.resourceVersion) >= target, 'not older than asked');
    t.ok(list.body.items.some((o: any) => o.metadata.name === 'from-a'), 'the write through the other server is in the list');
    t.equal((await got).status, 200);
    // A client that wrote through A at once reads through B with that resourceVersion.
    const next = await ca.post(path, { metadata: { name: 'from-a-2' } });
    const read = await cb.get(`${path}/from-a-2?resourceVersion=${next.body.metadata.resourceVersion}`);
    t.equal(read.status, 200);
  });

  await t.test('ClusterIPs are unique across servers', async (t) => {
    const ips = await Promise.all(Array.from({ length: 20 }, async (_, i) => {
      const c = i % 2 ? ca : cb;
      const r = await c.post('/api/v1/namespaces/default/services', { metadata: { name: `svc-${i}` }, spec: { ports: [{ port: 80 }] } });
      t.equal(r.status, 201);
      return r.body.spec.clusterIP as string;
    }));
    t.equal(new Set(ips).size, 20);
    const taken = await cb.post('/api/v1/namespaces/default/services', { metadata: { name: 'dup' }, spec: { clusterIP: ips[0], ports: [{ port: 80 }] } });
    t.equal(taken.status, 422);
    t.match(taken.body.message, /already allocated/);
  });
});
