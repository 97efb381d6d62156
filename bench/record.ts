// Records the SQL statements the API runs for each request (an in-process server over a pool
// that notes every query), and writes them out as pgbench scripts with the values filled in.
import { loadConfig } from '../core/config.ts';
import { createLogger } from '../core/log.ts';
import { startServer } from '../api/server.ts';

/** A value as an SQL literal (arrays as array literals, objects as JSON). */
export function literal(v: unknown): string {
  if (v === null || v === undefined) return 'NULL';
  if (typeof v === 'number' || typeof v === 'bigint') return String(v);
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (v instanceof Date) return `'${v.toISOString()}'`;
  if (Array.isArray(v)) return `'{${v.map((x) => `"${String(x).replace(/["\\\\]/g, '\\\\$&')}"`).join(',')}}'`;
  const text = typeof v === 'object' && !Buffer.isBuffer(v) ? JSON.stringify(v) : String(v);
  return `'${text.replace(/'/g, "''")}'`;
}

function inline(text: string, values: unknown[]): string {
  return text.replace(/\$(\d+)/g, (_m, n) => literal(values[Number(n) - 1]));
}

/**
 * pgbench reads `:name` as a variable anywhere, inside string literals too: a literal holding
 * such a colon is written as an escape string with the colon as \x3a (same value, same type).
 */
function pgbenchSafe(sql: string): string {
  return sql.replace(/'(?:[^']|'')*'/g, (lit) => (/:[A-Za-z_]/.test(lit) ? `E'${lit.slice(1, -1).replace(/\\/g, '\\\\').replace(/:/g, '\\x3a')}'` : lit));
}

export async function recordStatements(databaseUrl: string, key: string, paths: string[]): Promise<string[]> {
  const config = loadConfig({ DATABASE_URL: databaseUrl, PORT: '0', LOG_LEVEL: 'silent', RATE_LIMIT_PER_SECOND: '1000000' });
  const server = await startServer(config, { log: createLogger('silent') });
  const pool = server.services.pool;
  let current: string[] | null = null;
  const original = pool.query.bind(pool) as (...a: unknown[]) => Promise<unknown>;
  (pool as unknown as { query: unknown }).query = (...a: unknown[]) => {
    const q = a[0] as string | { text: string; values?: unknown[] };
    const text = typeof q === 'string' ? q : q.text;
    const values = (typeof q === 'string' ? a[1] : q.values) as unknown[] | undefined;
    if (current && !/^\s*(INSERT INTO usage_event|INSERT INTO rate_window|UPDATE api_key|UPDATE credit_|INSERT INTO credit_|WITH cur AS|SELECT pg_notify|LISTEN)/.test(text)) {
      current.push(`${pgbenchSafe(inline(text.replace(/--[^\n]*/g, ''), values ?? []).replace(/\s+/g, ' ').trim())};`);
    }
    return original(...a);
  };
  const scripts: string[] = [];
  try {
    for (const path of paths) {
      current = [];
      const res = await fetch(`${server.url}${path}`, { headers: { 'X-API-Key': key } });
      await res.text();
      scripts.push(`${current.join('\n')}\n`);
    }
  } finally {
    current = null;
    await server.close();
  }
  return scripts;
}
