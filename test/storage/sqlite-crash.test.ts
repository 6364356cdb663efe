// A write whose promise resolved must survive SIGKILL, and a killed write must leave no trace.
// A child process creates keys in a loop (several in flight, so group commits hold more than
// one write) and prints each key once its create resolved; we kill it mid-stream and reopen.
import t from 'tap';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { openStore } from '../../src/storage/index.js';

const storeModule = pathToFileURL(join(import.meta.dirname, '../../src/storage/index.js')).href;

const CHILD = `
import { openStore } from ${JSON.stringify(storeModule)};
const store = await openStore('sqlite://' + process.argv[1]);
const value = Buffer.alloc(1024, 'x');
let next = 0;
async function writer() {
  for (;;) {
    const key = '/registry/cm/ns/k' + String(next++).padStart(7, '0');
    await store.create(key, value);
    process.stdout.write(key + '\\n');
  }
}
for (let i = 0; i < 4; i++) writer();
`;

t.test('acknowledged creates survive SIGKILL; nothing is half-written', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'capstan-crash-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'state.db');
  const child = spawn(process.execPath, ['--input-type=module', '-e', CHILD, file], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  t.teardown(() => { if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL'); });
  const acked: string[] = [];
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
  const lines = createInterface({ input: child.stdout });
  lines.on('line', (key) => {
    acked.push(key);
    if (acked.length === 2000) child.kill('SIGKILL');
  });
  t.equal(await exited, 'SIGKILL', 'the child was killed mid-stream');

  const store = await openStore(`sqlite://${file}`);
  t.teardown(() => store.close());
  const { items, revision } = await store.list('/registry/cm/');
  const present = new Set(items.map((kv) => kv.key));
  const missing = acked.filter((key) => !present.has(key));
  t.same(missing, [], `all ${acked.length} acknowledged keys are present`);
  t.ok(items.length >= acked.length, `${items.length - acked.length} unacknowledged writes also landed`);
  t.equal(revision, items.length, 'one revision per stored create: no gaps, no extra rows');
  t.ok(items.every((kv) => kv.value.length === 1024 && kv.value.every((c) => c === 0x78)), 'every value is whole');
  t.equal(await store.create('/registry/cm/ns/after', Buffer.from('ok')), revision + 1, 'writes continue after the crash');
});
