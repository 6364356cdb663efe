// Waiting for a lab process by its progress rather than by a fixed deadline: on a loaded
// machine (load 30 on 2 cores) the control plane takes minutes to start, yet a process that
// has hung (no log line, no CPU) should be given up on within a minute, not after the longest
// start ever seen. So the wait goes on while the process writes to its log or uses CPU, and
// ends with an error naming what it waited for, for how long, and what the process did last.
import { statSync } from 'node:fs';
import { cpuSeconds } from '../util/index.js';
import { tail } from './processes.js';

export interface ProgressWaitOptions {
  /** What is awaited, for the error ("the control plane to log \"capstan is ready\""). */
  what: string;
  pid: number;
  log: string;
  /** true: done; a string: failed for that reason; false: not yet. */
  check: () => boolean | string;
  /** Give up after this long with neither a new log byte nor `minCpuSeconds` of CPU. */
  stallMs: number;
  /** Give up after this long however busy the process is (a loop that never gets there). */
  limitMs: number;
  /** CPU the process must use to count as progress (a hung process still wakes for timers). */
  minCpuSeconds?: number;
  pollMs?: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function logSize(file: string): number {
  try {
    return statSync(file).size;
  } catch { // not written yet
    return 0;
  }
}

export async function waitWhileProgressing(o: ProgressWaitOptions): Promise<void> {
  const started = Date.now();
  const minCpu = o.minCpuSeconds ?? 0.5;
  let lastProgress = started, size = logSize(o.log), cpu = cpuSeconds(o.pid) ?? 0;
  const cpu0 = cpu;
  for (;;) {
    const r = o.check();
    if (r === true) return;
    if (typeof r === 'string') throw new Error(r);
    const now = Date.now();
    const newSize = logSize(o.log), newCpu = cpuSeconds(o.pid) ?? cpu;
    if (newSize !== size || newCpu - cpu >= minCpu) { lastProgress = now; size = newSize; cpu = newCpu; }
    const stalled = now - lastProgress > o.stallMs, over = now - started > o.limitMs;
    if (stalled || over) {
      const why = stalled
        ? `it made no progress (no log line, under ${minCpu} s of CPU) for ${Math.round((now - lastProgress) / 1000)} s`
        : `it was still busy after the limit of ${Math.round(o.limitMs / 1000)} s`;
      throw new Error(`gave up waiting for ${o.what} after ${Math.round((now - started) / 1000)} s: ${why}; ` +
        `pid ${o.pid} used ${((cpuSeconds(o.pid) ?? cpu) - cpu0).toFixed(1)} s of CPU meanwhile. The end of ${o.log}:\n${tail(o.log, 15)}`);
    }
    await sleep(o.pollMs ?? 500);
  }
}
