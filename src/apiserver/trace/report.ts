// What a finished request's trace turns into: the Server-Timing header (opted-in requests),
// the /metrics histograms, and a log line when it took longer than --slow-request-threshold.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../../log/index.js';
import { formatServerTiming, type TimingEntry } from '../../util/server-timing.js';
import type { APIMetrics } from '../metrics.js';
import type { RequestInfo } from '../request-info.js';
import type { RequestTrace } from './request-trace.js';

/** The request header that asks for the Server-Timing header. */
export const TRACE_HEADER = 'x-capstan-trace';

export interface TraceOptions {
  /** --server-timing: every reply carries Server-Timing. */
  serverTiming?: boolean;
  /** --slow-request-threshold in ms (default 1000; 0 logs nothing). */
  slowRequestThresholdMs?: number;
  /** --request-stages=false: record no stages at all (no Server-Timing, slow requests logged with their total only); the A/B baseline of bench/request-trace.ts. */
  stages?: boolean;
}

export function optedIn(req: IncomingMessage, opts: TraceOptions): boolean {
  if (opts.serverTiming) return true;
  const v = req.headers[TRACE_HEADER];
  return v === '1' || v === 'true';
}

/**
 * The stages as Server-Timing entries, in the order they began (an outer stage before the inner
 * ones that began with it). A stage that ran more than once — deletecollection admits and
 * deletes each item — is one entry: its first start, the sum of its durations and the number
 * of runs, so the header stays as long as the list of distinct stages.
 */
export function timingEntries(trace: RequestTrace): TimingEntry[] {
  const stages = [...trace.stages].sort((a, b) => a.start - b.start || b.dur - a.dur);
  const byName = new Map<string, TimingEntry & { runs: number }>();
  const out: (TimingEntry & { runs: number })[] = [];
  for (const s of stages) {
    const seen = byName.get(s.name);
    if (seen) { seen.dur += s.dur; seen.runs++; continue; }
    const e = { name: s.name, dur: s.dur, start: s.start, runs: 1, ...(s.labels?.policy_binding ? { desc: `binding ${s.labels.policy_binding}` } : {}) };
    byName.set(s.name, e);
    out.push(e);
  }
  return [...out.map(({ runs, ...e }) => (runs > 1 ? { ...e, desc: `${runs} runs` } : e)), { name: 'total', dur: trace.elapsed(), start: 0 }];
}

/**
 * Adds Server-Timing to the reply just before its headers go. Everything up to then is in
 * it — encoding included, since replies are serialised before their headers are written —
 * but not the writing of the body, nor a watch's events.
 */
export function sendServerTiming(res: ServerResponse, trace: RequestTrace): void {
  const writeHead = res.writeHead;
  res.writeHead = function (this: ServerResponse, ...args: unknown[]) {
    trace.addGap('encode');
    this.setHeader('Server-Timing', formatServerTiming(timingEntries(trace)));
    return (writeHead as (...a: unknown[]) => ServerResponse).apply(this, args);
  } as ServerResponse['writeHead'];
}

/** The verb label as upstream reports it: the HTTP method, except LIST, WATCH and APPLY. */
export function reportedVerb(info: RequestInfo, method: string, contentType: string | undefined): string {
  if (info.verb === 'list') return 'LIST';
  if (info.verb === 'watch') return 'WATCH';
  if (method === 'PATCH' && contentType?.startsWith('application/apply-patch')) return 'APPLY';
  return method;
}

function scopeOf(info: RequestInfo): string {
  if (!info.isResourceRequest) return '';
  if (info.name) return 'resource';
  return info.namespace ? 'namespace' : 'cluster';
}

const operations: Record<string, string> = { create: 'CREATE', update: 'UPDATE', patch: 'UPDATE', delete: 'DELETE', deletecollection: 'DELETE' };

interface StageMetric {
  /** The stage label of capstan_apiserver_request_stage_duration_seconds: plugins fold into their step, storage calls into `storage`; none for stages inside a plugin. */
  fold?: string;
  histogram?: 'controller' | 'webhook' | 'policy';
  type?: 'admit' | 'validate';
  name?: string;
}

// Stage names repeat from request to request: each is taken apart once.
const parsed = new Map<string, StageMetric>();

function stageMetric(stage: string): StageMetric {
  let m = parsed.get(stage);
  if (m) return m;
  const [first, kind, ...rest] = stage.split('.');
  if (first !== 'admission') m = { fold: first === 'storage' ? 'storage' : stage };
  else if (kind === 'webhook') m = { histogram: 'webhook', type: rest[0] === 'mutating' ? 'admit' : 'validate', name: rest.slice(1).join('.') };
  else if (kind === 'policy') m = { histogram: 'policy' };
  else m = { fold: `admission.${kind}`, histogram: 'controller', type: kind === 'mutating' ? 'admit' : 'validate', name: rest.join('.') };
  if (parsed.size < 10_000) parsed.set(stage, m);
  return m;
}

