// The stages of one request and how long each took: authentication, authorization, decoding,
// each admission plugin and webhook, validation, storage, encoding and, for writes that asked
// to be traced, the time until the watch cache had handed the event to every watcher. Every
// request has one (the slow-request log and the /metrics histograms read it); only an opted-in
// request sees it, as a Server-Timing header. Code deep in the pipeline finds the request's
// trace through `currentTrace()` (one AsyncLocalStorage scope per request), so stages are
// recorded without threading a parameter through every signature.
import { AsyncLocalStorage } from 'node:async_hooks';
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
  readonly began = performance.now();
  readonly stages: Stage[] = [];
  /** The request asked to see its stages (X-Capstan-Trace or --server-timing): worth waiting for watchers. */
  opted = false;
  /** Where the top-level stages have reached (ms since the start): the next gap begins here. */
  private reached = 0;

  /** Records a stage that began at `start` (a `performance.now()` value) and ends now. */
  add(name: string, start: number, failed = false, labels?: Record<string, string>): void {
    const end = performance.now();
    const s: Stage = { name, start: start - this.began, dur: end - start };
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
    if (this.stages.some((s) => s.name === name)) return;
    this.add(name, this.began + this.reached);
  }

  elapsed(): number {
    return performance.now() - this.began;
  }
}

const scope = new AsyncLocalStorage<RequestTrace>();

/** Runs `fn` with `trace` as the current request's trace. */
export function withTrace<T>(trace: RequestTrace, fn: () => T): T {
  return scope.run(trace, fn);
}

/** The trace of the request this code runs for, if any (startup and background work have none). */
export function currentTrace(): RequestTrace | undefined {
  return scope.getStore();
}

/** Times `fn` as a stage of the current request, if there is one. */
export function traced<T>(name: string, fn: () => Promise<T>, refused?: (out: T) => boolean): Promise<T> {
  const t = scope.getStore();
  return t ? t.time(name, fn, refused) : fn();
}

export const now = (): number => performance.now();
