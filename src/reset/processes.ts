// The processes one data dir's node left behind, found in /proc and verified by what they
// run with — never by name alone: capstan commands and containerd whose arguments name a path
// in the dir, containerd shims whose -address is the dir's containerd socket, and the
// containers those shims started.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { basename, isAbsolute, resolve } from 'node:path';

export interface ProcessInfo {
  pid: number;
  ppid: number;
  args: string[];
  cwd: string;
}

export interface DataDirProcesses {
  /** `capstan up|node|…` run on this dir: stopped first, so they shut down in order. */
  capstan: ProcessInfo[];
  containerd: ProcessInfo[];
  shims: ProcessInfo[];
  /** Processes the shims started (pause and the pods' containers). */
  containers: ProcessInfo[];
}

function processInfo(pid: number): ProcessInfo | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (rest[0] === 'Z') return undefined; // a zombie holds nothing
    const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter((a, i, all) => a !== '' || i < all.length - 1);
    if (!args.length) return undefined; // a kernel thread
    let cwd = '/';
    try { cwd = readlinkSync(`/proc/${pid}/cwd`); } catch { /* gone meanwhile */ }
    return { pid, ppid: Number(rest[1]), args, cwd };
  } catch { // the process is gone
    return undefined;
  }
}

export function processTable(): ProcessInfo[] {
  return readdirSync('/proc').filter((e) => /^\d+$/.test(e)).map(Number).map(processInfo).filter((p): p is ProcessInfo => !!p);
}

const inside = (path: string, dir: string) => path === dir || path.startsWith(`${dir}/`);

/** The paths a process was started with: plain arguments and `--flag=value` values, made absolute against its cwd. */
function pathArgs(p: ProcessInfo): string[] {
  return p.args.slice(1).map((a) => (a.startsWith('-') && a.includes('=') ? a.slice(a.indexOf('=') + 1) : a))
    .filter((a) => a.includes('/') || a.startsWith('.'))
    .map((a) => (isAbsolute(a) ? a : resolve(p.cwd, a)));
}

const isCapstan = (p: ProcessInfo) => p.args.some((a) => /(^|\/)capstan(\.js)?$/.test(a));
const DEFAULT_DIRS: Record<string, string> = { up: '.capstan', node: '.capstan-node' };

/** A capstan command on this dir, also one started without --data-dir (the default is relative to its cwd). */
function capstanOn(p: ProcessInfo, dir: string): boolean {
  if (!isCapstan(p)) return false;
  if (pathArgs(p).some((a) => inside(a, dir))) return true;
  const i = p.args.findIndex((a) => /(^|\/)capstan(\.js)?$/.test(a));
  const command = p.args[i + 1];
  const flagged = p.args.some((a) => a === '--data-dir' || a.startsWith('--data-dir='));
  return !flagged && command !== undefined && command in DEFAULT_DIRS && resolve(p.cwd, DEFAULT_DIRS[command]!) === dir;
}

function ancestors(table: Map<number, ProcessInfo>, pid: number): Set<number> {
  const out = new Set<number>();
  for (let p = table.get(pid); p && !out.has(p.pid); p = table.get(p.ppid)) out.add(p.pid);
  return out;
}

/** The processes of the data dir `dir` (absolute), except this process and its ancestors. */
export function dataDirProcesses(dir: string, table = processTable()): DataDirProcesses {
  const byPid = new Map(table.map((p) => [p.pid, p]));
  const mine = ancestors(byPid, process.pid);
  const candidates = table.filter((p) => !mine.has(p.pid));
  const capstan = candidates.filter((p) => capstanOn(p, dir));
  const containerd = candidates.filter((p) => basename(p.args[0] ?? '') === 'containerd' && pathArgs(p).some((a) => inside(a, dir)));
  const shims = candidates.filter((p) => {
    if (!basename(p.args[0] ?? '').startsWith('containerd-shim')) return false;
    const i = p.args.indexOf('-address');
    return i >= 0 && inside(p.args[i + 1] ?? '', dir);
  });
  const shimPids = new Set(shims.map((s) => s.pid));
  const containers = candidates.filter((p) => shimPids.has(p.ppid));
  return { capstan, containerd, shims, containers };
}

/** Whether any capstan node component not of `dir` runs in this network namespace. */
export function otherNodeInThisNetns(dir: string, table = processTable()): ProcessInfo | undefined {
  const netns = (pid: number | 'self') => { try { return readlinkSync(`/proc/${pid}/ns/net`); } catch { return undefined; } }; // gone meanwhile
  const here = netns('self');
  const nodeCommands = new Set(['up', 'node', 'network-agent', 'proxy', 'kubelet', 'dns']);
  return table.find((p) => {
    if (!isCapstan(p) || p.pid === process.pid || capstanOn(p, dir)) return false;
    const i = p.args.findIndex((a) => /(^|\/)capstan(\.js)?$/.test(a));
    const command = p.args[i + 1] ?? '';
    if (!nodeCommands.has(command) || (command === 'up' && p.args.includes('--no-node'))) return false;
    return netns(p.pid) === here;
  });
}
