// `landlex ingest` as a real child process, and the means to kill it at a chosen point: the test
// holds a PostgreSQL lock the ingest will need next (a table, a row), waits until the ingest's
// session is seen waiting on it, and sends SIGKILL.
import type { IngestSummary } from '../../bin/ingest.ts';
import type { Pool } from '../../store/db.ts';
import { childEnv, type LandlexProcess, spawnLandlex } from './process.ts';

export type IngestProcess = LandlexProcess;

export function spawnIngest(env: Record<string, string>, args: string[]): IngestProcess {
  return spawnLandlex(['ingest', ...args], childEnv({ LOG_LEVEL: 'error', ...env }));
}

/** Run `landlex ingest … --json` to the end: its exit code and the summary it printed. */
export async function ingestToEnd(env: Record<string, string>, args: string[]): Promise<{ code: number | null; summary: IngestSummary | null; output: string }> {
  const run = spawnIngest(env, [...args, '--json']);
  const { code } = await run.exited;
  let summary: IngestSummary | null = null;
  try {
    summary = JSON.parse(run.stdout());
  } catch {
    summary = null;
  }
  return { code, summary, output: run.output() };
}

/** SIGKILL the process once `probe` holds (polled); fails if the process ends first or it takes over `ms`. */
export async function killWhen(run: IngestProcess, what: string, probe: () => Promise<boolean>, ms = 120_000): Promise<Date> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (!run.alive()) throw new Error(`the ingest ended before ${what}:\n${run.output()}`);
    if (await probe()) break;
    if (Date.now() > deadline) {
      run.proc.kill('SIGKILL');
      throw new Error(`timed out waiting for ${what}:\n${run.output()}`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  run.proc.kill('SIGKILL');
  const killedAt = new Date();
  const { signal } = await run.exited;
  if (signal !== 'SIGKILL') throw new Error(`the ingest ended by itself (${signal}) before it was killed at ${what}`);
  return killedAt;
}

/** Whether some session of this database waits for a lock on the table. */
export async function waitingOn(pool: Pool, table: string): Promise<boolean> {
  const { rows } = await pool.query(
    `SELECT 1 FROM pg_locks WHERE relation = $1::regclass AND NOT granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
    [table],
  );
  return rows.length > 0;
}

/** Whether some session of this database waits for a row lock held by `pid` (a tuple or transaction lock). */
export async function waitingOnSession(pool: Pool, pid: number): Promise<boolean> {
  const { rows } = await pool.query(`SELECT 1 FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid)) AND datname = current_database()`, [pid]);
  return rows.length > 0;
}

/** Wait until no session holds a knowledge load's lock (the killed session is gone). */
export async function loadSessionsGone(pool: Pool, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    const { rows } = await pool.query(
      `SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND classid = 7301101 AND granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
    );
    if (rows.length === 0) return;
    if (Date.now() > deadline) throw new Error('a killed load session still holds its lock');
    await new Promise((r) => setTimeout(r, 50));
  }
}
