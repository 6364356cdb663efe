import t from 'tap';
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { openStore, SqliteStore, StoreError } from '../../src/storage/index.js';

const dir = mkdtempSync(join(tmpdir(), 'capstan-open-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

t.test('sqlite URLs: absolute and relative paths open the named file', async (t) => {
  const cases: Array<[string, string]> = [
    [`sqlite://${join(dir, 'abs.db')}`, join(dir, 'abs.db')],
    [`sqlite://${relative(process.cwd(), join(dir, 'rel.db'))}`, join(dir, 'rel.db')],
    [`sqlite://${join(dir, 'normal.db')}?synchronous=normal`, join(dir, 'normal.db')],
  ];
  for (const [url, file] of cases) {
    const store = await openStore(url);
    t.ok(store instanceof SqliteStore, url);
    await store.create('/registry/x', Buffer.from('1'));
    await store.close();
    t.ok(existsSync(file), `${url} wrote ${file}`);
  }
});

t.test('bad URLs fail with StoreError', async (t) => {
  for (const url of ['mysql://localhost/db', 'sqlite://', `sqlite://${join(dir, 'x.db')}?synchronous=off`, 'etcd://', '/plain/path.db']) {
    await t.rejects(openStore(url), StoreError, url);
  }
});

t.test('a SQLite file is opened by one store at a time', async (t) => {
  const url = `sqlite://${join(dir, 'single.db')}`;
  const first = await openStore(url);
  t.teardown(() => first.close());
  await first.create('/registry/x', Buffer.from('1'));
  await t.rejects(openStore(url), StoreError, 'a second opener is refused while the first holds the file');
  await first.close();
  const again = await openStore(url);
  t.equal((await again.get('/registry/x'))?.value.toString(), '1', 'after close it opens again');
  await again.close();
});
