// The outbox vacuums its own delivery table every so many outcomes (autovacuum may be off, as it
// is on this machine): the dead versions outcomes leave behind are removed, and a vacuum that
// fails is reported, never thrown.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { orgCreate } from '../../bin/org.ts';
import { newId } from '../../core/ids.ts';
import { readPolicy } from '../../core/webhooks/retry-policy.ts';
import { newSecret } from '../../core/webhooks/signature.ts';
import { createPool, type Pool } from '../../store/db.ts';
import { insertWebhook } from '../../store/webhooks/endpoints.ts';
import { enqueueEvent } from '../../store/webhooks/outbox.ts';
import { outboxTidier } from '../../store/webhooks/tidy.ts';
import { freshDatabase } from '../helpers/databases.ts';

let db: Awaited<ReturnType<typeof freshDatabase>>;
let pool: Pool;

beforeAll(async () => {
  db = await freshDatabase('webhook_tidy');
  pool = createPool(db.url);
});
afterAll(async () => {
  await pool?.end();
  await db?.drop();
});

const deadRows = async () => {
  await pool.query('SELECT pg_stat_clear_snapshot()');
  const { rows } = await pool.query(`SELECT n_dead_tup::int AS dead, vacuum_count::int AS vacuums FROM pg_stat_user_tables WHERE relname = 'webhook_delivery'`);
  return rows[0] as { dead: number; vacuums: number };
};

test('every `every` outcomes the delivery table is vacuumed: the dead versions of finished deliveries are gone', async () => {
  const org = await orgCreate(pool, { name: 'Tidy org', credits: 10 });
  await insertWebhook(pool, { id: newId('webhook'), organizationId: org.organization_id, name: null, url: 'http://192.0.2.1/hook', eventType: ['permit.created'], active: true, secret: newSecret(), policy: readPolicy(null) });
  for (let i = 0; i < 5; i++) await enqueueEvent(pool, { organizationId: org.organization_id, type: 'permit.created', data: { n: i } });
  // five outcomes, as recordAttempt writes them: each leaves a dead version behind (counted in the
  // statistics once this connection flushes them, forced here)
  const client = await pool.connect();
  try {
    for (let i = 0; i < 5; i++) await client.query(`UPDATE webhook_delivery SET state = 'succeeded', finished_at = now() WHERE ord = (SELECT min(ord) FROM webhook_delivery WHERE state = 'pending')`);
    await client.query('SELECT pg_stat_force_next_flush()');
    await client.query('SELECT 1');
  } finally {
    client.release();
  }
  const before = await deadRows();
  expect(before.dead).toBe(5);

  const tidy = outboxTidier(pool, (err) => {
    throw err;
  }, 3);
  tidy.noted();
  tidy.noted();
  await tidy.idle();
  expect((await deadRows()).vacuums).toBe(before.vacuums); // two outcomes: not yet
  tidy.noted();
  await tidy.idle();
  const after = await deadRows();
  expect(after.vacuums).toBe(before.vacuums + 1);
  expect(after.dead).toBe(0);
});

test('a vacuum that fails is reported to onError and the next one is tried later', async () => {
  const closed = createPool(db.url);
  await closed.end();
  const errors: unknown[] = [];
  const tidy = outboxTidier(closed, (err) => errors.push(err), 1);
  tidy.noted();
  await tidy.idle();
  expect(errors).toHaveLength(1);
  expect(String((errors[0] as Error).message)).toMatch(/pool/);
  tidy.noted();
  await tidy.idle();
  expect(errors).toHaveLength(2);
});
