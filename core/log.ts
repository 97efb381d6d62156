// Structured JSON logs: one object a line on stdout, with the request id where there is one.

export type Level = 'debug' | 'info' | 'warn' | 'error';
const RANK: Record<Level | 'silent', number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
  /** whether a record of this level is written (skip building one that is not) */
  enabled(level: Level): boolean;
}

export function createLogger(
  level: Level | 'silent' = 'info',
  base: Record<string, unknown> = {},
  write: (line: string) => void = (line) => process.stdout.write(line + '\n'),
): Logger {
  const min = RANK[level];
  const emit = (lvl: Level, msg: string, fields?: Record<string, unknown>) => {
    if (RANK[lvl] < min) return;
    const record = { time: new Date().toISOString(), level: lvl, msg, ...base, ...fields };
    write(JSON.stringify(record, (_k, v) => (v instanceof Error ? { name: v.name, message: v.message, stack: v.stack } : v)));
  };
  return {
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
    child: (fields) => createLogger(level, { ...base, ...fields }, write),
    enabled: (lvl) => RANK[lvl] >= min,
  };
}
