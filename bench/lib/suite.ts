// What a benchmark suite is: a name, parameters for a full and a --quick run, the
// prerequisites it needs, and run(params, progress) → its metrics and ratios. `capstan bench`
// runs suites through bench/lib/run-suite.ts; each bench/<name>.js still runs alone through
// runIfMain().
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { Metric, ParamValue, Ratio, Summary, Unit } from './schema.js';
import { summarize } from './stats.js';

export type Params = Record<string, ParamValue>;
/** Tells the harness which phase the suite is in ("sqlite: create c=16"). */
export type Progress = (phase: string) => void;
/** Resolves to why the suite cannot run here (a missing tool, not root), or undefined. */
export type Requirement<P extends Params = Params> = (params: P) => string | undefined | Promise<string | undefined>;

export interface SuiteOutput {
  metrics: Metric[];
  ratios: Ratio[];
  /** The Markdown report the suite wrote. */
  report?: string;
}

export interface Suite<P extends Params = Params> {
  name: string;
  title: string;
  params: { full: P; quick: P };
  requires?: Requirement<P>[];
  /** The parameters from the script's own command line, for `node dist/bench/<name>.js ARGS`. */
  fromArgv?: (argv: string[], full: P) => P;
  run(params: P, progress: Progress): Promise<SuiteOutput>;
}

export function defineSuite<P extends Params>(suite: Suite<P>): Suite<P> {
  return suite;
}

/** `key=value` overrides parsed as the default's type (numbers, booleans, comma lists). */
export function applyOverrides<P extends Params>(params: P, overrides: Record<string, string>): P {
  const out: Params = { ...params };
  for (const [k, raw] of Object.entries(overrides)) {
    if (!(k in params)) throw new Error(`unknown parameter "${k}" (known: ${Object.keys(params).join(', ')})`);
    const def = params[k];
    if (typeof def === 'number') out[k] = Number(raw);
    else if (typeof def === 'boolean') out[k] = raw === 'true' || raw === '1' || raw === '';
    else if (Array.isArray(def)) out[k] = raw.split(',').filter(Boolean).map((s) => (typeof def[0] === 'string' ? s : Number(s)));
    else out[k] = raw;
    if (typeof out[k] === 'number' && !Number.isFinite(out[k])) throw new Error(`parameter "${k}": "${raw}" is not a number`);
  }
  return out as P;
}

/** Summary of samples with null for what an empty set has not got (JSON has no NaN). */
export function summary(samples: ArrayLike<number>, rate?: number): Summary {
  const s = summarize(Array.from(samples));
  const num = (v: number) => (Number.isFinite(v) ? v : null);
  const out: Summary = { n: s.n, p50: num(s.p50), p99: num(s.p99), mean: num(s.mean), min: num(s.min), max: num(s.max) };
  if (rate !== undefined && Number.isFinite(rate)) out.rate = rate;
  return out;
}

export interface MetricInput {
  figure: string;
  system: string;
  baseline?: boolean;
  unit: Unit;
  samples?: ArrayLike<number>;
  /** Events per second over the timed run. */
  rate?: number;
  /** For a figure known only by its summary (a tool's own percentiles). */
  given?: Partial<Summary>;
  x?: { name: string; value: number };
  times?: number[];
}

/** Collects a suite's metrics and ratios; ids are made unique from figure, system and x. */
export class Recorder {
  readonly metrics: Metric[] = [];
  readonly ratios: Ratio[] = [];

  metric(m: MetricInput): Metric {
    const samples = Array.from(m.samples ?? []);
    const s = summary(samples, m.rate);
    if (m.given) for (const [k, v] of Object.entries(m.given)) if (typeof v === 'number' && Number.isFinite(v)) (s as unknown as Record<string, number>)[k] = v;
    let id = `${m.figure}/${m.system}${m.x ? `@${m.x.name}=${m.x.value}` : ''}`;
    for (let k = 2; this.metrics.some((o) => o.id === id); k++) id = `${id.replace(/#\d+$/, '')}#${k}`;
    const metric: Metric = { id, figure: m.figure, system: m.system, baseline: m.baseline ?? false, unit: m.unit, samples, summary: s };
    if (m.x) metric.x = m.x;
    if (m.times) metric.times = m.times;
    this.metrics.push(metric);
    return metric;
  }

  /** capstan ÷ anchor of `stat`; skipped when either side has no such figure. */
  ratio(capstan: Metric, anchor: Metric, stat: Ratio['stat'], better?: Ratio['better']): Ratio | undefined {
    const a = capstan.summary[stat], b = anchor.summary[stat];
    if (a == null || b == null || !(a > 0) || !(b > 0)) return undefined;
    const r: Ratio = {
      figure: capstan.figure === anchor.figure ? capstan.figure : `${capstan.figure} vs ${anchor.figure}`,
      stat, capstan: capstan.id, anchor: anchor.id, anchorName: anchor.system, value: a / b,
      better: better ?? (stat === 'rate' ? 'higher' : 'lower'),
    };
    this.ratios.push(r);
    return r;
  }

  output(report?: string): SuiteOutput {
    return { metrics: this.metrics, ratios: this.ratios, ...(report ? { report } : {}) };
  }
}

/** `--ops N --rounds N`, for suites that time alternating rounds of single operations. */
export function opsAndRounds(argv: string[], full: { ops: number; rounds: number }): { ops: number; rounds: number } {
  const v = parseArgs({ args: argv, options: { ops: { type: 'string', default: String(full.ops) }, rounds: { type: 'string', default: String(full.rounds) } } }).values;
  return { ops: Number(v.ops), rounds: Number(v.rounds) };
}

/** One figure measured with a feature and without it (the anchor), compared at p50 and p99. */
export function withAndWithout(figure: string, systems: { with: string; without: string }, samples: { with: number[]; without: number[] }, report: string): SuiteOutput {
  const rec = new Recorder();
  const withIt = rec.metric({ figure, system: systems.with, unit: 'ms', samples: samples.with });
  const without = rec.metric({ figure, system: systems.without, baseline: true, unit: 'ms', samples: samples.without });
  rec.ratio(withIt, without, 'p50');
  rec.ratio(withIt, without, 'p99');
  return rec.output(report);
}

export async function missingRequirements<P extends Params>(suite: Suite<P>, params: P): Promise<string[]> {
  const out: string[] = [];
  for (const req of suite.requires ?? []) {
    try {
      const why = await req(params);
      if (why) out.push(why);
    } catch (e) {
      out.push((e as Error).message);
    }
  }
  return out;
}

/** Runs the suite when its file is the script node was started with (`node dist/bench/x.js`). */
export function runIfMain<P extends Params>(moduleURL: string, suite: Suite<P>): void {
  if (!process.argv[1] || resolve(process.argv[1]) !== fileURLToPath(moduleURL)) return;
  void (async () => {
    const params = suite.fromArgv ? suite.fromArgv(process.argv.slice(2), suite.params.full) : suite.params.full;
    const missing = await missingRequirements(suite, params);
    if (missing.length) {
      console.error(`${suite.name}: skipped: ${missing.join('; ')}`);
      process.exit(2);
    }
    await suite.run(params, (phase) => console.error(`[${suite.name}] ${phase}`));
  })().then(() => process.exit(0), (e) => {
    console.error(e instanceof Error ? e.stack : e);
    process.exit(1);
  });
}