// Reused from request to request: observing a request allocates nothing but the histograms' labels.
const steps = { admit: { dur: 0, rejected: false, ran: false }, validate: { dur: 0, rejected: false, ran: false } };
const folded = new Map<string, number>();

/**
 * The request's upstream metrics (request count and latency, response size, admission
 * controller, webhook and policy histograms) for every request; capstan's per-stage histogram
 * only for requests that asked for their trace, so the path of one that did not allocates
 * nothing beyond upstream's histograms.
 */
export function observeRequest(metrics: APIMetrics, trace: RequestTrace, req: IncomingMessage, res: ServerResponse, info: RequestInfo, dryRun: boolean): void {
  const method = req.method ?? 'GET';
  const verb = reportedVerb(info, method, req.headers['content-type']);
  const dry = dryRun ? 'All' : '';
  const scope = scopeOf(info);
  // The label objects are built only for a label set's first observation (metric-children.ts).
  const common = () => ({ verb, group: info.group, version: info.version, resource: info.resource, subresource: info.subresource, scope, component: 'apiserver' });
  const key = `${verb}\0${dry}\0${info.group}\0${info.version}\0${info.resource}\0${info.subresource}\0${scope}`;
  const code = res.statusCode;
  metrics.requestSeries.inc(`${key}\0${code}`, () => ({ ...common(), dry_run: dry, code: String(code) }));
  if (info.verb === 'watch') return;
  metrics.latencySeries.observe(key, () => ({ ...common(), dry_run: dry }), trace.elapsed() / 1000);
  const size = Number(res.getHeader('content-length'));
  if (Number.isFinite(size)) metrics.responseSizeSeries.observe(key, common, size);
  if (!trace.stages.length) return;
  const operation = operations[info.verb] ?? (info.verb === 'connect' ? 'CONNECT' : '');
  steps.admit.dur = steps.validate.dur = 0;
  steps.admit.rejected = steps.validate.rejected = steps.admit.ran = steps.validate.ran = false;
  folded.clear();
  for (const s of trace.stages) {
    const m = stageMetric(s.name);
    if (m.fold && trace.opted) folded.set(m.fold, (folded.get(m.fold) ?? 0) + s.dur);
    const rejected = s.failed ? 'true' : 'false';
    if (m.histogram === 'policy') {
      if (s.labels) metrics.policyCheck.observe(s.labels, s.dur / 1000);
    } else if (m.histogram === 'webhook') {
      metrics.admissionWebhook.observe({ name: m.name!, type: m.type!, operation, rejected }, s.dur / 1000);
    } else if (m.histogram === 'controller') {
      metrics.admissionController.observe({ name: m.name!, type: m.type!, operation, rejected }, s.dur / 1000);
      const step = steps[m.type!];
      step.dur += s.dur;
      step.ran = true;
      step.rejected ||= !!s.failed;
    }
  }
  if (steps.admit.ran) metrics.admissionStep.observe({ type: 'admit', operation, rejected: String(steps.admit.rejected) }, steps.admit.dur / 1000);
  if (steps.validate.ran) metrics.admissionStep.observe({ type: 'validate', operation, rejected: String(steps.validate.rejected) }, steps.validate.dur / 1000);
  for (const [stage, ms] of folded) metrics.stages.observe({ stage, verb, group: info.group, resource: info.resource }, ms / 1000);
}

/** One line per slow request, as upstream's utiltrace: `Trace[id]: "Create" url:…,verb:POST (total time: 1203ms): authn 0.1ms, …`. `code`: the reply's status. */
export function logIfSlow(log: Logger, trace: RequestTrace, thresholdMs: number, req: IncomingMessage, code: number, info: RequestInfo, user?: string): void {
  const total = trace.elapsed();
  if (!thresholdMs || total < thresholdMs || info.verb === 'watch') return;
  const id = Math.floor(Math.random() * 1e9);
  const what = info.verb.charAt(0).toUpperCase() + info.verb.slice(1);
  const entries = timingEntries(trace).slice(0, -1);
  const stages = entries.map((s) => `${s.name} ${s.dur.toFixed(1)}ms${s.desc?.endsWith(' runs') ? ` (${s.desc})` : ''}${trace.stages.some((x) => x.name === s.name && x.failed) ? ' (failed)' : ''}`).join(', ');
  const ua = String(req.headers['user-agent'] ?? '');
  const summed: Record<string, number> = {};
  for (const s of entries) summed[s.name] = Number(s.dur.toFixed(3));
  log.info(`Trace[${id}]: "${what}" url:${req.url},user-agent:${ua},verb:${req.method},code:${code} (total time: ${total.toFixed(0)}ms): ${stages}`, {
    trace: id, verb: info.verb, resource: info.resource, namespace: info.namespace || undefined, name: info.name || undefined, code,
    user, totalMs: Number(total.toFixed(3)), stages: summed,
  });
}
