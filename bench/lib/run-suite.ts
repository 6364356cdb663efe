// One suite in a process of its own, forked by the harness (bench/lib/runner.ts): the suite's
// leaked handles, crashes and memory stay out of the run. Progress goes to the parent over
// IPC; the suite's result is written to a JSON file.
//   run-suite.js MODULE quick|full OVERRIDES_JSON RESULT_FILE REPORT_DIR
import { writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { setReportTarget } from './report.js';
import { applyOverrides, missingRequirements, type Suite } from './suite.js';
import type { SuiteResult } from './schema.js';

export type ChildMessage = { type: 'progress'; phase: string };
export type ChildResult = Omit<SuiteResult, 'seconds'>;

const [modulePath, mode, overridesJSON, resultFile, reportDir] = process.argv.slice(2);
const send = (m: ChildMessage) => { if (process.send) process.send(m); };

async function main(): Promise<ChildResult> {
  const mod = await import(pathToFileURL(modulePath!).href) as { suite?: Suite };
  const suite = mod.suite;
  if (!suite) throw new Error(`${modulePath} exports no suite`);
  const params = applyOverrides(mode === 'quick' ? suite.params.quick : suite.params.full, JSON.parse(overridesJSON ?? '{}') as Record<string, string>);
  const base = { name: suite.name, title: suite.title, parameters: params, metrics: [], ratios: [] };
  send({ type: 'progress', phase: 'checking prerequisites' });
  const missing = await missingRequirements(suite, params);
  if (missing.length) return { ...base, status: 'skipped', reason: missing.join('; ') };
  setReportTarget(reportDir!, true);
  try {
    const out = await suite.run(params, (phase) => send({ type: 'progress', phase }));
    return { ...base, status: 'passed', metrics: out.metrics, ratios: out.ratios, ...(out.report ? { report: out.report } : {}) };
  } catch (e) {
    console.error(e instanceof Error ? e.stack : e);
    return { ...base, status: 'failed', reason: (e instanceof Error ? e.message : String(e)).split('\n').slice(0, 3).join(' ') };
  }
}

main().then((r) => {
  writeFileSync(resultFile!, JSON.stringify(r));
  process.exit(0);
}, (e) => {
  console.error(e instanceof Error ? e.stack : e);
  process.exit(1);
});
