// A load killed with -9 (issue 12, defect 4): its knowledge_load row is settled as abandoned at the
// instant a check finds its session gone, by the API's start-up, the ingest's start-up and the
// next load of its jurisdiction, never at the time of a later reader, so answers at known_as_of
// after a rerun committed show the rerun's data. A real `landlex ingest` of the real Somerville
// ordinance, killed while its code load waits inside its transaction.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RunningServer } from '../../api/server.ts';
import { createPool, type Pool } from '../../store/db.ts';
import { freshDatabase } from '../helpers/databases.ts';
import { ingestToEnd, killWhen, loadSessionsGone, spawnIngest, waitingOn } from '../helpers/ingest-process.ts';
import { call, createTestOrg, startTestServer } from '../helpers/server.ts';

let db: Awaited<ReturnType<typeof freshDatabase>>;
let dir: string;
let pool: Pool;
let env: Record<string, string>;

beforeAll(async () => {
  db = await freshDatabase('crashed_load');
  dir = await mkdtemp(join(tmpdir(), 'landlex-crash-'));
  pool = createPool(db.url, { max: 3 });
  env = { DATABASE_URL: db.url, BLOB_DIR: join(dir, 'blobs') };
});
afterAll(async () => {
  await pool?.end();
  await db?.drop();
  await rm(dir, { recursive: true, force: true });
});

/** Start `landlex ingest somerville-ma` and kill it while its code load waits to write controls, inside its transaction. */
async function crashMidLoad(): Promise<Date> {
  const hold = await pool.connect();
  try {
    await hold.query('BEGIN');
    await hold.query('LOCK TABLE control IN SHARE MODE'); // the load's INSERT into control waits for it
    const run = spawnIngest(env, ['somerville-ma', '--json']);
    const killedAt = await killWhen(run, 'the code load waiting to write controls', () => waitingOn(pool, 'control'));
    await hold.query('COMMIT');
    return killedAt;
  } finally {
    await hold.query('ROLLBACK').catch(() => {});
    hold.release();
  }
}

/** The code loads after load `after` (an id), in order. */
const codeLoads = async (after = 0) =>
  (
    await pool.query(
      `SELECT id, outcome, settled_at, detected_at, to_char(settled_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS settled_iso
         FROM knowledge_load WHERE label LIKE 'zoning-ordinance %' AND id > $1 ORDER BY id`,
      [after],
    )
  ).rows;
const lastLoad = async () => Number((await pool.query('SELECT COALESCE(max(id), 0) AS n FROM knowledge_load')).rows[0].n);

describe('a load killed with -9', () => {
  test("is settled by the API's start-up at the instant it finds the session gone", async () => {
    const killedAt = await crashMidLoad();
    await loadSessionsGone(pool);
    const [dead] = await codeLoads();
    expect(dead).toMatchObject({ outcome: null, settled_at: null });
    const before = new Date();
    const server = await startTestServer({ DATABASE_URL: db.url });
    const started = new Date();
    await server.close();
    const [settled] = await codeLoads();
    expect(settled.outcome).toBe('abandoned');
    expect(settled.settled_at.getTime()).toBeGreaterThan(killedAt.getTime());
    expect(settled.settled_at.getTime()).toBeGreaterThanOrEqual(before.getTime() - 5);
    expect(settled.settled_at.getTime()).toBeLessThanOrEqual(started.getTime());
  });

  test('ends its session within seconds, even while its statement still waits for a lock', async () => {
    const hold = await pool.connect();
    try {
      await hold.query('BEGIN');
      await hold.query('LOCK TABLE control IN SHARE MODE');
      const run = spawnIngest(env, ['somerville-ma', '--json']);
      await killWhen(run, 'the code load waiting to write controls', () => waitingOn(pool, 'control'));
      // the lock is still held, so the statement still waits: the server notices the dead client
      await loadSessionsGone(pool, 5_000);
      expect(await waitingOn(pool, 'control')).toBe(false);
    } finally {
      await hold.query('ROLLBACK').catch(() => {});
      hold.release();
    }
  });

  test('is settled by the rerun before its own loads; answers between the rerun\'s commit and a later read show the rerun\'s data', async () => {
    const from = await lastLoad();
    const killedAt = await crashMidLoad();
    await loadSessionsGone(pool);
    // a dead load of another jurisdiction: the ingest's start-up settles every one it finds
    const elsewhere = (await pool.query(`INSERT INTO knowledge_load (label, jurisdiction_ids, detected_at) VALUES ('elsewhere', '{jur_test_elsewhere}', now() - interval '1 minute') RETURNING id`)).rows[0].id;
    const rerun = await ingestToEnd(env, ['somerville-ma']);
    expect(rerun.code, rerun.output).toBe(0);
    expect(rerun.summary?.totals).toMatchObject({ loaded: 1, failed: 0 });
    const [dead, done] = await codeLoads(from);
    expect(dead.outcome).toBe('abandoned');
    expect(dead.settled_at.getTime()).toBeGreaterThan(killedAt.getTime());
    expect(dead.settled_at.getTime()).toBeLessThan(done.detected_at.getTime());
    expect(done.outcome).toBe('committed');
    expect((await pool.query('SELECT outcome FROM knowledge_load WHERE id = $1', [elsewhere])).rows[0].outcome).toBe('abandoned');

    // T: just after the rerun's code load settled; read later
    const T = new Date(done.settled_at.getTime() + 1).toISOString();
    await new Promise((r) => setTimeout(r, 50));
    let server: RunningServer | null = null;
    try {
      server = await startTestServer({ DATABASE_URL: db.url, RATE_LIMIT_PER_SECOND: '100000' });
      const { apiKey } = await createTestOrg(server, 100);
      const r = await call(server, 'GET', `/jurisdiction/somerville-ma/district/NR?include=control&known_as_of=${T}`, { key: apiKey });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(new Date(r.body.as_of.known_as_of).getTime()).toBe(new Date(T).getTime()); // answered at T itself, not clamped to before the crash
      type Control = { building_type: string | null; control_type: string; qualifier: string | null; min: number };
      const front = (r.body.item.control as Control[]).find((c) => c.building_type === 'Cottage' && c.control_type === 'dimensional.setback_front' && c.qualifier === null);
      expect(front?.min).toBe(10);
      expect(r.body.notice ?? []).toEqual([]);
    } finally {
      await server?.close();
    }
    // and the dead load's window stayed as the rerun left it
    const [after] = await codeLoads(from);
    expect(after.settled_iso).toBe(dead.settled_iso);
  });
});
