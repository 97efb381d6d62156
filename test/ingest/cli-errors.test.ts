// The CLI's refusals of the operator's input and environment: one line naming what to do, exit
// code 2, no stack trace. Real PostgreSQL: a database that does not exist, one not migrated, and
// a migrated one asked for a jurisdiction without a manifest.
import { spawn } from 'node:child_process';
import pg from 'pg';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { databaseUrl, freshDatabase } from '../helpers/databases.ts';

let migrated: { url: string; drop: () => Promise<void> };
const empty = `landlex_t_cli_empty_${process.pid}`;

function run(args: string[], url: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('./bin/landlex.js', args, { env: { ...process.env, DATABASE_URL: url, LOG_LEVEL: 'error' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b) => (stdout += b));
    child.stderr.on('data', (b) => (stderr += b));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

async function admin(sql: string) {
  const c = new pg.Client({ connectionString: databaseUrl('postgres') });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

beforeAll(async () => {
  migrated = await freshDatabase('cli_errors');
  await admin(`DROP DATABASE IF EXISTS ${empty}`);
  await admin(`CREATE DATABASE ${empty}`);
}, 60_000);
afterAll(async () => {
  await migrated?.drop();
  await admin(`DROP DATABASE IF EXISTS ${empty}`);
});

const oneLine = (s: string) => s.trim().split('\n');

test('an unknown jurisdiction: one line listing the known ones', async () => {
  const r = await run(['ingest', 'nowhere-zz'], migrated.url);
  expect(r.code).toBe(2);
  expect(oneLine(r.stderr)).toEqual([expect.stringMatching(/^landlex ingest: no manifest for nowhere-zz in \S+; the known jurisdictions are .*cambridge-ma.*somerville-ma/)]);
}, 60_000);

test('a database that does not exist names landlex migrate', async () => {
  const r = await run(['ingest', 'cambridge-ma'], databaseUrl(`landlex_t_absent_${process.pid}`));
  expect(r.code).toBe(2);
  expect(oneLine(r.stderr)).toEqual([expect.stringMatching(/^landlex: the database does not exist \(DATABASE_URL=postgres:\/\/\S+\): run `landlex migrate`/)]);
}, 60_000);

test('a database not migrated names landlex migrate', async () => {
  const r = await run(['org', 'create', '--name', 'X', '--credits', '1'], databaseUrl(empty));
  expect(r.code).toBe(2);
  expect(oneLine(r.stderr)).toEqual([expect.stringMatching(/^landlex org create: the database is not migrated \(relation "\w+" does not exist; DATABASE_URL=\S+\): run `landlex migrate`$/)]);
  const ingest = await run(['ingest', 'cambridge-ma'], databaseUrl(empty));
  expect(ingest.code).toBe(2);
  expect(oneLine(ingest.stderr)).toEqual([expect.stringMatching(/^landlex: the database is not migrated \(.*\): run `landlex migrate`$/)]);
}, 60_000);

test('an unreachable server says so', async () => {
  const r = await run(['ingest', 'cambridge-ma'], 'postgres://postgres@127.0.0.1:1/landlex');
  expect(r.code).toBe(2);
  expect(oneLine(r.stderr)).toEqual([expect.stringMatching(/^landlex: cannot reach PostgreSQL \(ECONNREFUSED; DATABASE_URL=postgres:\/\/postgres@127\.0\.0\.1:1\/landlex\)/)]);
}, 60_000);

test('org create requires --credits', async () => {
  const r = await run(['org', 'create', '--name', 'X'], migrated.url);
  expect(r.code).not.toBe(0);
  expect(r.stderr).toMatch(/required option '--credits <n>' not specified/);
  expect(r.stdout).toBe('');
}, 60_000);
