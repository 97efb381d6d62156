// Usage, credit and entitlement over real HTTP and PostgreSQL: the numbers after free, priced and
// refused calls, the ledger that explains the balance, paging, and isolation between organizations.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { PLANS } from '../../api/plans.ts';
import type { RunningServer } from '../../api/server.ts';
import { grantCredit } from '../../store/organizations.ts';
import { type Call, call, createTestOrg, startTestServer } from '../helpers/server.ts';

let server: RunningServer;
const today = () => new Date().toISOString().slice(0, 10);

async function orgWithSession(credits: number) {
  const org = await createTestOrg(server, credits);
  const s = await call(server, 'POST', '/session', { body: { email: org.email, password: org.password, organization_id: org.organizationId } });
  return { ...org, bearer: s.body.item.access_token as string };
}

/** 3 free answers, 4 priced answers (GET /jurisdiction: one credit a page), 1 refusal. */
async function traffic(key: string) {
  for (let i = 0; i < 3; i++) expect((await call(server, 'GET', '/me/actor', { key })).status).toBe(200);
  for (let i = 0; i < 4; i++) {
    expect((await call(server, 'GET', '/jurisdiction?size=1', { key })).status).toBe(200);
  }
  expect((await call(server, 'GET', '/jurisdiction?sise=1', { key })).status).toBe(422);
}

beforeAll(async () => {
  server = await startTestServer({ RATE_LIMIT_PER_SECOND: '100000' });
});
afterAll(async () => {
  await server.close();
});

describe('usage', () => {
  test('requests, credits spent, free requests, daily, by endpoint and by key after real calls', async () => {
    const o = await createTestOrg(server, 50);
    await traffic(o.apiKey);
    const r = await call(server, 'GET', '/usage', { key: o.apiKey });
    expect(r.status).toBe(200);
    const u = r.body.item;
    expect(u).toMatchObject({ organization_id: o.organizationId, requests: 8, credits_spent: 4, free_requests: 3, credit_balance: 46, included_credits: 0 });
    expect(Date.parse(u.until)).toBeLessThanOrEqual(Date.now());
    expect(u.since).toBe(new Date(Date.parse(`${today()}T00:00:00Z`) - 29 * 86_400_000).toISOString());
    expect(u.daily).toHaveLength(30);
    expect(u.daily.at(-1)).toEqual({ day: today(), requests: 8, credits: 4 });
    expect(u.daily.slice(0, -1).every((d: { requests: number }) => d.requests === 0)).toBe(true);
    expect(u.by_endpoint).toEqual([
      { name: 'GET /jurisdiction', requests: 5, credits: 4 },
      { name: 'GET /me/actor', requests: 3, credits: 0 },
    ]);
    expect(u.by_key).toEqual([{ id: expect.stringMatching(/^key_/), kind: 'key', name: 'operator', requests: 8, credits: 4 }]);
  });

  test('days bounds the window; /v1/usage answers the same with object usage_summary', async () => {
    const o = await createTestOrg(server, 10);
    await call(server, 'GET', '/me/actor', { key: o.apiKey });
    const one = await call(server, 'GET', '/usage?days=1', { key: o.apiKey });
    expect(one.body.item.daily).toEqual([{ day: today(), requests: 1, credits: 0 }]);
    for (const bad of ['0', '366', 'x']) {
      const r = await call(server, 'GET', `/usage?days=${bad}`, { key: o.apiKey });
      expect(r.body.detail.error, bad).toMatchObject({ code: 'parameter_invalid', field: 'days' });
    }
    const v1 = await call(server, 'GET', '/v1/usage?days=1', { key: o.apiKey });
    expect(v1.status).toBe(200);
    // the /me/actor call and the first /usage call; the three refusals are not free requests
    expect(v1.body).toMatchObject({ object: 'usage_summary', organization_id: o.organizationId, requests: 5, free_requests: 2, credit_balance: 10 });
    const v1bad = await call(server, 'GET', '/v1/usage?days=0', { key: o.apiKey });
    expect(v1bad.body).toMatchObject({ code: 'parameter_invalid', status: 422 });
  });

  test("calls made with a session count under the person; sessions and keys are told apart", async () => {
    const o = await orgWithSession(5);
    await call(server, 'GET', '/me', { bearer: o.bearer });
    await call(server, 'GET', '/key', { key: o.apiKey });
    const u = (await call(server, 'GET', '/usage', { key: o.apiKey })).body.item;
    expect(u.by_key).toEqual(
      expect.arrayContaining([
        { id: expect.stringMatching(/^usr_/), kind: 'session', name: `session: ${o.email}`, requests: 1, credits: 0 },
        { id: expect.stringMatching(/^key_/), kind: 'key', name: 'operator', requests: 1, credits: 0 },
      ]),
    );
  });
});

