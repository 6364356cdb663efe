// The shims (and the containers under them) of one containerd instance, found by the pid
// files in its own state dir — never by process name, so other instances and the host's
// containerd are left alone.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parentPid, processArgs, waitGone } from '../../util/index.js';

export interface TaskProcess {
  namespace: string;
  id: string;
  /** containerd-shim-runc-v2 of this task (several tasks of one pod share a shim). */
  shimPid?: number;
  /** The task's init process (the container's PID 1). */
  initPid?: number;
}

function readPid(file: string): number | undefined {
  try {
    const n = Number.parseInt(readFileSync(file, 'utf8').trim(), 10);
    return Number.isInteger(n) && n > 1 ? n : undefined;
  } catch { // no pid file (shim never started, or cleaned up): no shim
    return undefined;
  }
}

function subdirs(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
  } catch { // the state dir does not exist yet: nothing to adopt
    return [];
  }
}

/** Tasks recorded under `<state>/io.containerd.runtime.v2.task/<namespace>/<id>/`. */
export function listTasks(stateDir: string): TaskProcess[] {
  const base = join(stateDir, 'io.containerd.runtime.v2.task');
  return subdirs(base).flatMap((ns) => subdirs(join(base, ns)).map((id) => ({
    namespace: ns,
    id,
    shimPid: readPid(join(base, ns, id, 'shim.pid')),
    initPid: readPid(join(base, ns, id, 'init.pid')),
  })));
}

/** A live shim started by the containerd serving `socket` (its -address argument). */
export function isShimOf(pid: number, socket: string): boolean {
  const args = processArgs(pid);
  if (!args || !args[0]?.includes('containerd-shim')) return false;
  const i = args.indexOf('-address');
  return i >= 0 && args[i + 1] === socket;
}

/**
 * SIGKILLs the containers and then the shims of the instance whose state dir and socket
 * are given. A pid counts only if it is still that instance's shim, or a child of one
 * (so a recycled pid is never hit). Resolves once they are gone (or after `waitMs`);
 * returns the pids it signalled.
 */
export async function killTasks(stateDir: string, socket: string, waitMs = 5000): Promise<number[]> {
  const tasks = listTasks(stateDir);
  const shims = new Set(tasks.map((t) => t.shimPid).filter((p): p is number => p !== undefined && isShimOf(p, socket)));
  const inits = tasks.map((t) => t.initPid).filter((p): p is number => p !== undefined && shims.has(parentPid(p) ?? -1));
  const signalled: number[] = [];
  for (const pid of [...inits, ...shims]) {
    try {
      process.kill(pid, 'SIGKILL');
      signalled.push(pid);
    } catch { /* already gone */ }
  }
  await waitGone(signalled, waitMs, 20);
  return signalled;
}
