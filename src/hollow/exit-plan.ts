// How long a hollow container "runs" and what it exits with, read from its command the way a
// shell would run it, so Jobs finish on hollow nodes without running anything:
//   sh -c 'sleep 5; exit 3'  → exits 3 after 5 s      sleep 2   → exits 0 after 2 s
//   sh -c 'echo hi'          → exits 0 at once         true / false → exits 0 / 1 at once
// A script's `sleep N` steps add up (N may be fractional, with an s/m/h suffix); its first
// `exit C` ends it; `false` as a step exits 1. A container without a command, or with a
// command not read this way (a server, `sleep infinity`), runs until the pod is deleted.
import type { Container } from 'kubernetes-types/core/v1.js';

export interface ExitPlan {
  afterMs: number;
  exitCode: number;
}

const shells = new Set(['sh', 'bash', 'ash', 'dash', '/bin/sh', '/bin/bash', '/bin/ash', '/bin/dash', '/usr/bin/sh', '/usr/bin/bash']);
const units: Record<string, number> = { '': 1000, s: 1000, m: 60_000, h: 3_600_000 };

function sleepMs(arg: string | undefined): number | undefined {
  const m = /^(\d+(?:\.\d+)?)([smh]?)$/.exec(arg ?? '');
  return m ? Number(m[1]) * units[m[2]] : undefined;
}

/** The plan of a `;`/`&&`/newline-separated script, or undefined when a step would not end. */
function scriptPlan(script: string): ExitPlan | undefined {
  let afterMs = 0;
  for (const step of script.split(/;|&&|\n/).map((s) => s.trim()).filter(Boolean)) {
    const [cmd, arg] = step.split(/\s+/);
    if (cmd === 'sleep') {
      const ms = sleepMs(arg);
      if (ms === undefined) return undefined;
      afterMs += ms;
    } else if (cmd === 'exit') return { afterMs, exitCode: arg === undefined ? 0 : Number(arg) & 255 };
    else if (cmd === 'false') return { afterMs, exitCode: 1 };
    else if (['while', 'until', 'for', 'tail', 'nc', 'httpd'].includes(cmd)) return undefined;
  }
  return { afterMs, exitCode: 0 };
}

/** The container's exit plan, or undefined when it runs until deleted. */
export function exitPlan(c: Container): ExitPlan | undefined {
  const argv = [...(c.command ?? []), ...(c.args ?? [])];
  if (!argv.length) return undefined;
  const [cmd, ...rest] = argv;
  if (shells.has(cmd) && rest[0] === '-c' && rest[1] !== undefined) return scriptPlan(rest[1]);
  if (cmd === 'sleep' || cmd === '/bin/sleep') {
    const ms = sleepMs(rest[0]);
    return ms === undefined ? undefined : { afterMs: ms, exitCode: 0 };
  }
  if (cmd === 'true' || cmd === '/bin/true') return { afterMs: 0, exitCode: 0 };
  if (cmd === 'false' || cmd === '/bin/false') return { afterMs: 0, exitCode: 1 };
  return undefined;
}
