// Failures that a caller recovers from (a fallback to a full sync, a default value, a
// skipped field) must not be silent: each is counted on the component's registry as
// capstan_fallbacks_total{component, reason}, and logged once per reason with the first
// error, so a hot loop that keeps falling back does not flood the log.
import { Counter, type Registry } from 'prom-client';
import { logger, type Logger } from './index.js';
import { metricOn } from './metrics.js';

export const FALLBACKS_METRIC = 'capstan_fallbacks_total';

export interface Fallbacks {
  /** Records one fallback for `reason` (a short stable slug, e.g. "incremental-sync-failed"). */
  (reason: string, err?: unknown, fields?: Record<string, unknown>): void;
}

function counterOn(registry: Registry): Counter {
  return metricOn(registry, FALLBACKS_METRIC, () => new Counter({
    name: FALLBACKS_METRIC,
    help: 'Failures a component recovered from by falling back, by component and reason.',
    labelNames: ['component', 'reason'],
    registers: [registry],
  }));
}

// Components built without a registry or logger (library helpers, tests) still count here.
const processWide = new Map<string, number>();

/** A process-wide count of fallbacks by "component/reason", whichever registry got them. */
export function fallbackCount(component: string, reason: string): number {
  return processWide.get(`${component}/${reason}`) ?? 0;
}

/** A fallback reporter for `component`; counts on `registry` when given, logs to stderr without `log`. */
export function fallbacks(component: string, log?: Logger, registry?: Registry): Fallbacks {
  const logged = new Set<string>();
  const out = log ?? logger(component);
  const counter = registry && counterOn(registry);
  return (reason, err, fields) => {
    const key = `${component}/${reason}`;
    processWide.set(key, (processWide.get(key) ?? 0) + 1);
    counter?.inc({ component, reason });
    if (logged.has(reason)) return;
    logged.add(reason);
    const error = err === undefined ? undefined : err instanceof Error ? err.message : String(err);
    out.warn('falling back (logged once per reason; see capstan_fallbacks_total)', { reason, error, ...fields });
  };
}
