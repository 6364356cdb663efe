// Runs the real kubectl (/usr/bin/kubectl, the version dispatcher) against a capstan API
// server, with a discovery cache of its own so servers on reused ports never share one.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Teardownable } from './apiserver-process.js';

export const KUBECTL = process.env.CAPSTAN_KUBECTL ?? '/usr/bin/kubectl';

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

export type Kubectl = ((args: string[], input?: string) => Promise<KubectlResult>) & {
  /** Runs and fails (throws with stderr) unless kubectl exits 0. */
  ok(args: string[], input?: string): Promise<string>;
  /** Starts a long-running kubectl (get -w); returns its output so far and a stop function. */
  background(args: string[]): { output: () => string; stop: () => Promise<void> };
};

/** `netns`: run kubectl inside that network namespace (for a cluster that listens there);
 *  `binary`: another kubectl than KUBECTL (one version of /usr/lib/google-cloud-sdk/bin/kubectl.1.NN). */
export function kubectlFor(t: Teardownable, kubeconfig: string, opts: { netns?: string; binary?: string } = {}): Kubectl {
  const bin = opts.binary ?? KUBECTL;
  const command = (args: string[]): [string, string[]] => opts.netns ? ['nsenter', [`--net=/run/netns/${opts.netns}`, bin, ...args]] : [bin, args];
  const cacheDir = mkdtempSync(join(tmpdir(), 'capstan-kubectl-cache-'));
  t.teardown(() => rmSync(cacheDir, { recursive: true, force: true }));
  const base = ['--kubeconfig', kubeconfig, '--cache-dir', cacheDir];
  const run = (args: string[], input?: string): Promise<KubectlResult> =>
    new Promise((resolve, reject) => {
      const [cmd, argv] = command([...base, ...args]);
      const child = spawn(cmd, argv, { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, KUBECONFIG: kubeconfig } });
      let stdout = '', stderr = '';
      child.stdout.on('data', (d: Buffer) => { stdout += d.toString(); });
      child.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
      child.once('error', reject);
      child.once('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
      child.stdin.end(input ?? '');
    });
  const fn = run as Kubectl;
  fn.ok = async (args, input) => {
    const r = await run(args, input);
    if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${r.code}): ${r.stderr}`);
    return r.stdout;
  };
  fn.background = (args) => {
    const [cmd, argv] = command([...base, ...args]);
    const child = spawn(cmd, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { out += d.toString(); });
    const closed = new Promise((r) => child.once('close', r));
    const stop = async () => {
      // A second stop (the teardown after the test's own) finds it gone, whether it exited or was killed.
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await closed;
    };
    t.teardown(stop);
    return { output: () => out, stop };
  };
  return fn;
}

/** Polls until `check` returns true (or throws after the timeout). */
export async function eventually(check: () => boolean | Promise<boolean>, timeoutMs = 15_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
