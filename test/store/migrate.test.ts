// The migration runner: applies numbered files in order once, applies nothing when run again, and
// refuses a file edited after it was applied (nothing else is applied in that run).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createPool, dropDatabase, ensureDatabase, type Pool } from '../../store/db.ts';
import { migrate, readMigrations } from '../../store/migrate.ts';
import { databaseUrl } from '../helpers/databases.ts';
import { testDatabaseUrl } from '../helpers/server.ts';

let dir: string;
let url: string;
let pool: Pool;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'landlex-migrations-'));
  url = databaseUrl(`landlex_t_migrate_${process.pid}_${Date.now().toString(36)}`);
  await ensureDatabase(url); // empty: no template, no schema_migration
  pool = createPool(url, { max: 2 });
});
afterAll(async () => {
  await pool?.end();
  await dropDatabase(url);
  await rm(dir, { recursive: true, force: true });
});

test('the real migrations, run again on a migrated database, apply nothing', async () => {
  const real = createPool(testDatabaseUrl(), { max: 1 });
  try {
    const out = await migrate(real);
    const all = await readMigrations();
    expect(out).toEqual({ applied: [], current: all[all.length - 1].version });
  } finally {
    await real.end();
  }
});

test('files apply once in order; a second run applies nothing; an edited applied file is refused', async () => {
  await writeFile(join(dir, '001_first.sql'), 'CREATE TABLE mig_a (id int);');
  await writeFile(join(dir, '002_second.sql'), 'INSERT INTO mig_a VALUES (1);');
  await writeFile(join(dir, 'notes.txt'), 'not a migration');
  expect(await migrate(pool, dir)).toEqual({ applied: ['001_first.sql', '002_second.sql'], current: 2 });
  expect(await migrate(pool, dir)).toEqual({ applied: [], current: 2 });
  expect((await pool.query('SELECT count(*)::int AS n FROM mig_a')).rows[0].n).toBe(1);

  // edit an applied file and add a new one: the run refuses, naming the file, and applies neither
  await writeFile(join(dir, '001_first.sql'), 'CREATE TABLE mig_a (id int, extra text);');
  await writeFile(join(dir, '003_third.sql'), 'CREATE TABLE mig_c (id int);');
  await expect(migrate(pool, dir)).rejects.toThrow('Migration 001_first.sql was changed after it was applied; add a new migration instead');
  const { rows } = await pool.query(`SELECT name FROM schema_migration ORDER BY version`);
  expect(rows.map((r) => r.name)).toEqual(['001_first.sql', '002_second.sql']);
  expect((await pool.query(`SELECT to_regclass('mig_c') AS t`)).rows[0].t).toBeNull();

  // a failing migration is rolled back whole and named
  await writeFile(join(dir, '001_first.sql'), 'CREATE TABLE mig_a (id int);');
  await writeFile(join(dir, '003_third.sql'), 'CREATE TABLE mig_c (id int); SELECT no_such_function();');
  await expect(migrate(pool, dir)).rejects.toThrow(/^Migration 003_third\.sql failed: .*no_such_function/);
  expect((await pool.query(`SELECT to_regclass('mig_c') AS t`)).rows[0].t).toBeNull();
  expect((await pool.query('SELECT count(*)::int AS n FROM schema_migration')).rows[0].n).toBe(2);
});

test('two files with one number are refused before anything runs', async () => {
  const twin = await mkdtemp(join(tmpdir(), 'landlex-migrations-twin-'));
  try {
    await writeFile(join(twin, '001_a.sql'), 'SELECT 1;');
    await writeFile(join(twin, '001_b.sql'), 'SELECT 2;');
    await expect(readMigrations(twin)).rejects.toThrow('Two migrations share number 1');
  } finally {
    await rm(twin, { recursive: true, force: true });
  }
});
