// Suites in a process of their own, forked by the harness (bench/lib/runner.ts): their leaked
// handles, crashes and memory stay out of the harness. The parent sends one `run` message per
// suite and the child answers with the suite's progress and then its result; a full run forks
// one child per suite (each suite alone in its process), a --quick run one child for all of
// them (the modules the suites share load once). The child leaves on `exit`.
//   run-suite.js quick|full REPORT_DIR
import { pathToFileURL } from 'node:url';
import { setReportTarget } from './report.js';
import { applyOverrides, missingRequirements, type Suite } from './suite.js';
import type { SuiteResult } from './schema.js';

export type ChildResult = Omit<SuiteResult, 'seconds'>;
/** Parent → child. */
export type RunMessage = { type: 'run'; module: string; name: string; overrides: Record<string, string> } | { type: 'exit' };
/** Child → parent. */
export type ChildMessage = { type: 'progress'; phase: string } | { type: 'result'; result: ChildResult };

const [mode, reportDir] = process.argv.slice(2);
const send = (m: ChildMessage) => new Promise<void>((done) => { if (process.send) process.send(m, () => done()); else done(); });

async function runSuite(modulePath: string, name: string, overrides: Record<string, string>): Promise<ChildResult> {
  try {
    const mod = await import(pathToFileURL(modulePath).href) as { suite?: Suite };
    const suite = mod.suite;
    if (!suite) throw new Error(`${modulePath} exports no suite`);
    const params = applyOverrides(mode === 'quick' ? suite.params.quick : suite.params.full, overrides);
    const base = { name: suite.name, title: suite.title, parameters: params, metrics: [], ratios: [] };
    void send({ type: 'progress', phase: 'checking prerequisites' });
    const missing = await missingRequirements(suite, params);
    if (missing.length) return { ...base, status: 'skipped', reason: missing.join('; ') };
    try {
      const out = await suite.run(params, (phase) => void send({ type: 'progress', phase }));
      return { ...base, status: 'passed', metrics: out.metrics, ratios: out.ratios, ...(out.report ? { report: out.report } : {}) };
    } catch (e) {
      console.error(e instanceof Error ? e.stack : e);
      return { ...base, status: 'failed', reason: (e instanceof Error ? e.message : String(e)).split('\n').slice(0, 3).join(' ') };
    }
  } catch (e) {
    console.error(e instanceof Error ? e.stack : e);
    return { name, title: name, status: 'failed', reason: (e as Error).message, parameters: {}, metrics: [], ratios: [] };
  }
}

setReportTarget(reportDir!, true);
process.on('disconnect', () => process.exit(0));
process.on('message', (m: RunMessage) => {
  if (m.type === 'exit') process.exit(0);
  void runSuite(m.module, m.name, m.overrides).then((result) => send({ type: 'result', result }));
});
