// What `capstan up` leaves on disk holds the cluster's secrets: the store, private keys, the
// token file and kubeconfigs are the owner's alone, also after a restart over files an older
// version (or a copy) left readable. The components' unauthenticated health and metrics
// ports listen on loopback unless told otherwise.
import t from 'tap';
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCapstanUp } from '../helpers/capstan-up.js';
import { capstanBin } from '../helpers/apiserver-process.js';

const mode = (p: string) => (statSync(p).mode & 0o777).toString(8);

function secretFiles(dir: string): string[] {
  const files = ['state.db', 'tokens.csv', ...readdirSync(dir).filter((f) => f.endsWith('.kubeconfig') || /^state\.db-(wal|shm)$/.test(f))];
  return [...new Set(files)].map((f) => join(dir, f)).concat(readdirSync(join(dir, 'pki')).filter((f) => f.endsWith('.key')).map((f) => join(dir, 'pki', f)));
}

t.test('state.db, its WAL, keys, tokens and kubeconfigs are 0600', async (t) => {
  const first = await startCapstanUp(t);
  const files = secretFiles(first.dataDir);
  t.ok(files.some((f) => f.endsWith('state.db-wal')), 'the WAL is there too');
  t.ok(files.filter((f) => f.endsWith('.key')).length >= 4, 'CA, serving, admin and component keys');
  for (const f of files) t.equal(mode(f), '600', `${f.slice(first.dataDir.length + 1)} is 0600`);
  t.equal(mode(join(first.dataDir, 'pki')), '700', 'pki/ is 0700');
});

t.test('a restart tightens files left readable', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'capstan-modes-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const first = await startCapstanUp(t, [], { dataDir });
  await first.stop();
  for (const f of secretFiles(dataDir)) chmodSync(f, 0o644);
  await startCapstanUp(t, [], { dataDir });
  for (const f of secretFiles(dataDir)) t.equal(mode(f), '600', `${f.slice(dataDir.length + 1)} is 0600 again`);
});

/** The local address of the listening TCP socket on `port`, from /proc/net/tcp{,6}. */
function listenAddress(port: number): string | undefined {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(file, 'utf8').split('\n').slice(1)) {
      const [, local, , state] = line.trim().split(/\s+/);
      if (state === '0A' && local?.endsWith(`:${hexPort}`)) return local.split(':')[0];
    }
  }
  return undefined;
}

for (const component of ['controller-manager', 'scheduler']) {
  t.test(`${component}'s health and metrics port listens on loopback by default`, async (t) => {
    const up = await startCapstanUp(t);
    const child = spawn(process.execPath, [capstanBin, component, '--kubeconfig', join(up.dataDir, `${component}.kubeconfig`), '--secure-port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    t.teardown(async () => { if (child.exitCode === null && child.signalCode === null) { child.kill('SIGTERM'); await exited; } });
    child.stderr!.resume();
    let out = '';
    const port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${component} did not start`)), 30_000);
      child.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /healthz on :(\d+)/.exec(out);
        if (m) { clearTimeout(timer); resolve(Number(m[1])); }
      });
    });
    t.equal(listenAddress(port), '0100007F', 'bound to 127.0.0.1 only');
    const metrics = await fetch(`http://127.0.0.1:${port}/metrics`);
    t.equal(metrics.status, 200, '/metrics answers locally');
  });
}
