// PostgreSQL access: one pool per process, transactions as a callback, bound parameters only.
import pg from 'pg';

export type Pool = pg.Pool;
export type Client = pg.PoolClient;
export type Queryable = Pick<pg.Pool, 'query'> | Pick<pg.PoolClient, 'query'>;

// int8 (bigint) as number: counts and cents here stay far below 2^53; numeric stays a string.
pg.types.setTypeParser(20, (v) => Number(v));
// date as its ISO text, never a JS Date shifted by the local timezone.
pg.types.setTypeParser(1082, (v) => v);

export interface PoolOptions {
  max?: number;
  statementTimeoutMs?: number;
  applicationName?: string;
  /** an answering pool: short statements, no parallel workers, commits not waiting for the disk */
  serving?: boolean;
}

/**
 * Session settings of an answering pool: parallel workers cost more to start than these short
 * queries take; commits of answers, usage and leases need not wait for the WAL flush (a crash
 * loses at most the last moment of them, never a committed fact: loads run in other processes
 * with their own pools). Benches give their bare-SQL baselines the same settings.
 */
export const SERVING_OPTIONS = '-c max_parallel_workers_per_gather=0 -c synchronous_commit=off';

export function createPool(url: string, opts: PoolOptions = {}): Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max: opts.max ?? 10,
    application_name: opts.applicationName ?? 'landlex',
    statement_timeout: opts.statementTimeoutMs,
    options: opts.serving ? SERVING_OPTIONS : undefined,
  });
  // An idle client that loses its server must not crash the process.
  pool.on('error', () => {});
  return pool;
}

/**
 * A statement prepared once per connection under a name and then only executed: for the hot
 * paths, where parsing and planning would cost as much as running. After a few executions
 * PostgreSQL keeps one generic plan when it costs no more than the custom ones, so the SQL keeps
 * each index probe fenced in its own subquery (OFFSET 0): that plan is right for every value.
 */
export function named(name: string, text: string, values: unknown[]): pg.QueryConfig {
  return { name, text, values };
}

export async function withTransaction<T>(pool: Pool, fn: (client: Client) => Promise<T>, opts: { readOnly?: boolean } = {}): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query(opts.readOnly ? 'BEGIN READ ONLY' : 'BEGIN');
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}

/** The database name and a URL for the maintenance database on the same server. */
export function adminUrl(url: string): { database: string; admin: string } {
  const u = new URL(url);
  const database = decodeURIComponent(u.pathname.replace(/^\//, ''));
  u.pathname = '/postgres';
  return { database, admin: u.toString() };
}

/** Create the database named in url when it does not exist yet (idempotent). */
export async function ensureDatabase(url: string, template?: string): Promise<boolean> {
  const { database, admin } = adminUrl(url);
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (found.rowCount) return false;
    const ident = client.escapeIdentifier(database);
    const tmpl = template ? ` TEMPLATE ${client.escapeIdentifier(template)}` : '';
    await client.query(`CREATE DATABASE ${ident}${tmpl}`);
    return true;
  } finally {
    await client.end();
  }
}

export async function dropDatabase(url: string): Promise<void> {
  const { database, admin } = adminUrl(url);
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS ${client.escapeIdentifier(database)} WITH (FORCE)`);
  } finally {
    await client.end();
  }
}
