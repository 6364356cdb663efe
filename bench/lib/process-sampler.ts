// Another process's RSS and CPU, read from /proc/<pid> once a second over a window: what a
// benchmark reports for a component it runs as a child process.
import { readFileSync } from 'node:fs';

export interface ProcessWindow {
  /** RSS samples in bytes, one a second. */
  rss: number[];
  rssMean: number;
  rssMax: number;
  /** CPU seconds (user + system) per wall-clock second over the window. */
  cpuCores: number;
  seconds: number;
}

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

export class ProcessSampler {
  constructor(readonly pid: number) {}

  rssBytes(): number {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${this.pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : NaN;
  }

  cpuSeconds(): number {
    const stat = readFileSync(`/proc/${this.pid}/stat`, 'utf8');
    // Fields after the command name, which is in parentheses and may hold spaces.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / TICKS_PER_SECOND; // utime, stime
  }

  /** Starts sampling; end() stops and summarises. */
  start(): { end(): ProcessWindow } {
    const rss = [this.rssBytes()];
    const cpu0 = this.cpuSeconds(), t0 = Date.now();
    const timer = setInterval(() => { try { rss.push(this.rssBytes()); } catch { /* gone */ } }, 1000);
    return {
      end: () => {
        clearInterval(timer);
        rss.push(this.rssBytes());
        const seconds = (Date.now() - t0) / 1000;
        return { rss, rssMean: rss.reduce((a, b) => a + b, 0) / rss.length, rssMax: Math.max(...rss), cpuCores: (this.cpuSeconds() - cpu0) / seconds, seconds };
      },
    };
  }

  async window(ms: number): Promise<ProcessWindow> {
    const w = this.start();
    await new Promise((r) => setTimeout(r, ms));
    return w.end();
  }
}
