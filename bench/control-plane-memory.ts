// Memory of an idle control plane: `capstan up --no-node` (API server on SQLite,
// controller-manager and scheduler in one process) left alone once it is ready, its RSS
// sampled once a second and its CPU read over the window, beside an idle bare Node.js process
// (the runtime's own floor) in the same run. The aim: the whole control plane idle ≤ 150 MB.
// It listens on loopback only and advertises loopback.
// Usage: node dist/bench/control-plane-memory.js [--settle 30] [--window 60]
import { parseArgs } from 'node:util';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startComponent } from './lib/components.js';
import { ProcessSampler, type ProcessWindow } from './lib/process-sampler.js';
import { table, writeReport } from './lib/report.js';
import { defineSuite, Recorder, runIfMain, type Progress } from './lib/suite.js';

const options = { settle: { type: 'string', default: '30' }, window: { type: 'string', default: '60' } } as const;
interface MemoryParams { settle: number; window: number; [k: string]: number }

const AIM_MB = 150;
const MB = 1024 * 1024;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main(p: MemoryParams, progress: Progress) {
  const teardowns: (() => unknown)[] = [];
  const dataDir = mkdtempSync(join(tmpdir(), 'capstan-bench-up-'));
  teardowns.push(() => rmSync(dataDir, { recursive: true, force: true }));
  try {
    const loadStart = loadavg()[0]!.toFixed(1);
    progress('starting capstan up --no-node and a bare Node.js process');
    const up = await startComponent(['up', '--no-node', '--data-dir', dataDir, '--port', '0', '--bind-address', '127.0.0.1', '--advertise-address', '127.0.0.1'], 'capstan is ready', teardowns);
    const bare = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1 << 30)'], { stdio: 'ignore' });
    const bareExited = new Promise<void>((r) => bare.once('exit', () => r()));
    teardowns.push(async () => { bare.kill('SIGTERM'); await bareExited; });
    progress(`settling for ${p.settle} s`);
    await sleep(p.settle * 1000);
    progress(`sampling for ${p.window} s`);
    const upWindow = new ProcessSampler(up.pid!).start(), bareWindow = new ProcessSampler(bare.pid!).start();
    await sleep(p.window * 1000);
    const sides: [string, ProcessWindow][] = [['capstan up --no-node (API server, controller-manager, scheduler)', upWindow.end()], ['bare Node.js (setInterval only)', bareWindow.end()]];
    const [capstan, floor] = sides.map(([, w]) => w) as [ProcessWindow, ProcessWindow];
    const rows = sides.map(([name, w]) => [name, (w.rssMean / MB).toFixed(0), (w.rssMax / MB).toFixed(0), w.cpuCores.toFixed(3)]);
    const met = capstan.rssMax / MB <= AIM_MB ? 'met' : 'not met';
    const report = writeReport('control-plane-memory', 'Control plane memory, idle',
      `\`capstan up --no-node\` (SQLite, API server, controller-manager and scheduler in one process, on loopback) left idle ${p.settle} s after it said it was ready, then sampled once a second for ${p.window} s (RSS from /proc/<pid>/status, CPU as utime+stime over the window), beside a bare Node.js process idle over the same window. Load average ${loadStart} at the start, ${loadavg()[0]!.toFixed(1)} at the end.\n\n` +
      `${table(['process', 'RSS mean (MB)', 'RSS max (MB)', 'CPU (cores)'], rows)}\n\n` +
      `Aim: idle ≤ ${AIM_MB} MB: ${met} (max ${(capstan.rssMax / MB).toFixed(0)} MB; ${((capstan.rssMean - floor.rssMean) / MB).toFixed(0)} MB above Node.js's own floor).\n`);
    const rec = new Recorder();
    const a = rec.metric({ figure: 'idle RSS', system: 'capstan up --no-node', unit: 'bytes', samples: capstan.rss });
    const b = rec.metric({ figure: 'idle RSS', system: 'bare Node.js', baseline: true, unit: 'bytes', samples: floor.rss });
    rec.ratio(a, b, 'p50');
    rec.metric({ figure: 'idle CPU', system: 'capstan up --no-node', unit: 'count', samples: [capstan.cpuCores] });
    return rec.output(report);
  } finally {
    for (const fn of teardowns.reverse()) await fn();
  }
}

export const suite = defineSuite<MemoryParams>({
  name: 'control-plane-memory',
  title: 'Control plane memory, idle: capstan up --no-node vs a bare Node.js process',
  params: { full: { settle: 30, window: 60 }, quick: { settle: 3, window: 3 } },
  fromArgv: (argv) => {
    const v = parseArgs({ args: argv, options }).values;
    return { settle: Number(v.settle), window: Number(v.window) };
  },
  run: (p, progress) => main(p, progress),
});
runIfMain(import.meta.url, suite);
