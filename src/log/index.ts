// Structured logs: one JSON object a line on stderr, with the component and whatever fields
// the caller adds (object key, reason, ...). Level filtering by CAPSTAN_LOG_LEVEL.
export type Level = 'debug' | 'info' | 'warn' | 'error';

const order: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  with(fields: Record<string, unknown>): Logger;
}

export function logger(component: string, base: Record<string, unknown> = {}, sink: (line: string) => void = (l) => process.stderr.write(l)): Logger {
  const min = order[(process.env.CAPSTAN_LOG_LEVEL as Level) ?? 'info'] ?? order.info;
  const emit = (level: Level, msg: string, fields?: Record<string, unknown>) => {
    if (order[level] < min) return;
    sink(`${JSON.stringify({ ts: new Date().toISOString(), level, component, msg, ...base, ...fields })}\n`);
  };
  return {
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
    with: (f) => logger(component, { ...base, ...f }, sink),
  };
}
