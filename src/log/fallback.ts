// Failures that a caller recovers from (a fallback to a full sync, a default value, a
// skipped field) must not be silent: each is counted as capstan_fallbacks_total{component,
// reason} on the component's registry, and logged once per reason (or per reason and
// `once` key) with the first error, so a hot loop that keeps falling back does not flood the log.
//
// Code that has its component's registry and logger at hand passes them; module-level code
// deep in a component (a decoder, a helper) makes its reporter with the component name only,
// and reports to whatever the component bound with `bindFallbacks` when it started.
import { Counter, type Registry } from 'prom-client';
import { logger, type Logger } from './index.js';
import { metricOn } from './metrics.js';

export const FALLBACKS_METRIC = 'capstan_fallbacks_total';

export interface FallbackDetail {
  error?: unknown;
  /** Log once per (reason, once) rather than once per reason: e.g. the message and field number. */
  once?: string;
  [field: string]: unknown;
}

/** Records one fallback for `reason`, a short stable slug such as "incremental-apply-failed". */
export type Fallbacks = (reason: string, detail?: FallbackDetail) => void;

function counterOn(registry: Registry): Counter {
  return metricOn(registry, FALLBACKS_METRIC, () => new Counter({
    name: FALLBACKS_METRIC,
    help: 'Failures a component recovered from by falling back, by component and reason.',
    labelNames: ['component', 'reason'],
    registers: [registry],
  }));
}

const bound = new Map<string, { registry?: Registry; log?: Logger }>();
const processWide = new Map<string, number>();
// Distinct `once` keys remembered per reporter; past this, only the first of a reason is logged.
const maxOnceKeys = 256;

/** Where reporters made with only `component`'s name count and log (the component's /metrics). */
export function bindFallbacks(component: string, registry: Registry, log?: Logger): void {
  bound.set(component, { registry, log });
}

/** Fallbacks so far in this process for `component` and `reason`, whichever registry counted them. */
export function fallbackCount(component: string, reason: string): number {
  return processWide.get(`${component}/${reason}`) ?? 0;
}

/** A fallback reporter for `component`: counts on `registry` (else the bound one), logs to `log` (else the bound one, else stderr). */
export function fallbacks(component: string, log?: Logger, registry?: Registry): Fallbacks {
  const logged = new Set<string>();
  return (reason, detail = {}) => {
    const { error, once, ...fields } = detail;
    const key = `${component}/${reason}`;
    processWide.set(key, (processWide.get(key) ?? 0) + 1);
    const target = registry ?? bound.get(component)?.registry;
    if (target) counterOn(target).inc({ component, reason });
    const onceKey = once === undefined || logged.size >= maxOnceKeys ? reason : `${reason}\0${once}`;
    if (logged.has(onceKey) || logged.has(reason) && logged.size >= maxOnceKeys) return;
    logged.add(onceKey);
    const message = error === undefined ? undefined : error instanceof Error ? error.message : String(error);
    (log ?? bound.get(component)?.log ?? logger(component)).warn('falling back (logged once per reason; counted in capstan_fallbacks_total)', {
      reason, ...(once === undefined ? {} : { detail: once }), ...(message === undefined ? {} : { error: message }), ...fields,
    });
  };
}
