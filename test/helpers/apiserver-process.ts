// Runs `capstan apiserver` as a real child process, the way users run it, for end-to-end
// tests: kubectl against it, SIGKILL and restart. Credentials are created in the data dir
// before the process starts, so the test and the server share one CA.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureClusterPKI, writeAdminKubeconfig, type ClusterPKI } from '../../src/cli/pki-files.js';
import { cpuSeconds } from '../../src/util/index.js';

const repoRoot = resolve(fileURLToPath(import.meta.url), '../../../..');
export const capstanBin = join(repoRoot, 'bin', 'capstan.js');

export interface Teardownable {
  teardown(fn: () => unknown): void;
}

export interface APIServerProcess {
  dataDir: string;
  kubeconfig: string;
  pki: ClusterPKI;
  url: string;
  port: number;
  pid: number;
  /** Sends SIGKILL and waits for the process to be gone. */
  kill(): Promise<void>;
  /** Starts it again on the same port, data dir and store. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

export interface StartOptions {
  /** Store URL; default a SQLite file in the data dir. */
  store?: string;
  dataDir?: string;
  port?: number;
  /** More `capstan apiserver` flags (`--authorization-mode AlwaysAllow`). */
  args?: string[];
  /** Another build's `bin/capstan.js` (a bench comparing two checkouts); default this one's. */
  bin?: string;
}

async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((res, rej) => {
    const s = createServer();
    s.once('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => res(port));
    });
  });
}

function launch(dataDir: string, port: number, store: string, tokenFile: string, args: string[] = [], bin = capstanBin): Promise<ChildProcess> {
  const child = spawn(process.execPath, [...(process.env.CAPSTAN_PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.CAPSTAN_PROF] : []), bin, 'apiserver', '--data-dir', dataDir, '--secure-port', String(port), '--store', store, '--token-auth-file', tokenFile, '--disable-admission-plugins', 'ServiceAccount', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr!.on('data', (d: Buffer) => { err = (err + d.toString()).slice(-4000); });
  return new Promise((res, rej) => {
    // Not a fixed deadline (a start takes minutes at load 40): given up on after 60 s with
    // neither output nor 0.5 s of CPU, or after 10 minutes in all.
    const started = Date.now();
    let cpu = 0, heard = false;
    const check = () => {
      const now = cpuSeconds(child.pid ?? -1) ?? cpu;
      if ((heard || now - cpu >= 0.5) && Date.now() - started < 600_000) { heard = false; cpu = now; timer = setTimeout(check, 60_000); return; }
      child.kill('SIGKILL');
      rej(new Error(`apiserver did not become ready (${Math.round((Date.now() - started) / 1000)} s; no progress for 60 s or over 10 min):\n${err}`));
    };
    let timer = setTimeout(check, 60_000);
    child.stderr!.on('data', () => { heard = true; });
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      heard = true;
      out += d.toString();
      if (out.includes('ready on')) { clearTimeout(timer); res(child); }
    });
    child.once('exit', (code) => { clearTimeout(timer); rej(new Error(`apiserver exited with ${code}:\n${err}`)); });
  });
}

function waitExit(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((r) => child.once('exit', () => r()));
}

export async function startAPIServerProcess(t: Teardownable, opts: StartOptions = {}): Promise<APIServerProcess> {
  const ownDir = !opts.dataDir;
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'capstan-apiserver-'));
  const port = opts.port ?? await freePort();
  const pki = ensureClusterPKI(dataDir, ['127.0.0.1'], '10.96.0.0/12');
  const store = opts.store ?? `sqlite://${join(dataDir, 'state.db')}`;
  const url = `https://127.0.0.1:${port}`;
  const kubeconfig = writeAdminKubeconfig(dataDir, pki, url);
  let child = await launch(dataDir, port, store, pki.tokenFile, opts.args, opts.bin);
  const proc: APIServerProcess = {
    dataDir, kubeconfig, pki, url, port,
    get pid() { return child.pid!; },
    async kill() { child.kill('SIGKILL'); await waitExit(child); },
    async restart() { child = await launch(dataDir, port, store, pki.tokenFile, opts.args, opts.bin); },
    async stop() {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await waitExit(child);
      clearTimeout(timer);
      if (ownDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
  t.teardown(() => proc.stop());
  return proc;
}
