// Runs suites one after another in forked processes (bench/lib/run-suite.ts), shows
// progress, and writes <out>/results.json, <out>/report.html and each suite's log under
// <out>/logs. A full run gives each suite a process of its own; a --quick run shares one
// process among its suites (modules load once: at a few seconds per fork that was a tenth of
// a quick run) and forks a new one only after a suite killed it. A full run writes the
// Markdown reports to bench/reports (the docs link them); a --quick run writes them to
// <out>/reports, so small-parameter figures never replace them.
import { fork, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { machine, versions } from './machine.js';
import { progressDisplay, type ProgressDisplay } from './progress.js';
import { repoRoot } from './report.js';
import type { ChildMessage, ChildResult, RunMessage } from './run-suite.js';
import { SCHEMA, validateRun, type BenchRun, type SuiteResult } from './schema.js';
import { renderReport } from './html-report.js';
import { suiteEntry } from '../suites.js';
import { cpuSeconds } from '../../src/util/index.js';

export interface RunOptions {
  suites: string[];
  quick: boolean;
  out: string;
  /** Per suite, `key → value` parameter overrides. */
  overrides?: Record<string, Record<string, string>>;
  display?: ProgressDisplay;
  /** One process for all suites (default: for --quick runs) rather than one each. */
  shareProcess?: boolean;
}

const here = dirname(fileURLToPath(import.meta.url));

export async function runBench(opts: RunOptions): Promise<{ run: BenchRun; resultsFile: string; reportFile: string }> {
  const out = resolve(opts.out);
  mkdirSync(join(out, 'logs'), { recursive: true });
  const reportDir = opts.quick ? join(out, 'reports') : join(repoRoot(), 'bench', 'reports');
  const display = opts.display ?? progressDisplay(process.stdout);
  const load0 = loadavg();
  const started = new Date();
  const suites: SuiteResult[] = [];
  const share = opts.shareProcess ?? opts.quick;
  let child: SuiteProcess | undefined;
  try {
    for (const name of opts.suites) {
      const entry = suiteEntry(name);
      if (!entry) throw new Error(`unknown suite "${name}"`);
      display.start(entry.name);
      const t0 = performance.now(), load = loadavg();
      if (!child?.alive) child = new SuiteProcess(opts.quick, reportDir);
      const cpu0 = child.cpuSeconds() ?? 0;
      const r = await child.run(join(here, '..', entry.file), entry.name, opts.overrides?.[entry.name] ?? {}, join(out, 'logs', `${entry.name}.log`), (phase) => display.phase(entry.name, phase));
      // Read before close: a closed process's CPU is no longer in /proc.
      const cpu1 = child.cpuSeconds();
      if (!share) { await child.close(); child = undefined; }
      const result: SuiteResult = { ...r, seconds: (performance.now() - t0) / 1000, loadAverage: { start: load, end: loadavg() } };
      if (cpu1 !== undefined) result.cpuSeconds = Math.max(0, cpu1 - cpu0);
      const inOut = result.report && relative(out, result.report);
      if (inOut && !inOut.startsWith('..') && !isAbsolute(inOut)) result.report = inOut;
      suites.push(result);
      display.end(entry.name, result.status, result.seconds, result.reason);
    }
  } finally {
    await child?.close();
    display.close();
  }
  const finished = new Date();
  const run: BenchRun = {
    schema: SCHEMA, startedAt: started.toISOString(), finishedAt: finished.toISOString(),
    seconds: (finished.getTime() - started.getTime()) / 1000, quick: opts.quick,
    machine: machine(load0), versions: versions(), suites,
  };
  const errors = validateRun(run);
  if (errors.length) throw new Error(`the results do not match the schema (a harness bug):\n${errors.join('\n')}`);
  const resultsFile = join(out, 'results.json');
  writeFileSync(resultsFile, `${JSON.stringify(run, null, 1)}\n`);
  const reportFile = join(out, 'report.html');
  writeFileSync(reportFile, renderReport(run));
  return { run, resultsFile, reportFile };
}

/** Each suite's wall time, CPU and load, slowest first, for the end of the terminal output. */
export function durationTable(suites: SuiteResult[]): string {
  const total = suites.reduce((n, s) => n + s.seconds, 0) || 1;
  const cpu = (s: SuiteResult) => (s.cpuSeconds === undefined ? '—' : s.cpuSeconds.toFixed(1));
  const load = (s: SuiteResult) => (s.loadAverage ? `${s.loadAverage.start[0]!.toFixed(1)}–${s.loadAverage.end[0]!.toFixed(1)}` : '—');
  const rows = [...suites].sort((a, b) => b.seconds - a.seconds).map((s) =>
    `${s.name.padEnd(20)} ${s.status.padEnd(8)} ${s.seconds.toFixed(1).padStart(8)} ${`${Math.round(100 * s.seconds / total)}%`.padStart(5)} ${cpu(s).padStart(8)}  ${load(s)}`);
  return [`${'suite'.padEnd(20)} ${'status'.padEnd(8)} ${'wall s'.padStart(8)} ${'share'.padStart(5)} ${'CPU s'.padStart(8)}  load (1 min)`, ...rows].join('\n');
}

/** A forked run-suite.js that runs the suites it is sent, one at a time; its output goes to the running suite's log. */
class SuiteProcess {
  private readonly child: ChildProcess;
  /** CPU seconds of the process and the processes it has reaped (see SuiteResult.cpuSeconds). */
  cpuSeconds(): number | undefined {
    return this.alive && this.child.pid !== undefined ? cpuSeconds(this.child.pid, true) : undefined;
  }
  private log?: number;
  private logFile = '';
  private waiting?: { done: (r: ChildResult) => void; name: string; onPhase: (p: string) => void };
  private exited: Promise<void>;
  alive = true;

  constructor(quick: boolean, reportDir: string) {
    this.child = fork(join(here, 'run-suite.js'), [quick ? 'quick' : 'full', reportDir], { stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
    const toLog = (d: Buffer) => { if (this.log !== undefined) writeSync(this.log, d); };
    this.child.stdout!.on('data', toLog);
    this.child.stderr!.on('data', toLog);
    this.child.on('message', (m: ChildMessage) => {
      if (m?.type === 'progress') this.waiting?.onPhase(m.phase);
      else if (m?.type === 'result') { const w = this.waiting; this.waiting = undefined; w?.done(m.result); }
    });
    this.exited = new Promise((resolve) => this.child.once('exit', (code, signal) => {
      this.alive = false;
      const w = this.waiting;
      this.waiting = undefined;
      // The pipes may still hold the last lines: read the tail once they are drained.
      setImmediate(() => {
        if (w) {
          const tail = existsSync(this.logFile) ? readFileSync(this.logFile, 'utf8').trim().split('\n').slice(-3).join(' ').slice(-300) : '';
          const name = w.name;
          w.done({ name, title: name, status: 'failed', reason: `the suite's process ${signal ? `was killed by ${signal}` : `exited with code ${code}`} (logs/${name}.log): ${tail}`, parameters: {}, metrics: [], ratios: [] });
        }
        this.closeLog();
        resolve();
      });
    }));
  }

  private closeLog(): void {
    if (this.log !== undefined) closeSync(this.log);
    this.log = undefined;
  }

  run(modulePath: string, name: string, overrides: Record<string, string>, logFile: string, onPhase: (p: string) => void): Promise<ChildResult> {
    // What the previous suite's leftovers print from here on goes to this suite's log.
    this.closeLog();
    this.log = openSync(logFile, 'w');
    this.logFile = logFile;
    return new Promise((done) => {
      this.waiting = { done, name, onPhase };
      const m: RunMessage = { type: 'run', module: modulePath, name, overrides };
      this.child.send(m);
    });
  }

  async close(): Promise<void> {
    if (this.alive) {
      const m: RunMessage = { type: 'exit' };
      this.child.send(m);
    }
    await this.exited;
  }
}
