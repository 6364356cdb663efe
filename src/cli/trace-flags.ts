// Request tracing's flags (Server-Timing on every reply, the slow-request log's threshold),
// shared by `capstan apiserver` and `capstan up`, which starts an API server in its process.
import type { TraceOptions } from '../apiserver/trace/report.js';
import { parseDuration } from '../util/duration.js';

export const traceFlags = {
  'server-timing': { type: 'boolean', default: false },
  'slow-request-threshold': { type: 'string', default: '1s' },
  // false: record no stages at all (no Server-Timing; slow requests logged with their total only).
  'request-stages': { type: 'string', default: 'true' },
} as const;

export function traceOptions(values: { 'server-timing'?: boolean; 'slow-request-threshold'?: string; 'request-stages'?: string }): TraceOptions {
  const stages = values['request-stages'] ?? 'true';
  if (stages !== 'true' && stages !== 'false') throw new Error(`invalid --request-stages ${stages} (true or false)`);
  return { serverTiming: values['server-timing'] ?? false, slowRequestThresholdMs: parseDuration(values['slow-request-threshold'] ?? '1s'), stages: stages === 'true' };
}
