// Durable delivery: `landlex serve` killed (SIGKILL) between attempts and started again sends the
// rest from the outbox: every event once (one 2xx per webhook-id), in order, none lost.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { orgCreate } from '../../bin/org.ts';
import { createPool, type Pool } from '../../store/db.ts';
import { enqueueEvent } from '../../store/webhooks/outbox.ts';
import { freshDatabase } from '../helpers/databases.ts';
import { type ServeProcess, spawnServe } from '../helpers/process.ts';
import { type Receiver, startReceiver } from '../helpers/receiver.ts';
import { call } from '../helpers/server.ts';

let db: Awaited<ReturnType<typeof freshDatabase>>;
let pool: Pool;
let receiver: Receiver;
const serves: ServeProcess[] = [];
const env = () => ({ DATABASE_URL: db.url, WEBHOOK_TIMEOUT_MS: '1000', RATE_LIMIT_PER_SECOND: '100000' });

beforeAll(async () => {
  db = await freshDatabase('webhook_restart');
  pool = createPool(db.url);
  // the first two calls fail, then every call succeeds
  receiver = await startReceiver((n) => (n < 2 ? 500 : 200));
});
afterAll(async () => {
  for (const s of serves) if (s.alive()) s.proc.kill('SIGKILL');
  await receiver?.close();
  await pool?.end();
  await db?.drop();
});

async function attempts(): Promise<number> {
  const { rows } = await pool.query('SELECT count(*)::int AS n FROM webhook_attempt');
  return rows[0].n;
}

describe('a process killed between attempts', () => {
  test('restarted, it delivers the rest exactly once and in order', async () => {
    const org = await orgCreate(pool, { name: 'Restart org', credits: 100 });
    const first = await spawnServe(env());
    serves.push(first);
    const made = await call(first.base, 'POST', '/webhook', { key: org.api_key, body: { url: receiver.url, event_type: ['permit.created'], retry_policy: { backoff: 'fixed', base_seconds: 3, jitter: false } } });
    expect(made.status).toBe(201);
    for (let n = 1; n <= 5; n++) await enqueueEvent(pool, { organizationId: org.organization_id, type: 'permit.created', data: { n } });

    // the first attempt fails and is recorded; the process dies during the wait before the second
    for (let i = 0; i < 400 && (await attempts()) < 1; i++) await new Promise((r) => setTimeout(r, 25));
    expect(await attempts()).toBe(1);
    first.proc.kill('SIGKILL');
    await first.exited;
    expect(receiver.calls).toHaveLength(1);

    const second = await spawnServe(env());
    serves.push(second);
    await receiver.until(() => receiver.delivered().length === 5, 60_000);
    await new Promise((r) => setTimeout(r, 1500)); // nothing further arrives
    expect(receiver.delivered().map((c) => c.json.data.n)).toEqual([1, 2, 3, 4, 5]);
    expect(new Set(receiver.delivered().map((c) => c.headers['webhook-id'])).size).toBe(5);
    expect(receiver.calls).toHaveLength(7);
    const { rows } = await pool.query(`SELECT state, count(*)::int AS n FROM webhook_delivery GROUP BY state`);
    expect(rows).toEqual([{ state: 'succeeded', n: 5 }]);
    second.proc.kill('SIGTERM');
    await second.exited;
  });
});
