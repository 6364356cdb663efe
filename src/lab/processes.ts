// Lab components run detached inside their namespaces, logs under <lab>/logs, so `lab up`
// can exit and `lab down` (any process, any time later) stops them by PID.
import { spawn, execFileSync } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const capstanBin = fileURLToPath(new URL('../../../bin/capstan.js', import.meta.url));

/**
 * Starts `node bin/capstan.js <args>` in `netns`; nsenter execs in place, so the PID is capstan's.
 * `inherit` are descriptors the child gets as fd 3, 4, …
 */
export function spawnInNetns(netns: string, args: string[], log: string, inherit: number[] = []): number {
  const fd = openSync(log, 'a');
  try {
    const child = spawn('nsenter', [`--net=/run/netns/${netns}`, process.execPath, capstanBin, ...args], { detached: true, stdio: ['ignore', fd, fd, ...inherit] });
    child.on('error', () => undefined);
    child.unref();
    if (!child.pid) throw new Error(`cannot start ${args[0]} in ${netns}`);
    return child.pid;
  } finally {
    closeSync(fd);
  }
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch { // ESRCH: no such process // ESRCH: no such process
    return false;
  }
  // A zombie (exited, not yet reaped by a parent that is gone or busy) counts as gone.
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch { // reaped meanwhile
    return false;
  }
}

/** The process's start time, to tell it from a later process that got the same PID. */
export function startTime(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch { // gone: no start time
    return null;
  }
}

export function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch { /* gone */ }
}

/** SIGTERM, wait up to graceMs for all, then SIGKILL the rest and wait a little more. */
export async function terminate(pids: number[], graceMs: number): Promise<void> {
  for (const p of pids) signal(p, 'SIGTERM');
  const wait = async (ms: number) => {
    for (const until = Date.now() + ms; Date.now() < until && pids.some(alive);) await new Promise((r) => setTimeout(r, 100));
  };
  await wait(graceMs);
  for (const p of pids.filter(alive)) signal(p, 'SIGKILL');
  await wait(5000);
}

export function tail(file: string, lines = 30): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch { // no log written: nothing to show
    return '';
  }
}

export function kubectl(kubeconfig: string, args: string[]): string {
  return execFileSync('kubectl', ['--kubeconfig', kubeconfig, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 30_000 });
}
