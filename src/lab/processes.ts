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

export { alive, signal, startTime, terminate } from '../util/index.js';

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
