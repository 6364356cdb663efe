// The stages of one request and how long each took: authentication, authorization, decoding,
// each admission plugin and webhook, validation, storage, encoding and, for writes that asked
// to be traced, the time until the watch cache had handed the event to every watcher. Every
// request has one (the slow-request log and the /metrics histograms read it); only an opted-in
// request sees it, as a Server-Timing header. Code deep in the pipeline finds the request's
// trace from an object that already travels with the request — its RequestInfo (admission
// gets it) or its RequestContext (the registries get it) — through `traceOf`, so no signature
// changes. Not AsyncLocalStorage: on Node 20 it turns promise hooks on for the whole process,
// which cost more than all of the tracing (bench/request-trace.ts).
import { performance } from 'node:perf_hooks';

export interface Stage {
  /** `authn`, `admission.mutating.ServiceAccount`, `admission.webhook.validating.deny.example.com`, `storage.create`, … */
  name: string;
  /** Milliseconds since the request began. */
  start: number;
  dur: number;
  /** The stage ended by throwing (an admission plugin or webhook that refused). */
  failed?: boolean;
  /** Labels for its metric (a ValidatingAdmissionPolicy binding's); `desc` in Server-Timing. */
  labels?: Record<string, string>;
}

export class RequestTrace {
  began = performance.now();
  readonly stages: Stage[] = [];
  /** The request asked to see its stages (X-Capstan-Trace or --server-timing): worth waiting for watchers. */
  opted = false;
  /** Resolves true once watchers were handed revision `rev`, false after `timeoutMs` (the watch cache's wait). */
  delivered?: (rev: number, timeoutMs: number) => Promise<boolean>;
  /** Where the top-level stages have reached (ms since the start): the next gap begins here. */
  private reached = 0;
  private ended?: number;
  /** Stage records of earlier requests, reused: a pooled trace records without allocating. */
  private readonly spare: Stage[] = [];

  /**
   * A trace for a request that did not opt in, from a pool: with the stage records it holds,
   * recording a request allocates nothing. Give it back with release() once nothing reads it.
   */
  static acquire(): RequestTrace {
    const t = pool.pop() ?? new RequestTrace();
    t.began = performance.now();
    return t;
  }

  /** Back to the pool (an opted-in trace, whose header may still be written, is never pooled). */
  release(): void {
    if (this.opted || pool.length >= POOL_MAX) return;
    for (const s of this.stages) { s.failed = undefined; s.labels = undefined; this.spare.push(s); }
    this.stages.length = 0;
    this.reached = 0;
    this.ended = undefined;
    this.delivered = undefined;
    pool.push(this);
  }

  /** Records a stage that began at `start` (a `performance.now()` value) and ends now. */
  add(name: string, start: number, failed = false, labels?: Record<string, string>): void {
    const end = performance.now();
    const s: Stage = this.spare.pop() ?? { name, start: 0, dur: 0, failed: undefined, labels: undefined };
    s.name = name;
    s.start = start - this.began;
    s.dur = end - start;
    if (failed) s.failed = true;
    if (labels) s.labels = labels;
    this.stages.push(s);
    if (end - this.began > this.reached) this.reached = end - this.began;
  }

  /** Times `fn` as the stage `name`; a throw (or an outcome `refused` says is a refusal) is recorded as failed. */
  async time<T>(name: string, fn: () => Promise<T>, refused?: (out: T) => boolean): Promise<T> {
    const start = performance.now();
    try {
      const out = await fn();
      this.add(name, start, refused?.(out) ?? false);
      return out;
    } catch (e) {
      this.add(name, start, true);
      throw e;
    }
  }

  /** Records the time since the last stage ended as `name` (encoding: everything between storage and the reply). */
  addGap(name: string): void {
    for (const s of this.stages) if (s.name === name) return;
    this.add(name, this.began + this.reached);
  }

  /** Ends the trace here: elapsed() stays put (a stream's trace ends at its first byte, not when it closes). */
  finish(): void {
    this.ended ??= performance.now();
  }

  elapsed(): number {
    return (this.ended ?? performance.now()) - this.began;
  }
}

const pool: RequestTrace[] = [];
/** As many traces as requests in flight at once, about; beyond, the garbage collector takes them. */
const POOL_MAX = 1024;

// A symbol-keyed property of the key rather than a WeakMap entry: a WeakMap insertion (and its
// ephemeron bookkeeping in the garbage collector) costs ~20× a property store, twice a request.
// JSON, Object.keys and for-in do not see it; a copy of the key made within the request
// (`{ ...ctx, dryRun }`) carries it, so that copy's stages count for the same request.
const TRACE = Symbol('requestTrace');
type Traced = { [TRACE]?: RequestTrace };

/** Makes `trace` the trace of whatever request `key` (its RequestInfo or RequestContext) belongs to. */
export function bindTrace(key: object, trace: RequestTrace): void {
  (key as Traced)[TRACE] = trace;
}

/** The trace of the request `key` belongs to, if any (startup and background work have none). */
export function traceOf(key: object | undefined): RequestTrace | undefined {
  return key && (key as Traced)[TRACE];
}

/** Times `fn` as a stage of `key`'s request, if it has a trace. */
export function traced<T>(key: object | undefined, name: string, fn: () => Promise<T>, refused?: (out: T) => boolean): Promise<T> {
  const t = traceOf(key);
  return t ? t.time(name, fn, refused) : fn();
}

const WATCH_WAIT_MS = 1000;

/**
 * A store write of `key`'s request, recorded as `storage.<operation>`; when the request is
 * traced, then waits (at most a second) until watchers were handed its revision (`watch`).
 */
export async function tracedWrite<T>(key: object | undefined, operation: string, write: () => Promise<T>, revisionOf: (out: T) => number): Promise<T> {
  const t = traceOf(key);
  if (!t) return write();
  const out = await t.time(`storage.${operation}`, write);
  if (t.opted && t.delivered) {
    const start = now();
    const ok = await t.delivered(revisionOf(out), WATCH_WAIT_MS);
    t.add('watch', start, !ok);
  }
  return out;
}

export const now = (): number => performance.now();
