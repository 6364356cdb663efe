// SIGKILL the API server in the middle of a stream of creates, start it again: every create
// that was answered 201 is there, and nothing half-written is visible.
import t, { type Test } from 'tap';
import { startAPIServerProcess, type APIServerProcess } from '../helpers/apiserver-process.js';
import { startEtcdFor } from '../helpers/etcd.js';
import { APIClient } from '../helpers/api.js';

function clientFor(p: APIServerProcess): APIClient {
  return new APIClient(p.port, { ca: p.pki.ca.certPem, cert: p.pki.admin.certPem, key: p.pki.admin.keyPem });
}

async function crashDuringCreates(t: Test, server: APIServerProcess): Promise<void> {
  const client = clientFor(server);
  const acknowledged = new Set<string>();
  let attempted = 0;
  let killed = false;
  const worker = async (id: number) => {
    for (let i = 0; !killed; i++) {
      const name = `cm-${id}-${i}`;
      attempted++;
      try {
        const r = await client.post('/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { stream: 'crash' } }, data: { payload: 'x'.repeat(512), i: String(i) } });
        if (r.status === 201) acknowledged.add(name);
      } catch {
        return; // the connection died with the server
      }
    }
  };
  const workers = Array.from({ length: 8 }, (_, id) => worker(id));
  while (acknowledged.size < 300) await new Promise((r) => setTimeout(r, 20));
  await server.kill();
  killed = true;
  await Promise.all(workers);
  t.ok(attempted > acknowledged.size || attempted === acknowledged.size, `${acknowledged.size} of ${attempted} creates acknowledged before SIGKILL`);

  await server.restart();
  const list = await clientFor(server).get('/api/v1/namespaces/default/configmaps?labelSelector=stream%3Dcrash');
  t.equal(list.status, 200);
  const present = new Map<string, { data: Record<string, string>; metadata: Record<string, unknown> }>();
  for (const item of list.body.items) present.set(item.metadata.name, item);
  const missing = [...acknowledged].filter((n) => !present.has(n));
  t.same(missing, [], 'every acknowledged create survived');
  const broken = [...present.values()].filter((o) => o.data?.payload?.length !== 512 || !o.metadata.uid || !o.metadata.resourceVersion);
  t.same(broken.map((o) => o.metadata.name), [], 'every stored object is whole');
  t.ok(present.size >= acknowledged.size);
  // The restarted server keeps working: a write and a read.
  const after = await clientFor(server).post('/api/v1/namespaces/default/configmaps', { metadata: { name: 'after-restart' }, data: { ok: 'yes' } });
  t.equal(after.status, 201);
}

t.test('SQLite: SIGKILL during creates loses nothing acknowledged', async (t) => {
  await crashDuringCreates(t, await startAPIServerProcess(t));
});

t.test('etcd: SIGKILL during creates loses nothing acknowledged', async (t) => {
  const etcd = await startEtcdFor(t, { members: 1 });
  await crashDuringCreates(t, await startAPIServerProcess(t, { store: etcd.url }));
});