describe('credit', () => {
  test('the balance and every move that made it, newest first, each balance_after following from the last', async () => {
    const o = await createTestOrg(server, 50);
    await traffic(o.apiKey);
    await server.services.meter.flush(); // spends are written in batches: write them before the purchase
    await grantCredit(server.services.pool, o.organizationId, 25, 'purchase', { invoice: 'inv-1' });
    const r = await call(server, 'GET', '/credit?limit=200', { key: o.apiKey });
    expect(r.status).toBe(200);
    const c = r.body.item;
    expect(c).toMatchObject({ organization_id: o.organizationId, balance: 71, included_credits: 0 });
    expect(c.entry[0]).toMatchObject({ kind: 'purchase', amount: 25, balance_after: 71, detail: { invoice: 'inv-1' } });
    expect(c.entry.at(-1)).toMatchObject({ kind: 'grant', amount: 50, balance_after: 50 });
    const usage = c.entry.filter((e: { kind: string }) => e.kind === 'usage');
    expect(usage.reduce((s: number, e: { amount: number }) => s + e.amount, 0)).toBe(-4);
    for (let i = 0; i + 1 < c.entry.length; i++) {
      expect(c.entry[i].balance_after - c.entry[i].amount).toBe(c.entry[i + 1].balance_after);
    }
    expect(r.body.page).toEqual({ size: c.entry.length, next_cursor: null });
  });

  test('limit pages through the moves with a cursor; limit and cursor are validated', async () => {
    const o = await createTestOrg(server, 1);
    for (const n of [2, 3, 4]) await grantCredit(server.services.pool, o.organizationId, n, 'adjustment');
    const seen: number[] = [];
    let cursor: string | null = null;
    do {
      const r: Call = await call(server, 'GET', `/credit?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { key: o.apiKey });
      seen.push(...r.body.item.entry.map((e: { amount: number }) => e.amount));
      cursor = r.body.page.next_cursor;
    } while (cursor);
    expect(seen).toEqual([4, 3, 2, 1]);
    for (const q of ['limit=0', 'limit=201', 'cursor=forged.cursor']) {
      const r = await call(server, 'GET', `/credit?${q}`, { key: o.apiKey });
      expect(r.status, q).toBe(422);
    }
    const other = await createTestOrg(server, 1);
    const first = await call(server, 'GET', '/credit?limit=1', { key: o.apiKey });
    const stolen = await call(server, 'GET', `/credit?limit=1&cursor=${encodeURIComponent(first.body.page.next_cursor)}`, { key: other.apiKey });
    expect(stolen.status).toBe(422);
  });

  test('/entitlement: plan features and the balance, for a person', async () => {
    const o = await orgWithSession(12);
    const r = await call(server, 'GET', '/entitlement', { bearer: o.bearer });
    expect(r.status).toBe(200);
    expect(r.body.item).toEqual({ organization_id: o.organizationId, plan: PLANS[0].id, features: PLANS[0].features, credit_balance: 12 });
    expect(Object.values(r.body.item.features).every((v) => typeof v === 'string')).toBe(true);
  });
});

describe('isolation', () => {
  test("an organization's usage and credit never include another's", async () => {
    const a = await createTestOrg(server, 50);
    const b = await createTestOrg(server, 7);
    await traffic(a.apiKey);
    const usageB = (await call(server, 'GET', '/usage', { key: b.apiKey })).body.item;
    expect(usageB).toMatchObject({ organization_id: b.organizationId, requests: 0, credits_spent: 0, credit_balance: 7, by_endpoint: [], by_key: [] });
    const creditB = (await call(server, 'GET', '/credit', { key: b.apiKey })).body.item;
    expect(creditB).toMatchObject({ organization_id: b.organizationId, balance: 7 });
    expect(creditB.entry).toEqual([expect.objectContaining({ kind: 'grant', amount: 7 })]);
    const usageA = (await call(server, 'GET', '/usage', { key: a.apiKey })).body.item;
    expect(usageA.requests).toBe(8);
  });
});
