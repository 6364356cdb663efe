// Runs `capstan up` as users do, in a temp data dir on free ports, for end-to-end tests.
// Always with --no-node: a real node (containerd, CNI) must not run in the host's network
// namespace during tests; kubelet e2e tests start theirs inside a namespace of their own.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { capstanBin, type Teardownable } from './apiserver-process.js';

export interface CapstanUp {
  dataDir: string;
  kubeconfig: string;
  port: number;
  pid: number;
  stdout(): string;
  /** What it logged (the last MB). */
  stderr(): string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const s = createServer();
    s.once('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => res(port));
    });
  });
}

/**
 * `netns`: run inside that network namespace (`/run/netns/<name>`), the only place a real node
 * (containerd, CNI) may run in tests; without it the node is left out (`--no-node`).
 */
export async function startCapstanUp(t: Teardownable, args: string[] = [], opts: { netns?: string; dataDir?: string } = {}): Promise<CapstanUp> {
  // A data dir the caller gives (a mount of its own) is the caller's to remove.
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'capstan-up-'));
  const port = await freePort();
  // A node's teardown removes its cgroup root: nodes of tests running side by side must not share one.
  const nodeArgs = !opts.netns ? (args.includes('--no-node') ? [] : ['--no-node'])
    : args.includes('--cgroup-root') ? [] : ['--cgroup-root', `/capstan-test-${randomBytes(4).toString('hex')}`];
  const upArgs = [capstanBin, 'up', '--data-dir', dataDir, '--port', String(port), ...nodeArgs, ...args];
  // nsenter execs the command in place, so the child's PID is capstan's.
  const child: ChildProcess = opts.netns
    ? spawn('nsenter', [`--net=/run/netns/${opts.netns}`, process.execPath, ...upArgs], { stdio: ['ignore', 'pipe', 'pipe'] })
    : spawn(process.execPath, upArgs, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '', err = '';
  child.stdout!.on('data', (d: Buffer) => { out += d.toString(); });
  child.stderr!.on('data', (d: Buffer) => { err = (err + d.toString()).slice(-(1 << 20)); });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
      await exited;
      clearTimeout(timer);
    }
    if (!opts.dataDir) rmSync(dataDir, { recursive: true, force: true });
  };
  t.teardown(stop);
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`capstan up not ready in 90 s:\n${err.slice(-8000)}`)), 90_000);
    const check = () => { if (out.includes('capstan is ready')) { clearTimeout(timer); resolve(); } };
    child.stdout!.on('data', check);
    child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`capstan up exited with ${code}:\n${err.slice(-8000)}`)); });
  });
  return { dataDir, kubeconfig: join(dataDir, 'admin.kubeconfig'), port, pid: child.pid!, stdout: () => out, stderr: () => err, stop };
}
