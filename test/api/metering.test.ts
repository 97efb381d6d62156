// Metering through the real HTTP stack and PostgreSQL: exact counts under concurrency, 402 takes
// nothing, failures give credit back, dry runs price without charging, 429 is free, repeats within
// the window are free, idempotency replays, and leased credit comes back on shutdown or expiry.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { sweepExpiredLeases } from '../../api/metering/bank.ts';
import type { Route } from '../../api/route.ts';
import { allRoutes } from '../../api/routes/index.ts';
import type { RunningServer } from '../../api/server.ts';
import { ApiError } from '../../core/errors.ts';
import { call, createTestOrg, keyChangeHeard, startTestServer } from '../helpers/server.ts';

// Probe routes: the real dispatch, meter and database behind trivial handlers.
const probes: Route[] = [
  {
    id: 'probePriced', method: 'GET', path: '/probe/priced', summary: 'probe', tag: 'Probe', credential: 'key',
    scope: 'law:read', form: 'plain', dryRun: true, price: { credits: 1, per: 'call', note: 'probe' },
    handler: async () => ({ item: { ok: true } }),
  },
  {
    id: 'probeFails', method: 'GET', path: '/probe/fails', summary: 'probe', tag: 'Probe', credential: 'key',
    form: 'plain', price: { credits: 3, per: 'call', note: 'probe' }, refuses: ['not_available'],
    handler: async () => {
      throw new ApiError('not_available', { detail: 'probe failure' });
    },
  },
  {
    id: 'probeItems', method: 'GET', path: '/probe/items', summary: 'probe', tag: 'Probe', credential: 'key', form: 'plain',
    params: [{ name: 'k', in: 'query', type: 'array' }], dryRun: true, collection: true, response: { type: 'string' },
    price: { credits: 1, per: 'item', repeatFreeHours: 24, note: 'probe', estimateUnits: (req) => (req.params.k ?? []).length },
    handler: async (req) => ({ item: req.params.k, charge: { keys: req.params.k } }),
  },
  {
    id: 'probeCreate', method: 'POST', path: '/probe/thing', summary: 'probe', tag: 'Probe', credential: 'key', form: 'plain',
    status: 201, idempotent: true, body: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'], additionalProperties: false },
    handler: async (req) => ({ item: { name: req.body.name, serial: Math.random().toString(36).slice(2) } }),
  },
];

// The credit tests fire hundreds of calls at once: the rate limit is tested on its own below.
const UNLIMITED = { RATE_LIMIT_PER_SECOND: '100000' };
let server: RunningServer;
const pool = () => server.services.pool;

async function balances(org: string) {
  await server.services.meter.flush();
  const { rows } = await pool().query('SELECT balance, available FROM credit_account WHERE organization_id = $1', [org]);
  return rows[0] as { balance: number; available: number };
}

beforeAll(async () => {
  server = await startTestServer(UNLIMITED, [...allRoutes, ...probes]);
});
afterAll(async () => {
  await server.close();
});

