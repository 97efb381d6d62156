// The API as a real process under faults: a failed priced call returns its leased credit without
// ending the process (issue 12, defect 1), and a process killed under traffic loses no credit.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { orgCreate } from '../../bin/org.ts';
import { createPool, type Pool } from '../../store/db.ts';
import { type ServeProcess, spawnServe } from '../helpers/process.ts';
import { call, testDatabaseUrl } from '../helpers/server.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(what: string, ms: number, probe: () => Promise<T | null | undefined | false>): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(200);
  }
}

const errorsIn = (s: ServeProcess) => s.records().filter((r) => r.level === 'error');

let pool: Pool;
beforeAll(() => {
  pool = createPool(testDatabaseUrl(), { max: 2 });
});
afterAll(async () => {
  await pool.end();
});

describe('a failed priced call (issue 12, defect 1)', () => {
  let serve: ServeProcess;
  afterAll(() => {
    if (serve?.alive()) serve.proc.kill('SIGKILL');
  });

  test('gives its whole lease back when the lease retires, and the process keeps serving with the balance exact', async () => {
    // a 20 s lease retires 15 s before it ends: 5 s after the first call
    serve = await spawnServe({ DATABASE_URL: testDatabaseUrl(), CREDIT_LEASE_SECONDS: '20' });
    const org = await orgCreate(pool, { name: 'Failed call co', credits: 10, email: `fail-${Date.now()}@example.test`, password: 'a-long-enough-password-1' });
    const key = org.api_key;
    const missing = await call(serve.base, 'GET', '/jurisdiction/no-such-town', { key });
    expect(missing.status).toBe(404);
    const lease = await pool.query('SELECT id, amount FROM credit_lease WHERE organization_id = $1', [org.organization_id]);
    expect(lease.rows).toHaveLength(1); // the call leased credit and spent none
    // the lease retires and shrinks to nothing: every leased credit is available again
    await until('the lease to be given back', 15_000, async () => {
      const { rows } = await pool.query('SELECT l.amount, a.available FROM credit_lease l JOIN credit_account a USING (organization_id) WHERE l.id = $1', [lease.rows[0].id]);
      return Number(rows[0].amount) === 0 && Number(rows[0].available) === 10;
    });
    await sleep(1000); // past the upkeep ticks that follow
    expect(serve.alive()).toBe(true);
    expect((await call(serve.base, 'GET', '/health')).status).toBe(200);
    expect(errorsIn(serve)).toEqual([]);
    expect((await call(serve.base, 'GET', '/credit', { key })).body.item.balance).toBe(10);
    // and a priced call that is answered is charged exactly once
    expect((await call(serve.base, 'GET', '/jurisdiction', { key })).status).toBe(200);
    await until('the spend to be written', 5000, async () => (await call(serve.base, 'GET', '/credit', { key })).body.item.balance === 9);
    const ledger = await pool.query(`SELECT coalesce(sum(amount), 0)::int AS spent FROM credit_ledger WHERE organization_id = $1 AND kind = 'usage'`, [org.organization_id]);
    expect(ledger.rows[0].spent).toBe(-1);
    expect(serve.alive()).toBe(true);
  }, 60_000);
});
