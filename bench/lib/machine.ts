// The machine and the versions a run measured, for results.json.
import { execFileSync } from 'node:child_process';
import { cpus, loadavg, release, totalmem } from 'node:os';
import type { Machine, Versions } from './schema.js';
import { repoRoot } from './report.js';

export function machine(loadAtStart: number[]): Machine {
  const c = cpus();
  return { cpus: c.length, model: c[0]?.model.trim() ?? 'unknown', kernel: release(), memoryBytes: totalmem(), loadAverage: { start: loadAtStart, end: loadavg() } };
}

function firstLine(cmd: string, args: string[], cwd?: string): string | null {
  try {
    return execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 10_000 }).split('\n')[0]!.trim() || null;
  } catch {
    return null;
  }
}

export function versions(): Versions {
  const rev = firstLine('git', ['rev-parse', 'HEAD'], repoRoot());
  const dirty = rev && firstLine('git', ['status', '--porcelain', '--untracked-files=no'], repoRoot());
  const containerd = firstLine('containerd', ['--version']);
  const nft = firstLine('nft', ['--version']);
  return {
    capstan: rev ? `${rev}${dirty ? '-dirty' : ''}` : null,
    node: process.version,
    containerd: containerd?.match(/v?\d+\.\d+\.\d+\S*/)?.[0] ?? containerd,
    nft: nft?.match(/v?\d+\.\d+\.\d+\S*/)?.[0] ?? nft,
  };
}