describe('credit', () => {
  test('200 concurrent priced calls on a balance of 100: exactly 100 answers, 100 refusals, balance 0', async () => {
    const org = await createTestOrg(server, 100);
    const results = await Promise.all(Array.from({ length: 200 }, () => call(server, 'GET', '/probe/priced', { key: org.apiKey })));
    const ok = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.status === 402);
    expect(ok).toHaveLength(100);
    expect(refused).toHaveLength(100);
    expect(refused[0].body.detail.error.code).toBe('quota_exhausted');
    expect(refused.every((r) => r.body.item === undefined)).toBe(true);
    expect(ok.every((r) => r.body.meta.cost === '1')).toBe(true);
    expect(await balances(org.organizationId)).toEqual({ balance: 0, available: 0 });
    const { rows } = await pool().query(
      `SELECT sum(amount)::int AS spent FROM credit_ledger WHERE organization_id = $1 AND kind = 'usage'`,
      [org.organizationId],
    );
    expect(rows[0].spent).toBe(-100);
  });

  test('the same holds on a real priced route: 200 concurrent GET /jurisdiction on a balance of 100', async () => {
    const org = await createTestOrg(server, 100);
    const results = await Promise.all(Array.from({ length: 200 }, () => call(server, 'GET', '/jurisdiction?size=1', { key: org.apiKey })));
    expect(results.filter((r) => r.status === 200)).toHaveLength(100);
    expect(results.filter((r) => r.status === 402)).toHaveLength(100);
    expect((await balances(org.organizationId)).balance).toBe(0);
  });

  test('a dry run of a list without an envelope still states its price', async () => {
    const org = await createTestOrg(server, 5);
    const r = await call(server, 'GET', '/jurisdiction?dry_run=true', { key: org.apiKey });
    expect(r.status).toBe(200);
    expect(r.body.meta.cost_estimate).toBe(1);
    expect((await balances(org.organizationId)).balance).toBe(5);
  });

  test('two API processes on one organization still answer exactly the balance', async () => {
    const second = await startTestServer(UNLIMITED, [...allRoutes, ...probes]);
    try {
      const org = await createTestOrg(server, 60);
      const calls = Array.from({ length: 150 }, (_, i) => call(i % 2 ? server : second, 'GET', '/probe/priced', { key: org.apiKey }));
      const results = await Promise.all(calls);
      expect(results.filter((r) => r.status === 200)).toHaveLength(60);
      expect(results.filter((r) => r.status === 402)).toHaveLength(90);
      await second.services.meter.flush();
      expect((await balances(org.organizationId)).balance).toBe(0);
    } finally {
      await second.close();
    }
  });

  test('a 402 takes nothing and is recorded as a refused call', async () => {
    const org = await createTestOrg(server, 0);
    const r = await call(server, 'GET', '/probe/priced', { key: org.apiKey });
    expect(r.status).toBe(402);
    expect(await balances(org.organizationId)).toEqual({ balance: 0, available: 0 });
    const { rows } = await pool().query('SELECT status, credits FROM usage_event WHERE organization_id = $1', [org.organizationId]);
    expect(rows).toEqual([{ status: 402, credits: 0 }]);
  });

  test('a call that fails gives its credit back', async () => {
    const org = await createTestOrg(server, 10);
    const r = await call(server, 'GET', '/probe/fails', { key: org.apiKey });
    expect(r.status).toBe(501);
    expect((await balances(org.organizationId)).balance).toBe(10);
  });

  test('dry_run prices and scopes without answering or charging', async () => {
    const org = await createTestOrg(server, 10);
    const r = await call(server, 'GET', '/probe/items?k=a,b,c&dry_run=true', { key: org.apiKey });
    expect(r.status).toBe(200);
    expect(r.body.request.dry_run).toBe(true);
    expect(r.body.item).toBeNull();
    expect(r.body.meta.cost_estimate).toBe(3);
    expect((await balances(org.organizationId)).balance).toBe(10);
    await pool().query(`UPDATE api_key SET scopes = '{place:read}' WHERE organization_id = $1`, [org.organizationId]);
    await keyChangeHeard(server, org.apiKey);
    const scoped = await call(server, 'GET', '/probe/priced?dry_run=true', { key: org.apiKey });
    expect(scoped.status).toBe(403);
    expect(scoped.body.detail.error.code).toBe('scope_missing');
  });

  test('per-item prices: repeats within the window are free, new items are charged', async () => {
    const org = await createTestOrg(server, 10);
    const first = await call(server, 'GET', '/probe/items?k=p1&k=p2', { key: org.apiKey });
    expect(first.body.meta.cost).toBe('2');
    const again = await call(server, 'GET', '/probe/items?k=p2,p1', { key: org.apiKey });
    expect(again.body.meta.cost).toBe('0');
    const more = await call(server, 'GET', '/probe/items?k=p1,p3', { key: org.apiKey });
    expect(more.body.meta.cost).toBe('1');
    expect((await balances(org.organizationId)).balance).toBe(7);
  });

  test('credit leased by a process that died comes back when its lease expires', async () => {
    const org = await createTestOrg(server, 40);
    await call(server, 'GET', '/probe/priced', { key: org.apiKey });
    await server.services.meter.flush();
    const before = await balances(org.organizationId);
    expect(before.balance).toBe(39);
    expect(before.available).toBeLessThan(39); // some credit sits in this process's lease
    // Pretend the holder crashed: its lease is long expired and nobody settles it but the sweeper.
    await pool().query(`UPDATE credit_lease SET expires_at = now() - interval '1 hour', holder = 'dead' WHERE organization_id = $1`, [org.organizationId]);
    await sweepExpiredLeases(pool());
    expect((await pool().query('SELECT available FROM credit_account WHERE organization_id = $1', [org.organizationId])).rows[0].available).toBe(39);
  });

  test('stopping a server gives every unspent leased credit back', async () => {
    const other = await startTestServer(UNLIMITED, [...allRoutes, ...probes]);
    const org = await createTestOrg(server, 50);
    for (let i = 0; i < 5; i++) expect((await call(other, 'GET', '/probe/priced', { key: org.apiKey })).status).toBe(200);
    await other.close();
    const { rows } = await pool().query('SELECT balance, available FROM credit_account WHERE organization_id = $1', [org.organizationId]);
    expect(rows[0]).toEqual({ balance: 45, available: 45 });
  });
});

