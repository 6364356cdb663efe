// `capstan bench [SUITE...] [--quick] [--out DIR] [--set SUITE.KEY=VALUE] [--list]` runs the
// benchmark suites (bench/) and writes results.json and report.html;
// `capstan bench compare A.json B.json [--html FILE]` shows two runs side by side.
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { SUITES, suiteEntry } from '../../bench/suites.js';
import { durationTable, runBench } from '../../bench/lib/runner.js';
import { compareHTML, compareText } from '../../bench/lib/compare.js';
import { validateRun, type BenchRun } from '../../bench/lib/schema.js';

const usage = `usage: capstan bench [SUITE...] [--quick [--isolate]] [--out DIR] [--set SUITE.KEY=VALUE]... [--list]
       capstan bench compare A.json B.json [--html FILE]
Runs the suites (all when none is named), each in its own process, and writes DIR/results.json
(default DIR: bench/results/<time>), DIR/report.html and DIR/logs/<suite>.log. --quick uses small
parameters (minutes, for CI), runs the suites in one shared process (--isolate: one each) and
writes the Markdown reports to DIR/reports instead of bench/reports.
Exit status: 1 when a suite failed; skipped suites (a missing prerequisite) do not fail the run.`;

function readRun(file: string): BenchRun {
  const run = JSON.parse(readFileSync(file, 'utf8')) as unknown;
  const errors = validateRun(run);
  if (errors.length) throw new Error(`${file} is not a bench results file:\n  ${errors.slice(0, 10).join('\n  ')}`);
  return run as BenchRun;
}

async function compare(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { html: { type: 'string' } } });
  if (positionals.length !== 2) { process.stderr.write(`${usage}\n`); return 2; }
  const [a, b] = positionals.map(readRun) as [BenchRun, BenchRun];
  process.stdout.write(compareText(a, b));
  if (values.html) writeFileSync(values.html, compareHTML(a, b));
  return 0;
}

export async function run(argv: string[]): Promise<number> {
  if (argv[0] === 'compare') return compare(argv.slice(1));
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: {
    quick: { type: 'boolean', default: false }, isolate: { type: 'boolean', default: false }, out: { type: 'string' }, set: { type: 'string', multiple: true, default: [] },
    list: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h', default: false },
  } });
  if (values.help) { process.stdout.write(`${usage}\n`); return 0; }
  if (values.list) {
    process.stdout.write(SUITES.map((s) => `${s.name.padEnd(18)} ${s.summary}`).join('\n') + '\n');
    return 0;
  }
  const unknown = positionals.filter((p) => !suiteEntry(p));
  if (unknown.length) { process.stderr.write(`capstan bench: unknown suite ${unknown.join(', ')} (capstan bench --list)\n`); return 2; }
  const overrides: Record<string, Record<string, string>> = {};
  for (const s of values.set) {
    const m = /^([^.=]+)\.([^=]+)=(.*)$/.exec(s);
    if (!m || !suiteEntry(m[1]!)) { process.stderr.write(`capstan bench: --set wants SUITE.KEY=VALUE, got "${s}"\n`); return 2; }
    const name = suiteEntry(m[1]!)!.name;
    (overrides[name] ??= {})[m[2]!] = m[3]!;
  }
  const suites = positionals.length ? positionals.map((p) => suiteEntry(p)!.name) : SUITES.map((s) => s.name);
  const out = values.out ?? `bench/results/${new Date().toISOString().replace(/[:.]/g, '-')}`;
  const { run: result, resultsFile, reportFile } = await runBench({ suites, quick: values.quick, out, overrides, shareProcess: values.quick && !values.isolate });
  const count = (st: string) => result.suites.filter((s) => s.status === st).length;
  process.stdout.write(`${durationTable(result.suites)}\n`);
  process.stdout.write(`${count('passed')} passed, ${count('failed')} failed, ${count('skipped')} skipped in ${result.seconds.toFixed(0)} s\nresults: ${resultsFile}\nreport:  ${reportFile}\n`);
  return count('failed') ? 1 : 0;
}
