// Migrations: numbered plain .sql files in sql/migrations, applied in order, each in its own
// transaction, recorded with its sha256 so an edited, already-applied file is refused.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sha256Hex } from '../core/ids.ts';
import type { Pool } from './db.ts';

export const MIGRATIONS_DIR = fileURLToPath(new URL('../sql/migrations/', import.meta.url));
const LOCK_KEY = 7_301_001; // advisory lock: one migrator at a time

export interface Migration {
  version: number;
  name: string;
  sql: string;
  sha256: string;
}

export async function readMigrations(dir = MIGRATIONS_DIR): Promise<Migration[]> {
  const files = (await readdir(dir)).filter((f) => /^\d{3,}_[\w-]+\.sql$/.test(f)).sort();
  const out: Migration[] = [];
  for (const file of files) {
    const sql = await readFile(join(dir, file), 'utf8');
    out.push({ version: Number(file.split('_')[0]), name: file, sql, sha256: sha256Hex(sql) });
  }
  const seen = new Set<number>();
  for (const m of out) {
    if (seen.has(m.version)) throw new Error(`Two migrations share number ${m.version}`);
    seen.add(m.version);
  }
  return out;
}

export async function migrate(pool: Pool, dir = MIGRATIONS_DIR): Promise<{ applied: string[]; current: number }> {
  const migrations = await readMigrations(dir);
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [LOCK_KEY]);
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migration (
      version integer PRIMARY KEY, name text NOT NULL, sha256 text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now())`);
    const done = new Map<number, { name: string; sha256: string }>();
    for (const row of (await client.query('SELECT version, name, sha256 FROM schema_migration')).rows) {
      done.set(row.version, row);
    }
    const applied: string[] = [];
    for (const m of migrations) {
      const prior = done.get(m.version);
      if (prior) {
        if (prior.sha256 !== m.sha256) {
          throw new Error(`Migration ${m.name} was changed after it was applied; add a new migration instead`);
        }
        continue;
      }
      await client.query('BEGIN');
      try {
        await client.query(m.sql);
        await client.query('INSERT INTO schema_migration (version, name, sha256) VALUES ($1, $2, $3)', [m.version, m.name, m.sha256]);
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK');
        throw new Error(`Migration ${m.name} failed: ${(err as Error).message}`);
      }
      applied.push(m.name);
    }
    const current = migrations.length ? migrations[migrations.length - 1].version : 0;
    return { applied, current };
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [LOCK_KEY]).catch(() => {});
    client.release();
  }
}
