// Every suite `capstan bench` knows declares its --quick parameters: the same keys as its
// full run, no larger, and the same systems (a quick run measures fewer sizes and iterations,
// never fewer baselines). And the per-suite wall time, CPU and load the harness records reach
// the schema's validator, the terminal table and the HTML report. Nothing here is timed.
import t from 'tap';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { SUITES } from '../../bench/suites.js';
import type { Suite } from '../../bench/lib/suite.js';
import { durationTable } from '../../bench/lib/runner.js';
import { renderReport } from '../../bench/lib/html-report.js';
import { SCHEMA, validateRun, type BenchRun, type SuiteResult } from '../../bench/lib/schema.js';

const benchDir = join(fileURLToPath(import.meta.url), '../../../bench');

// Lists of names (proxy modes, nft shapes): the systems a suite measures side by side.
// apiserver's etcd backend needs etcd installed, so a quick run leaves it to full runs.
const mayNarrow = new Set(['apiserver.backends']);

t.test('every suite declares quick parameters that keep its systems', async (t) => {
  for (const entry of SUITES) {
    const { suite } = await import(pathToFileURL(join(benchDir, entry.file)).href) as { suite: Suite };
    t.equal(suite?.name, entry.name, `${entry.file} exports the suite ${entry.name}`);
    const { full, quick } = suite.params;
    t.ok(quick && typeof quick === 'object', `${entry.name}: quick parameters`);
    t.same(Object.keys(quick).sort(), Object.keys(full).sort(), `${entry.name}: the same parameters as a full run`);
    t.notSame(quick, full, `${entry.name}: quick parameters of its own`);
    for (const [k, q] of Object.entries(quick)) {
      const f = full[k];
      if (typeof q === 'number' && typeof f === 'number' && f > 0) t.ok(q <= f, `${entry.name}.${k}: ${q} ≤ ${f}`);
      if (Array.isArray(q) && Array.isArray(f) && typeof f[0] === 'string' && !mayNarrow.has(`${entry.name}.${k}`)) {
        t.same([...q].sort(), [...f].sort(), `${entry.name}.${k}: every system of a full run`);
      }
    }
  }
});

t.test('per-suite durations reach the JSON contract, the terminal and the report', async (t) => {
  const suite = (name: string, seconds: number, cpuSeconds?: number): SuiteResult => ({
    name, title: name, status: 'passed', seconds, ...(cpuSeconds === undefined ? {} : { cpuSeconds }),
    loadAverage: { start: [3.5, 2, 1], end: [4.25, 2, 1] }, parameters: {}, metrics: [], ratios: [],
  });
  const run: BenchRun = {
    schema: SCHEMA, startedAt: new Date(0).toISOString(), finishedAt: new Date(40_000).toISOString(), seconds: 40, quick: true,
    machine: { cpus: 2, model: 'm', kernel: 'k', memoryBytes: 1, loadAverage: { start: [1, 1, 1], end: [1, 1, 1] } },
    versions: { capstan: null, node: process.version, containerd: null, nft: null },
    suites: [suite('fast', 10, 4.5), suite('slow', 30)],
  };
  t.same(validateRun(run), []);
  const broken = structuredClone(run);
  broken.suites[0]!.seconds = -1;
  broken.suites[0]!.cpuSeconds = Number.NaN;
  broken.suites[1]!.loadAverage = { start: [1], end: [1, 2, 3] };
  t.same(validateRun(broken).map((e) => e.split(':')[0]), ['suites[0].seconds', 'suites[0].cpuSeconds', 'suites[1].loadAverage.start']);

  const lines = durationTable(run.suites).split('\n');
  t.match(lines[0], /suite\s+status\s+wall s\s+share\s+CPU s\s+load/);
  t.match(lines[1], /^slow\s+passed\s+30\.0\s+75%\s+—\s+3\.5–4\.3$/, 'slowest first, no CPU when /proc did not say');
  t.match(lines[2], /^fast\s+passed\s+10\.0\s+25%\s+4\.5\s+3\.5–4\.3$/);

  const html = renderReport(run);
  t.match(html, /<tr data-suite="fast" data-seconds="10" data-cpu-seconds="4.5">.*?<td>10\.0 s<\/td><td>25%<\/td><td>4\.5 s<\/td><td>3\.5–4\.3<\/td>/);
  t.match(html, /<tr data-suite="slow" data-seconds="30">.*?<td>30\.0 s<\/td><td>75%<\/td><td>—<\/td>/);
});
