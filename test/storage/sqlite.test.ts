import t from 'tap';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore, type Store } from '../../src/storage/index.js';
import { storageSuite } from './suite.js';

const dir = mkdtempSync(join(tmpdir(), 'capstan-sqlite-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

storageSuite(t, async () => openStore(`sqlite://${join(dir, `store-${++n}.db`)}`));

t.test('on a full disk writes fail and checkHealth fails; with space again both recover', async (t) => {
  const mnt = mkdtempSync(join(tmpdir(), 'capstan-sqlite-full-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', mnt]);
  let store: Store | undefined;
  t.teardown(async () => {
    await store?.close().catch(() => undefined);
    if (spawnSync('umount', [mnt]).status !== 0) spawnSync('umount', ['-l', mnt]);
    rmdirSync(mnt);
  });
  store = await openStore(`sqlite://${join(mnt, 'state.db')}`);
  await store.create('/registry/cm/ns/before', Buffer.from('x'));
  await store.checkHealth(2_000);
  spawnSync('dd', ['if=/dev/zero', `of=${join(mnt, 'filler')}`, 'bs=4k'], { stdio: 'ignore' });
  const big = Buffer.alloc(256 * 1024, 'y');
  let failed: unknown;
  for (let i = 0; i < 64 && !failed; i++) failed = await store.create(`/registry/cm/ns/full-${i}`, big).then(() => undefined, (e) => e);
  t.ok(failed, `a write fails on the full disk: ${String(failed)}`);
  await t.rejects(store.checkHealth(2_000), 'unhealthy');
  rmSync(join(mnt, 'filler'));
  const rev = await store.create('/registry/cm/ns/after', big);
  t.ok(rev > 0, 'a write commits once there is space');
  await store.checkHealth(2_000);
  t.pass('healthy again');
  t.equal((await store.get('/registry/cm/ns/after'))?.modRevision, rev, 'and reads back');
});

t.test('while a store is open, another process cannot open its file; after close it can', async (t) => {
  const file = join(dir, 'owned.db');
  const storeModule = join(import.meta.dirname, '../../src/storage/index.js');
  const openInChild = () => spawnSync(process.execPath, ['--input-type=module', '-e',
    `const { openStore } = await import(${JSON.stringify(storeModule)}); const s = await openStore('sqlite://' + process.argv[1]); await s.create('/registry/cm/ns/child', Buffer.from('c')); await s.close();`, file], { encoding: 'utf8' });
  const store = await openStore(`sqlite://${file}`);
  await store.create('/registry/cm/ns/parent', Buffer.from('p'));
  const refused = openInChild();
  t.not(refused.status, 0, 'the second process fails');
  t.match(refused.stderr, /is in use by another process/);
  t.equal((await store.list('/registry/cm/')).items.length, 1, 'and wrote nothing');
  await store.close();
  t.equal(openInChild().status, 0, 'once closed, another process opens it');
  const reopened = await openStore(`sqlite://${file}`);
  t.teardown(() => reopened.close());
  t.same((await reopened.list('/registry/cm/')).items.map((kv) => kv.key), ['/registry/cm/ns/child', '/registry/cm/ns/parent']);
});
