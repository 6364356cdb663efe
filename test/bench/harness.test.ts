// `capstan bench` end to end: a real --quick run of cheap suites (the API server against raw
// SQLite, the scheduler, pod network setup in namespaces, a Deployment on hollow nodes) into
// a temporary directory; results.json must match the schema, and report.html, rendered by
// headless Chromium in a network namespace of its own, must carry the JSON's numbers in its
// plots and ratio table. A suite whose tool is missing is reported as skipped, and
// `bench compare` shows every figure of two runs. No figure is asserted on: nothing here is timed.
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { capstanBin } from '../helpers/apiserver-process.js';
import { TIME_UNITS, validateRun, type BenchRun } from '../../bench/lib/schema.js';
import { onPath } from '../../bench/lib/prereq.js';
import { parseDOM } from './dom.js';

const dir = mkdtempSync(join(tmpdir(), 'capstan-bench-test-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

function capstan(args: string[], env: NodeJS.ProcessEnv = process.env) {
  const r = spawnSync(process.execPath, [capstanBin, ...args], { encoding: 'utf8', env, timeout: 600_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const out = join(dir, 'run');
const run1 = capstan(['bench', 'apiserver', 'scheduler', 'netlink', 'controllers', '--quick', '--out', out,
  '--set', 'apiserver.count=100', '--set', 'scheduler.pods=200', '--set', 'scheduler.nodes=20',
  '--set', 'netlink.pods=5', '--set', 'controllers.replicas=30', '--set', 'controllers.nodes=3']);
const results = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as BenchRun;

t.test('the run passes and prints plain progress lines when not on a terminal', async (t) => {
  t.equal(run1.code, 0, run1.stderr);
  for (const s of ['apiserver', 'scheduler', 'netlink', 'controllers']) {
    t.match(run1.stdout, new RegExp(`\\] ${s}: passed in `), `${s} passed`);
  }
  t.match(run1.stdout, /\] apiserver: sqlite\n/, 'a phase line');
  t.match(run1.stdout, /4 passed, 0 failed, 0 skipped/);
  t.match(run1.stdout, /suite\s+status\s+wall s\s+share\s+CPU s\s+load \(1 min\)\n/, 'a table of the suites\' times');
  for (const s of ['apiserver', 'scheduler', 'netlink', 'controllers']) t.match(run1.stdout, new RegExp(`\\n${s}\\s+passed\\s+\\d+\\.\\d\\s+\\d+%\\s+\\d+\\.\\d\\s+[\\d.]+–[\\d.]+\\n`), `${s} in the table`);
  t.notMatch(run1.stdout, /\x1b\[/, 'no terminal control sequences');
});

t.test('results.json matches the schema and holds raw samples', async (t) => {
  t.same(validateRun(results), []);
  t.same(results.suites.map((s) => [s.name, s.status]), [['apiserver', 'passed'], ['scheduler', 'passed'], ['netlink', 'passed'], ['controllers', 'passed']]);
  t.ok(results.quick);
  t.equal(results.suites[0]!.parameters.count, 100, 'the --set override is recorded');
  t.match(results.versions, { node: process.version, nft: /\d+\.\d+/ });
  const api = results.suites[0]!;
  const create = api.metrics.find((m) => m.id === 'sqlite: create, concurrency 1/capstan API server')!;
  t.equal(create.samples.length, 100, 'one sample per create');
  t.ok(api.ratios.some((r) => r.capstan === create.id && r.anchorName === 'SQLite insert (1 row/tx, FULL)'), 'ratio against raw SQLite');
  t.equal(results.suites[3]!.metrics.find((m) => m.times)?.times?.length, 30, 'a Running time per pod');
  for (const s of results.suites) {
    t.ok(s.seconds > 0, `${s.name}: its wall time`);
    t.ok(s.cpuSeconds !== undefined && s.cpuSeconds > 0 && s.cpuSeconds <= cpus().length * s.seconds + 1, `${s.name}: its CPU seconds (${s.cpuSeconds})`);
    t.equal(s.loadAverage?.start.length, 3, `${s.name}: the load when it started`);
  }
  // The validator refuses what the schema does not allow.
  const broken = structuredClone(results);
  broken.suites[0]!.metrics[0]!.summary.n += 1;
  broken.suites[0]!.ratios[0]!.anchor = 'nope';
  t.same(validateRun(broken).map((e) => e.split(':')[0]), ['suites[0].metrics[0].summary.n', 'suites[0].ratios[0].anchor']);
});

t.test('report.html in headless Chromium carries the numbers of results.json', async (t) => {
  t.ok(onPath('chromium'), 'chromium is installed (scripts/setup.sh)');
  const html = readFileSync(join(out, 'report.html'), 'utf8');
  t.notMatch(html, /(src|href)="(https?:)?\/\//, 'no external assets');
  const profile = mkdtempSync(join(tmpdir(), 'capstan-chromium-'));
  t.teardown(() => rmSync(profile, { recursive: true, force: true }));
  // A network namespace of its own (only a down loopback): the page cannot fetch anything.
  const r = spawnSync('unshare', ['--net', 'chromium', '--headless', '--no-sandbox', '--disable-gpu', `--user-data-dir=${profile}`,
    '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-default-apps',
    '--host-resolver-rules=MAP * ~NOTFOUND', '--dump-dom', `file://${join(out, 'report.html')}`], { encoding: 'utf8', timeout: 120_000, maxBuffer: 256 * 1024 * 1024 });
  t.equal(r.status, 0, r.stderr.slice(-2000));
  const dom = parseDOM(r.stdout);
  const svgs = dom.filter((e) => e.tag === 'svg');
  const byAttr = (tag: string, k: string, v: string) => dom.filter((e) => e.tag === tag && e.attrs[`data-${k}`] === v);

  for (const s of results.suites) {
    t.equal(byAttr('section', 'suite', s.name).length, 1, `a section for ${s.name}`);
    const [row] = byAttr('tr', 'suite', s.name);
    t.equal(row?.attrs['data-seconds'], String(s.seconds), `${s.name}: its wall time in the suites table`);
    t.equal(row?.attrs['data-cpu-seconds'], String(s.cpuSeconds), `${s.name}: its CPU seconds in the suites table`);
    // Every latency figure with raw samples: a CDF line with one vertex per sample.
    for (const m of s.metrics.filter((m) => TIME_UNITS.includes(m.unit) && m.samples.length >= 2)) {
      const [g] = byAttr('g', 'metric', m.id);
      t.ok(g, `CDF series for ${m.id}`);
      if (!g) continue;
      t.equal(g.attrs['data-n'], String(m.samples.length));
      const line = g.children.find((c) => c.tag === 'polyline')!;
      t.equal(line.attrs.points!.trim().split(/\s+/).length, m.samples.length, `${m.id}: one vertex per sample`);
    }
    // Every figure measured at an x value: a point at (x, p50) on a log–log chart.
    for (const m of s.metrics.filter((m) => m.x && (m.summary.p50 ?? 0) > 0)) {
      const [pt] = byAttr('circle', 'metric', m.id);
      t.ok(pt, `scaling point for ${m.id}`);
      t.equal(pt?.attrs['data-x'], String(m.x!.value));
      t.equal(pt?.attrs['data-y'], String(m.summary.p50));
    }
    // Every figure with event times: a rate-over-time series whose buckets count every event.
    for (const m of s.metrics.filter((m) => m.times?.length)) {
      const [g] = byAttr('g', 'metric', m.id);
      t.equal(g?.attrs['data-total'], String(m.times!.length));
      const counts = g?.children.filter((c) => c.tag === 'circle').map((c) => Number(c.attrs['data-count'])) ?? [];
      t.equal(counts.reduce((a, b) => a + b, 0), m.times!.length, `${m.id}: every pod in a bucket`);
    }
    for (const r of s.ratios) {
      const row = dom.find((e) => e.tag === 'tr' && e.attrs['data-capstan'] === r.capstan && e.attrs['data-anchor'] === r.anchor && e.attrs['data-stat'] === r.stat);
      t.equal(row?.attrs['data-ratio'], String(r.value), `${r.stat} ratio ${r.capstan} ÷ ${r.anchor}`);
    }
  }
  const plots = new Set(svgs.map((s) => s.attrs['data-plot']));
  t.same([...plots].sort(), ['cdf', 'scaling', 'timeline']);
  for (const svg of svgs) {
    const ticks = (axis: string) => svg.descendants().filter((e) => e.tag === 'text' && (e.attrs.class ?? '').includes(`${axis}-tick`));
    t.ok(ticks('x').length >= 2 && ticks('y').length >= 2, `${svg.attrs['data-figure']}: tick labels on both axes`);
    if (svg.attrs['data-plot'] === 'scaling') t.match(svg.text(), /\(log\)[\s\S]*\(log\)/, 'log–log axes');
  }
});

t.test('a suite whose tool is missing is skipped and says what is missing', async (t) => {
  const out2 = join(dir, 'skip');
  const r = capstan(['bench', 'dns', '--quick', '--out', out2], { ...process.env, PATH: join(dir, 'no-such-bin') });
  t.equal(r.code, 0, 'skipping does not fail the run');
  t.match(r.stdout, /dns: skipped in .*dnsperf is missing \(Debian: apt-get install dnsperf/);
  const run = JSON.parse(readFileSync(join(out2, 'results.json'), 'utf8')) as BenchRun;
  t.same(validateRun(run), []);
  t.match(run.suites[0], { name: 'dns', status: 'skipped', reason: /dnsperf is missing/, metrics: [] });
});

t.test('bench compare shows every figure of both runs with its change', async (t) => {
  const r = capstan(['bench', 'compare', join(out, 'results.json'), join(out, 'results.json')]);
  t.equal(r.code, 0, r.stderr);
  for (const s of results.suites) {
    for (const m of s.metrics) t.ok(r.stdout.includes(m.figure.slice(0, 40)), `${s.name}: ${m.figure}`);
  }
  const rows = r.stdout.split('\n').filter((l) => /^(apiserver|scheduler|netlink|controllers)\s/.test(l));
  t.equal(rows.length, results.suites.reduce((n, s) => n + s.metrics.length + s.ratios.length, 0), 'a row per figure and per ratio');
  t.ok(rows.every((l) => /(\+0\.0%|—)$/.test(l)), 'a run against itself changes nothing');
});
