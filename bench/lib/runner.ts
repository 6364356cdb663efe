// Runs suites one after another, each in a forked process (bench/lib/run-suite.ts), shows
// progress, and writes <out>/results.json, <out>/report.html and each suite's log under
// <out>/logs. A full run writes the Markdown reports to bench/reports (the docs link them); a
// --quick run writes them to <out>/reports, so small-parameter figures never replace them.
import { fork } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { machine, versions } from './machine.js';
import { progressDisplay, type ProgressDisplay } from './progress.js';
import { repoRoot } from './report.js';
import type { ChildMessage, ChildResult } from './run-suite.js';
import { SCHEMA, validateRun, type BenchRun, type SuiteResult } from './schema.js';
import { renderReport } from './html-report.js';
import { suiteEntry } from '../suites.js';

export interface RunOptions {
  suites: string[];
  quick: boolean;
  out: string;
  /** Per suite, `key → value` parameter overrides. */
  overrides?: Record<string, Record<string, string>>;
  display?: ProgressDisplay;
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
  try {
    for (const name of opts.suites) {
      const entry = suiteEntry(name);
      if (!entry) throw new Error(`unknown suite "${name}"`);
      display.start(entry.name);
      const t0 = performance.now();
      const r = await runOne(join(here, '..', entry.file), entry.name, opts.quick, opts.overrides?.[entry.name] ?? {}, out, reportDir, (phase) => display.phase(entry.name, phase));
      const result: SuiteResult = { ...r, seconds: (performance.now() - t0) / 1000 };
      const inOut = result.report && relative(out, result.report);
      if (inOut && !inOut.startsWith('..') && !isAbsolute(inOut)) result.report = inOut;
      suites.push(result);
      display.end(entry.name, result.status, result.seconds, result.reason);
    }
  } finally {
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

function runOne(modulePath: string, name: string, quick: boolean, overrides: Record<string, string>, out: string, reportDir: string, onPhase: (p: string) => void): Promise<Omit<SuiteResult, 'seconds'>> {
  const resultFile = join(out, 'logs', `${name}.result.json`);
  const logFile = join(out, 'logs', `${name}.log`);
  rmSync(resultFile, { force: true });
  const log = openSync(logFile, 'w');
  const child = fork(join(here, 'run-suite.js'), [modulePath, quick ? 'quick' : 'full', JSON.stringify(overrides), resultFile, reportDir], { stdio: ['ignore', log, log, 'ipc'] });
  closeSync(log);
  child.on('message', (m: ChildMessage) => { if (m?.type === 'progress') onPhase(m.phase); });
  return new Promise((done) => {
    child.once('exit', (code, signal) => {
      if (existsSync(resultFile)) {
        const r = JSON.parse(readFileSync(resultFile, 'utf8')) as ChildResult;
        rmSync(resultFile, { force: true });
        done(r);
        return;
      }
      const tail = existsSync(logFile) ? readFileSync(logFile, 'utf8').trim().split('\n').slice(-3).join(' ').slice(-300) : '';
      done({ name, title: name, status: 'failed', reason: `the suite's process ${signal ? `was killed by ${signal}` : `exited with code ${code}`} (logs/${name}.log): ${tail}`, parameters: {}, metrics: [], ratios: [] });
    });
  });
}
