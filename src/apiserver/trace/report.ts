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
}

export function optedIn(req: IncomingMessage, opts: TraceOptions): boolean {
  if (opts.serverTiming) return true;
  const v = req.headers[TRACE_HEADER];
  return v === '1' || v === 'true';
}

export function timingEntries(trace: RequestTrace): TimingEntry[] {
  // Stages are recorded as they end (an inner one before its outer one); the header lists them
  // as they began, an outer one before the inner ones that began with it.
  const stages = [...trace.stages].sort((a, b) => a.start - b.start || b.dur - a.dur);
  return [...stages.map((s) => ({ name: s.name, dur: s.dur, start: s.start, ...(s.labels?.policy_binding ? { desc: `binding ${s.labels.policy_binding}` } : {}) })), { name: 'total', dur: trace.elapsed(), start: 0 }];
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

export function observeRequest(metrics: APIMetrics, trace: RequestTrace, req: IncomingMessage, res: ServerResponse, info: RequestInfo): void {
  const method = req.method ?? 'GET';
  const verb = reportedVerb(info, method, req.headers['content-type']);
  const dryRun = new URL(req.url ?? '/', 'https://apiserver').searchParams.has('dryRun') ? 'All' : '';
  const common = { verb, group: info.group, version: info.version, resource: info.resource, subresource: info.subresource, scope: scopeOf(info), component: 'apiserver' };
  metrics.requests.inc({ ...common, dry_run: dryRun, code: String(res.statusCode) });
  if (info.verb === 'watch') return;
  metrics.latency.observe({ ...common, dry_run: dryRun }, trace.elapsed() / 1000);
  const size = Number(res.getHeader('content-length'));
  if (Number.isFinite(size)) metrics.responseSizes.observe(common, size);
  const operation = operations[info.verb] ?? (info.verb === 'connect' ? 'CONNECT' : '');
  const steps = { admit: { dur: 0, rejected: false, ran: false }, validate: { dur: 0, rejected: false, ran: false } };
  const folded = new Map<string, number>();
  for (const s of trace.stages) {
    const m = stageMetric(s.name);
    if (m.fold) folded.set(m.fold, (folded.get(m.fold) ?? 0) + s.dur);
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
  for (const [type, step] of Object.entries(steps)) {
    if (step.ran) metrics.admissionStep.observe({ type, operation, rejected: String(step.rejected) }, step.dur / 1000);
  }
  for (const [stage, ms] of folded) metrics.stages.observe({ stage, verb, group: info.group, resource: info.resource }, ms / 1000);
}

/** One line per slow request, as upstream's utiltrace: `Trace[id]: "Create" url:…,verb:POST (total time: 1203ms): authn 0.1ms, …`. */
export function logIfSlow(log: Logger, trace: RequestTrace, thresholdMs: number, req: IncomingMessage, res: ServerResponse, info: RequestInfo, user?: string): void {
  const total = trace.elapsed();
  if (!thresholdMs || total < thresholdMs || info.verb === 'watch') return;
  const id = Math.floor(Math.random() * 1e9);
  const what = info.verb.charAt(0).toUpperCase() + info.verb.slice(1);
  const stages = trace.stages.map((s) => `${s.name} ${s.dur.toFixed(1)}ms${s.failed ? ' (failed)' : ''}`).join(', ');
  const ua = String(req.headers['user-agent'] ?? '');
  const summed: Record<string, number> = {};
  for (const s of trace.stages) summed[s.name] = Number(((summed[s.name] ?? 0) + s.dur).toFixed(3));
  log.info(`Trace[${id}]: "${what}" url:${req.url},user-agent:${ua},verb:${req.method},code:${res.statusCode} (total time: ${total.toFixed(0)}ms): ${stages}`, {
    trace: id, verb: info.verb, resource: info.resource, namespace: info.namespace || undefined, name: info.name || undefined, code: res.statusCode,
    user, totalMs: Number(total.toFixed(3)), stages: summed,
  });
}
