// The results of a `capstan bench` run: one schema for every suite, written as results.json.
// The HTML report and `capstan bench compare` read only this; validateRun() is the contract.

export const SCHEMA = 'capstan.bench/v1';

export interface BenchRun {
  schema: typeof SCHEMA;
  startedAt: string;
  finishedAt: string;
  seconds: number;
  quick: boolean;
  machine: Machine;
  versions: Versions;
  suites: SuiteResult[];
}

export interface Machine {
  cpus: number;
  model: string;
  kernel: string;
  memoryBytes: number;
  /** 1, 5 and 15 minute load averages when the run started and when it ended. */
  loadAverage: { start: number[]; end: number[] };
}

/** null: the tool is not installed (or did not say its version). */
export interface Versions {
  capstan: string | null;
  node: string;
  containerd: string | null;
  nft: string | null;
}

export type SuiteStatus = 'passed' | 'skipped' | 'failed';
export type ParamValue = string | number | boolean | (string | number)[];

export interface SuiteResult {
  name: string;
  title: string;
  status: SuiteStatus;
  /** Why it was skipped (a missing prerequisite) or how it failed. */
  reason?: string;
  /** Wall time of the suite, from its start to its result. */
  seconds: number;
  /**
   * CPU seconds of the suite's process and the processes it started and waited for (the API
   * servers, containerd, ip, nft, a lab); unlike wall time it hardly moves with the machine's
   * load. Absent where /proc cannot say (not Linux).
   */
  cpuSeconds?: number;
  /** 1, 5 and 15 minute load averages when the suite started and ended. */
  loadAverage?: { start: number[]; end: number[] };
  parameters: Record<string, ParamValue>;
  metrics: Metric[];
  ratios: Ratio[];
  /** The suite's Markdown report, relative to the run's directory or absolute. */
  report?: string;
}

export type Unit = 'ms' | 'µs' | 's' | 'ops/s' | 'pods/s' | 'queries/s' | 'Gbit/s' | 'bytes' | 'count';
export const UNITS: readonly Unit[] = ['ms', 'µs', 's', 'ops/s', 'pods/s', 'queries/s', 'Gbit/s', 'bytes', 'count'];
export const TIME_UNITS: readonly Unit[] = ['ms', 'µs', 's'];

/** Percentiles are nearest-rank; null when there were no samples. */
export interface Summary {
  n: number;
  p50: number | null;
  p99: number | null;
  mean: number | null;
  min: number | null;
  max: number | null;
  /** Events per second, for figures that are a rate (ops/s over a timed run). */
  rate?: number;
}

/** One measured figure of one system (capstan or a baseline) in one suite. */
export interface Metric {
  /** Unique in the suite: `<figure>/<system>` plus the x value when there is one. */
  id: string;
  /** What was measured, the same text for every system measured alike ("create, concurrency 16"). */
  figure: string;
  /** "capstan" (or a capstan variant, "capstan addon") or the baseline's name ("etcd put"). */
  system: string;
  /** True for the baselines and anchors capstan is compared with. */
  baseline: boolean;
  unit: Unit;
  /** Every raw sample, in the order taken, so CDFs can be drawn. May be empty when only a total exists. */
  samples: number[];
  summary: Summary;
  /** The scaling axis this figure was measured at (e.g. services = 10000). */
  x?: { name: string; value: number };
  /** Seconds from the figure's start at which each event happened (pods Running), for rates over time. */
  times?: number[];
}