describe('rate limit', () => {
  test('429 with Retry-After past the limit, and 429s are not charged', async () => {
    const limited = await startTestServer({ RATE_LIMIT_PER_SECOND: '5', RATE_LIMIT_BURST: '5' }, [...allRoutes, ...probes]);
    try {
      const org = await createTestOrg(limited, 100);
      const results = await Promise.all(Array.from({ length: 30 }, () => call(limited, 'GET', '/probe/priced', { key: org.apiKey })));
      const ok = results.filter((r) => r.status === 200).length;
      const limitedCalls = results.filter((r) => r.status === 429);
      expect(limitedCalls.length).toBeGreaterThan(0);
      expect(ok + limitedCalls.length).toBe(30);
      expect(limitedCalls[0].headers.get('retry-after')).toMatch(/^\d+$/);
      expect(limitedCalls[0].body.detail.error.code).toBe('rate_limited');
      await limited.services.meter.flush();
      const { rows } = await limited.services.pool.query('SELECT balance FROM credit_account WHERE organization_id = $1', [org.organizationId]);
      expect(rows[0].balance).toBe(100 - ok);
    } finally {
      await limited.close();
    }
  });
});

describe('idempotency', () => {
  test('the first response is replayed; another body with the same key is refused', async () => {
    const org = await createTestOrg(server, 10);
    const headers = { 'Idempotency-Key': 'make-thing-1' };
    const first = await call(server, 'POST', '/probe/thing', { key: org.apiKey, body: { name: 'a' }, headers });
    expect(first.status).toBe(201);
    const again = await call(server, 'POST', '/probe/thing', { key: org.apiKey, body: { name: 'a' }, headers });
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const other = await call(server, 'POST', '/probe/thing', { key: org.apiKey, body: { name: 'b' }, headers });
    expect(other.status).toBe(422);
    expect(other.body.detail.error).toMatchObject({ code: 'idempotency_key_reused', field: 'Idempotency-Key' });
    // another organization's identical key is its own
    const org2 = await createTestOrg(server, 10);
    const theirs = await call(server, 'POST', '/probe/thing', { key: org2.apiKey, body: { name: 'b' }, headers });
    expect(theirs.status).toBe(201);
    expect(theirs.body.item.serial).not.toBe(first.body.item.serial);
  });

  test('a key older than 24 hours no longer replays', async () => {
    const org = await createTestOrg(server, 10);
    const headers = { 'Idempotency-Key': 'old-key' };
    const first = await call(server, 'POST', '/probe/thing', { key: org.apiKey, body: { name: 'x' }, headers });
    await pool().query(`UPDATE idempotency_record SET created_at = now() - interval '25 hours' WHERE organization_id = $1`, [org.organizationId]);
    const later = await call(server, 'POST', '/probe/thing', { key: org.apiKey, body: { name: 'x' }, headers });
    expect(later.status).toBe(201);
    expect(later.body.item.serial).not.toBe(first.body.item.serial);
  });
});

describe('bodies', () => {
  test('malformed JSON is 400, a schema violation 422 naming the field, an oversized body 413', async () => {
    const org = await createTestOrg(server, 10);
    const bad = await call(server, 'POST', '/probe/thing', { key: org.apiKey, body: '{"name": ' });
    expect(bad.status).toBe(400);
    expect(bad.body.detail.error).toMatchObject({ code: 'body_malformed', field: 'body' });
    const wrong = await call(server, 'POST', '/probe/thing', { key: org.apiKey, body: { name: 3 } });
    expect(wrong.status).toBe(422);
    expect(wrong.body.detail.error).toMatchObject({ code: 'parameter_invalid', field: 'name' });
    const extra = await call(server, 'POST', '/probe/thing', { key: org.apiKey, body: { name: 'n', colour: 'red' } });
    expect(extra.body.detail.error.field).toBe('colour');
    const big = await call(server, 'POST', '/probe/thing', { key: org.apiKey, body: { name: 'x'.repeat(2_000_000) } });
    expect(big.status).toBe(413);
    expect(big.body.detail.error.code).toBe('body_too_large');
  });
});
