// /readyz (and /healthz, /livez) carry kube-apiserver's poststarthook/rbac/bootstrap-roles
// check: it fails while the server already serves but has not reconciled its bootstrap
// policy yet (here: the store holds back the first ClusterRole write), and passes after.
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { APIServer } from '../../src/apiserver/server.js';
import { ensureClusterPKI } from '../../src/cli/pki-files.js';
import { openStore } from '../../src/storage/index.js';
import { DelegatingStore } from '../../src/storage/delegating-store.js';
import { APIClient } from '../helpers/api.js';
import { eventually } from '../helpers/kubectl.js';
import { logger } from '../../src/log/index.js';

/** Holds back creates under /registry/clusterroles/ until released. */
class GatedStore extends DelegatingStore {
  private release!: () => void;
  private gate = new Promise<void>((r) => { this.release = r; });
  open(): void { this.release(); }
  override async create(key: string, value: Buffer): Promise<number> {
    if (key.startsWith('/registry/clusterroles/')) await this.gate;
    return super.create(key, value);
  }
}

const freePort = () => new Promise<number>((resolve) => {
  const s = createServer().listen(0, '127.0.0.1', () => { const { port } = s.address() as { port: number }; s.close(() => resolve(port)); });
});

t.test('poststarthook/rbac/bootstrap-roles fails until the policy is reconciled', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'capstan-readyz-'));
  const pki = ensureClusterPKI(dir, ['127.0.0.1'], '10.96.0.0/12');
  const store = new GatedStore(await openStore(`sqlite://${join(dir, 'state.db')}`));
  const port = await freePort();
  const server = new APIServer({
    store, port, bindAddress: '127.0.0.1', log: logger('apiserver', {}, () => undefined),
    tls: { certPem: pki.serving.certPem, keyPem: pki.serving.keyPem, caPem: pki.ca.certPem },
  });
  t.teardown(async () => { await server.stop().catch(() => undefined); await store.close(); rmSync(dir, { recursive: true, force: true }); });
  const started = server.start();
  const c = new APIClient(port, { ca: pki.ca.certPem, cert: pki.admin.certPem, key: pki.admin.keyPem });
  t.teardown(() => c.closeAll());
  let seen = { status: 0, text: '' };
  await eventually(async () => {
    try { seen = await c.get('/readyz?verbose', { accept: '*/*' }); } catch { return false; }
    return seen.status !== 0;
  }, 30_000, 'the server answering');
  t.equal(seen.status, 500, 'not ready while the bootstrap policy waits');
  t.match(seen.text, /\[-\]poststarthook\/rbac\/bootstrap-roles failed: reason withheld\n/);
  t.match(seen.text, /\[\+\]etcd ok\n/);
  t.equal((await c.get('/healthz/poststarthook/rbac/bootstrap-roles', { accept: '*/*' })).status, 500, 'also on /healthz');
  store.open();
  await started;
  const ready = await c.get('/readyz?verbose', { accept: '*/*' });
  t.equal(ready.status, 200);
  t.match(ready.text, /\[\+\]poststarthook\/rbac\/bootstrap-roles ok\n/);
});