/** capstan against a named anchor: value = capstan ÷ anchor of the given statistic. */
export interface Ratio {
  figure: string;
  stat: 'p50' | 'p99' | 'mean' | 'rate';
  capstan: string;
  anchor: string;
  anchorName: string;
  value: number;
  /** Whether a lower or a higher figure is better, so a reader knows which way the ratio points. */
  better: 'lower' | 'higher';
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isNumOrNull = (v: unknown) => v === null || isNum(v);
const isStr = (v: unknown): v is string => typeof v === 'string';

/** Every way `x` differs from the schema, as `path: problem`; empty when it is a valid run. */
export function validateRun(x: unknown): string[] {
  const errs: string[] = [];
  const need = (ok: boolean, path: string, what: string) => { if (!ok) errs.push(`${path}: ${what}`); };
  if (!isObj(x)) return ['$: not an object'];
  need(x.schema === SCHEMA, 'schema', `must be "${SCHEMA}"`);
  for (const k of ['startedAt', 'finishedAt'] as const) need(isStr(x[k]) && !Number.isNaN(Date.parse(x[k] as string)), k, 'must be an ISO time');
  need(isNum(x.seconds) && (x.seconds as number) >= 0, 'seconds', 'must be a number ≥ 0');
  need(typeof x.quick === 'boolean', 'quick', 'must be a boolean');
  const m = x.machine;
  if (!isObj(m)) errs.push('machine: not an object');
  else {
    need(Number.isInteger(m.cpus) && (m.cpus as number) > 0, 'machine.cpus', 'must be a positive integer');
    need(isStr(m.model), 'machine.model', 'must be a string');
    need(isStr(m.kernel), 'machine.kernel', 'must be a string');
    need(isNum(m.memoryBytes), 'machine.memoryBytes', 'must be a number');
    validateLoad(m.loadAverage, 'machine.loadAverage', errs, false);
  }
  const v = x.versions;
  if (!isObj(v)) errs.push('versions: not an object');
  else {
    need(isStr(v.node), 'versions.node', 'must be a string');
    for (const k of ['capstan', 'containerd', 'nft']) need(v[k] === null || isStr(v[k]), `versions.${k}`, 'must be a string or null');
  }
  if (!Array.isArray(x.suites)) errs.push('suites: not an array');
  else {
    const names = new Set<string>();
    x.suites.forEach((s, i) => validateSuite(s, `suites[${i}]`, errs, names));
  }
  return errs;
}

function validateLoad(la: unknown, path: string, errs: string[], optional: boolean): void {
  if (la === undefined && optional) return;
  if (!isObj(la)) { errs.push(`${path}: not an object`); return; }
  for (const k of ['start', 'end']) {
    if (!(Array.isArray(la[k]) && (la[k] as unknown[]).length === 3 && (la[k] as unknown[]).every(isNum))) errs.push(`${path}.${k}: must be three numbers`);
  }
}

function validateSuite(s: unknown, path: string, errs: string[], names: Set<string>): void {
  const need = (ok: boolean, p: string, what: string) => { if (!ok) errs.push(`${path}.${p}: ${what}`); };
  if (!isObj(s)) { errs.push(`${path}: not an object`); return; }
  need(isStr(s.name) && !names.has(s.name), 'name', 'must be a unique string');
  names.add(s.name as string);
  need(isStr(s.title), 'title', 'must be a string');
  need(['passed', 'skipped', 'failed'].includes(s.status as string), 'status', 'must be passed, skipped or failed');
  need(s.status === 'passed' || (isStr(s.reason) && s.reason.length > 0), 'reason', 'a skipped or failed suite says why');
  need(isNum(s.seconds) && (s.seconds as number) >= 0, 'seconds', 'must be a number ≥ 0');
  need(s.cpuSeconds === undefined || (isNum(s.cpuSeconds) && (s.cpuSeconds as number) >= 0), 'cpuSeconds', 'must be a number ≥ 0');
  validateLoad(s.loadAverage, `${path}.loadAverage`, errs, true);
  need(s.report === undefined || isStr(s.report), 'report', 'must be a string');
  need(isObj(s.parameters) && Object.values(s.parameters).every((p) => isStr(p) || isNum(p) || typeof p === 'boolean' || (Array.isArray(p) && p.every((e) => isStr(e) || isNum(e)))),
    'parameters', 'must map names to strings, numbers, booleans or lists of them');
  const ids = new Set<string>();
  if (!Array.isArray(s.metrics)) errs.push(`${path}.metrics: not an array`);
  else s.metrics.forEach((m, i) => {
    const p = `metrics[${i}]`;
    if (!isObj(m)) { errs.push(`${path}.${p}: not an object`); return; }
    need(isStr(m.id) && !ids.has(m.id), `${p}.id`, 'must be a unique string');
    ids.add(m.id as string);
    need(isStr(m.figure) && isStr(m.system), `${p}`, 'figure and system must be strings');
    need(typeof m.baseline === 'boolean', `${p}.baseline`, 'must be a boolean');
    need(UNITS.includes(m.unit as Unit), `${p}.unit`, `must be one of ${UNITS.join(', ')}`);
    need(Array.isArray(m.samples) && m.samples.every(isNum), `${p}.samples`, 'must be finite numbers');
    const sum = m.summary;
    if (!isObj(sum)) errs.push(`${path}.${p}.summary: not an object`);
    else {
      need(Number.isInteger(sum.n) && (sum.n as number) >= 0, `${p}.summary.n`, 'must be a count');
      need(!Array.isArray(m.samples) || m.samples.length === 0 || m.samples.length === sum.n, `${p}.summary.n`, 'must equal the number of samples');
      for (const k of ['p50', 'p99', 'mean', 'min', 'max']) need(isNumOrNull(sum[k]), `${p}.summary.${k}`, 'must be a number or null');
      need(sum.rate === undefined || isNum(sum.rate), `${p}.summary.rate`, 'must be a number');
    }
    need(m.x === undefined || (isObj(m.x) && isStr(m.x.name) && isNum(m.x.value)), `${p}.x`, 'must be { name, value }');
    need(m.times === undefined || (Array.isArray(m.times) && m.times.every(isNum)), `${p}.times`, 'must be numbers');
  });
  if (!Array.isArray(s.ratios)) errs.push(`${path}.ratios: not an array`);
  else s.ratios.forEach((r, i) => {
    const p = `ratios[${i}]`;
    if (!isObj(r)) { errs.push(`${path}.${p}: not an object`); return; }
    need(isStr(r.figure) && isStr(r.anchorName), p, 'figure and anchorName must be strings');
    need(['p50', 'p99', 'mean', 'rate'].includes(r.stat as string), `${p}.stat`, 'must be p50, p99, mean or rate');
    need(ids.has(r.capstan as string), `${p}.capstan`, 'must name a metric of the suite');
    need(ids.has(r.anchor as string), `${p}.anchor`, 'must name a metric of the suite');
    need(isNum(r.value) && (r.value as number) > 0, `${p}.value`, 'must be a positive number');
    need(r.better === 'lower' || r.better === 'higher', `${p}.better`, 'must be lower or higher');
  });
}
