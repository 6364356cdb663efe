// Processes by PID, as capstan stops what it started (lab components, containerd, shims,
// the network agent) and what a crashed run left behind (`capstan reset`): read /proc,
// signal, wait until gone, escalate SIGTERM → SIGKILL. Linux only.
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** The /proc/<pid>/stat fields after "(comm)": [state, ppid, pgrp, …]; undefined when gone.
 *  comm may hold spaces and parentheses, hence the split at the last ')'. */
export function procStat(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch { // no /proc entry: the process is gone
    return undefined;
  }
}

/**
 * CPU seconds (user + system) the process has used; with `reapedChildren`, also its
 * descendants that exited and were waited for. Undefined when it is gone. (USER_HZ is 100.)
 */
export function cpuSeconds(pid: number, reapedChildren = false): number | undefined {
  const f = procStat(pid)?.map(Number);
  if (!f) return undefined;
  return (f[11]! + f[12]! + (reapedChildren ? f[13]! + f[14]! : 0)) / 100;
}

/** The command line; undefined when the process is gone (a zombie's is empty). */
export function processArgs(pid: number): string[] | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  } catch { // no /proc entry: the process is gone
    return undefined;
  }
}

/** Alive and not a zombie: an exited process its parent has not reaped holds nothing. */
export function alive(pid: number): boolean {
  const s = procStat(pid);
  return s !== undefined && s[0] !== 'Z';
}

/** The parent's PID; undefined when the process is gone. */
export function parentPid(pid: number): number | undefined {
  const s = procStat(pid);
  return s ? Number(s[1]) : undefined;
}

/** The start time (clock ticks since boot), to tell a process from a later one that got its PID. */
export function startTime(pid: number): string | null {
  return procStat(pid)?.[19] ?? null;
}

/** Sends `sig`, best effort: a process already gone (ESRCH) or not ours to signal is nothing
 *  to do here — callers check `alive` afterwards. (Throwing on EPERM broke the node's DNS path
 *  in the e2e test; the copies this replaced never threw either.) */
export function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch { /* see above */ }
}

/** Waits until none of `pids` is alive, polling; false when some still are after `ms`. */
export async function waitGone(pids: number[], ms: number, pollMs = 50): Promise<boolean> {
  for (const until = Date.now() + ms; pids.some(alive);) {
    if (Date.now() >= until) return false;
    await new Promise((r) => setTimeout(r, pollMs));
  }
  return true;
}

/**
 * Stops processes by PID: SIGTERM to all, up to `graceMs` for them to exit, then SIGKILL to
 * the rest and up to `killWaitMs` more. Resolves true when all are gone. The caller must have
 * checked that each PID is still the process it means (see `startTime`, `processArgs`).
 */
export async function terminate(pids: number[], graceMs: number, killWaitMs = 5000): Promise<boolean> {
  for (const p of pids) signal(p, 'SIGTERM');
  if (await waitGone(pids, graceMs)) return true;
  return killNow(pids.filter(alive), killWaitMs);
}

/** SIGKILL now and wait up to `waitMs` for them to be gone. */
export async function killNow(pids: number[], waitMs = 5000): Promise<boolean> {
  for (const p of pids) signal(p, 'SIGKILL');
  return waitGone(pids, waitMs);
}

const exited = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null;

/** Waits for a child's exit event; false after `ms` without one. */
export function waitExit(child: ChildProcess, ms: number): Promise<boolean> {
  if (exited(child)) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => { child.off('exit', onExit); resolve(false); }, ms);
    const onExit = () => { clearTimeout(timer); resolve(true); };
    child.once('exit', onExit);
  });
}

/** `terminate` for a child this process spawned: waits on its exit event rather than /proc. */
export async function stopChild(child: ChildProcess, graceMs: number, killWaitMs = 5000): Promise<boolean> {
  if (exited(child)) return true;
  child.kill('SIGTERM');
  if (await waitExit(child, graceMs)) return true;
  child.kill('SIGKILL');
  return waitExit(child, killWaitMs);
}
