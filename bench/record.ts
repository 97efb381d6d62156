// The bare-SQL side of bench:api. The API's statements are recorded per request (an in-process
// server over a pool that notes every query with its parameter values); requests that ran the
// same statements are one pgbench script, whose statements are prepared once per connection with
// parameters, as the API's named statements are, and whose values come, per transaction, from a
// table of the recorded values picked at random. So the baseline does the API's database work
// with none of its own: no HTTP, no JSON, no answer shaping.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { loadConfig } from '../core/config.ts';
import { createLogger } from '../core/log.ts';
import { startServer } from '../api/server.ts';
import type { Pool } from '../store/db.ts';

// node-postgres's own conversion of a parameter to the text it sends
const { prepareValue } = createRequire(import.meta.url)('pg/lib/utils.js') as { prepareValue(v: unknown): unknown };

export interface Statement {
  text: string;
  values: unknown[];
}

/** Statements of the API's own bookkeeping (usage, credit, rate windows, cached key lookups): not the lookup's work. */
const BOOKKEEPING = /^\s*(INSERT INTO usage_event|INSERT INTO rate_bucket|UPDATE api_key|UPDATE credit_|INSERT INTO credit_|WITH cur AS|SELECT pg_notify|LISTEN|SELECT id, organization_id, name, scopes, expires_at, revoked_at FROM api_key)/;

/** Each path's statements, in order, with their values, as one in-process server ran them. */
export async function recordRequests(databaseUrl: string, key: string, paths: string[]): Promise<Statement[][]> {
  const config = loadConfig({ DATABASE_URL: databaseUrl, PORT: '0', LOG_LEVEL: 'silent', RATE_LIMIT_PER_SECOND: '1000000' });
  const server = await startServer(config, { log: createLogger('silent') });
  const pool = server.services.pool;
  let current: Statement[] | null = null;
  const original = pool.query.bind(pool) as (...a: unknown[]) => Promise<unknown>;
  (pool as unknown as { query: unknown }).query = (...a: unknown[]) => {
    const q = a[0] as string | { text: string; values?: unknown[] };
    const text = typeof q === 'string' ? q : q.text;
    const values = ((typeof q === 'string' ? a[1] : q.values) as unknown[] | undefined) ?? [];
    if (current && !BOOKKEEPING.test(text)) current.push({ text, values });
    return original(...a);
  };
  const requests: Statement[][] = [];
  try {
    for (const path of paths) {
      current = [];
      const res = await fetch(`${server.url}${path}`, { headers: { 'X-API-Key': key } });
      await res.text();
      requests.push(current);
    }
  } finally {
    current = null;
    await server.close();
  }
  return requests;
}

/** A parameter as the driver sends it: text, or null. */
function asText(v: unknown): string | null {
  const p = prepareValue(v) as string | Buffer | null;
  if (p === null || p === undefined) return null;
  return Buffer.isBuffer(p) ? `\\x${p.toString('hex')}` : String(p);
}

/** pgbench reads `:name` as a variable even inside string literals: such a colon becomes \x3a in an escape string. */
function pgbenchSafe(sql: string): string {
  return sql.replace(/'(?:[^']|'')*'/g, (lit) => (/:[A-Za-z_]/.test(lit) ? `E'${lit.slice(1, -1).replace(/\\/g, '\\\\').replace(/:/g, '\\x3a')}'` : lit));
}

const oneLine = (sql: string) => sql.replace(/--[^\n]*/g, '').replace(/\s+/g, ' ').trim();
const isAnswerInsert = (text: string) => /^\s*INSERT INTO answer\b/.test(text);

/**
 * pgbench scripts (file@weight) replaying the recorded requests: one script per sequence of
 * statements, its values in a table `bench_bare_<n>` of the database. Each answer row is a new
 * one (a fresh id), as the API's are.
 */
export async function bareScripts(pool: Pool, requests: Statement[][], dir: string): Promise<string[]> {
  mkdirSync(dir, { recursive: true });
  const groups = new Map<string, Statement[][]>();
  for (const r of requests) {
    // same texts, and nulls in the same places (a null is written into the statement)
    const signature = r.map((s) => `${s.text}\u0000${s.values.map((v) => (asText(v) === null ? 'n' : 'v')).join('')}`).join('\u0001');
    groups.set(signature, [...(groups.get(signature) ?? []), r]);
  }
  const args: string[] = [];
  let g = 0;
  for (const rows of groups.values()) {
    const table = `bench_bare_${g++}`;
    const columns: string[] = [];
    const lines = ['\\set i random(1, :rows)'.replace(':rows', String(rows.length))];
    const statements = rows[0].map((s, si) => {
      const text = s.text.replace(/\$(\d+)/g, (_m, n) => {
        const k = Number(n) - 1;
        if (asText(s.values[k]) === null) return 'NULL';
        if (isAnswerInsert(s.text) && k === 0) return `('ans_' || gen_random_uuid())`;
        const column = `v${si}_${k}`;
        if (!columns.includes(column)) columns.push(column);
        return `:${column}`;
      });
      return `${pgbenchSafe(oneLine(text))};`;
    });
    await pool.query(`DROP TABLE IF EXISTS ${table}`);
    await pool.query(`CREATE TABLE ${table} (i int PRIMARY KEY${columns.map((c) => `, ${c} text`).join('')})`);
    for (const [i, r] of rows.entries()) {
      const values = columns.map((c) => {
        const [si, k] = c.slice(1).split('_').map(Number);
        return asText(r[si].values[k]);
      });
      await pool.query(`INSERT INTO ${table} VALUES ($1${values.map((_, j) => `, $${j + 2}`).join('')})`, [i + 1, ...values]);
    }
    if (columns.length) lines.push(`SELECT ${columns.join(', ')} FROM ${table} WHERE i = :i \\gset`);
    lines.push(...statements);
    const file = join(dir, `${table}.sql`);
    writeFileSync(file, `${lines.join('\n')}\n`);
    args.push('-f', `${file}@${rows.length}`);
  }
  return args;
}
