// The node's own figures for /stats/summary, from the kernel: CPU time from /proc/stat,
// memory from /proc/meminfo (working set as cAdvisor defines it: usage less inactive file
// pages), the kubelet root's filesystem from statfs.
import { readFile, statfs } from 'node:fs/promises';
import type { CPUStats, FsStats, MemoryStats } from '../../api/stats/summary.js';

/** USER_HZ: /proc/stat counts in clock ticks of 1/100 s on Linux. */
const TICK_NS = 10_000_000;

/** Busy CPU time of all cores in core-nanoseconds (user, nice, system, irq, softirq, steal). */
export function parseProcStat(text: string): number {
  const line = text.split('\n').find((l) => /^cpu\s/.test(l));
  if (!line) throw new Error('/proc/stat has no cpu line');
  const f = line.trim().split(/\s+/).slice(1).map(Number);
  const [user, nice, system, , , irq, softirq, steal] = f;
  return (user + nice + system + (irq ?? 0) + (softirq ?? 0) + (steal ?? 0)) * TICK_NS;
}

/** Bytes per /proc/meminfo field. */
export function parseMeminfo(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const l of text.split('\n')) {
    const m = /^([^:]+):\s+(\d+)(?:\s+kB)?/.exec(l);
    if (m) out.set(m[1], Number(m[2]) * (l.includes('kB') ? 1024 : 1));
  }
  return out;
}

export function memoryFrom(info: Map<string, number>, time: string): MemoryStats {
  const total = info.get('MemTotal') ?? 0;
  const usage = total - (info.get('MemFree') ?? 0);
  const workingSet = Math.max(0, usage - (info.get('Inactive(file)') ?? 0));
  return { time, availableBytes: Math.max(0, total - workingSet), usageBytes: usage, workingSetBytes: workingSet };
}

export class NodeStatsReader {
  private last?: { ns: number; at: number };

  constructor(private rootDir: string, private procDir = '/proc') {}

  async cpu(now: Date): Promise<CPUStats> {
    const used = parseProcStat(await readFile(`${this.procDir}/stat`, 'utf8'));
    const at = now.getTime();
    const prev = this.last;
    this.last = { ns: used, at };
    const rate = prev && at > prev.at ? Math.round((used - prev.ns) / ((at - prev.at) / 1000)) : undefined;
    return { time: now.toISOString(), usageCoreNanoSeconds: used, ...(rate !== undefined ? { usageNanoCores: rate } : {}) };
  }

  async memory(now: Date): Promise<MemoryStats> {
    return memoryFrom(parseMeminfo(await readFile(`${this.procDir}/meminfo`, 'utf8')), now.toISOString());
  }

  async fs(now: Date): Promise<FsStats> {
    const s = await statfs(this.rootDir);
    const capacity = s.blocks * s.bsize;
    const available = s.bavail * s.bsize;
    return {
      time: now.toISOString(), capacityBytes: capacity, availableBytes: available, usedBytes: capacity - s.bfree * s.bsize,
      inodes: s.files, inodesFree: s.ffree, inodesUsed: s.files - s.ffree,
    };
  }

  /** Boot time, for the node's startTime. */
  async bootTime(): Promise<string> {
    const line = (await readFile(`${this.procDir}/stat`, 'utf8')).split('\n').find((l) => l.startsWith('btime '));
    return new Date(Number(line?.split(/\s+/)[1] ?? 0) * 1000).toISOString();
  }
}
