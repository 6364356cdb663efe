// Runs `capstan hollow-nodes` against a test API server as a user would, killed in teardown,
// and waits for a line of its output that says it is up.
import { spawn, type ChildProcess } from 'node:child_process';
import { capstanBin, type Teardownable } from './apiserver-process.js';
import { eventually } from './kubectl.js';

export async function startHollowNodesProcess(t: Teardownable, args: string[], ready: RegExp): Promise<{ child: ChildProcess; output(): string; match: RegExpExecArray }> {
  const child = spawn(process.execPath, [capstanBin, 'hollow-nodes', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  t.teardown(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => { out += d.toString(); });
  child.stderr!.on('data', (d: Buffer) => { out += d.toString(); });
  await eventually(() => ready.test(out), 30_000, 'hollow-nodes to start').catch((e: Error) => { throw new Error(`${e.message}: ${out}`); });
  return { child, output: () => out, match: ready.exec(out)! };
}
