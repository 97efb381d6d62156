// A 402 changes nothing (a place batch the balance cannot cover leaves no rows and takes no
// credit; a handler charged after it answers cannot write before its charge is secured), GET
// /place honours `field`, and the contract's unsuppressible fields survive any removal, at any depth.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Route } from '../../api/route.ts';
import { allRoutes } from '../../api/routes/index.ts';
import type { RunningServer } from '../../api/server.ts';
import { ingestedDatabase } from '../helpers/pipeline.ts';
import { call, createTestOrg, startTestServer } from '../helpers/server.ts';

let db: { url: string; drop: () => Promise<void> };
let server: RunningServer;
let key: string;
let parcels: string[];
const POINT = '42.3629,-71.1113';
const pool = () => server.services.pool;

// A priced mutation charged after it answers that writes in its handler: the guard refuses it.
const probe: Route = {
  id: 'probeWritesEarly', method: 'POST', path: '/probe/writes-early', summary: 'probe', tag: 'Probe', credential: 'key', form: 'plain',
  body: { type: 'object' },
  price: { credits: 1, per: 'item', repeatFreeHours: 24, note: 'probe', estimateUnits: () => 1 },
  handler: async (req) => {
    await req.services.pool.query(`INSERT INTO place_batch (id, organization_id, item_count) VALUES ('batch_probe_early', $1, 0)`, [req.actor!.organizationId]);
    return { item: {}, charge: { keys: ['probe:1'] } };
  },
};

beforeAll(async () => {
  db = await ingestedDatabase('cambridge', ['cambridge-ma']);
  server = await startTestServer({ DATABASE_URL: db.url, RATE_LIMIT_PER_SECOND: '100000' }, [...allRoutes, probe]);
  key = (await createTestOrg(server, 10_000)).apiKey;
  const { rows } = await pool().query(
    `SELECT DISTINCT p.id FROM parcel p JOIN jurisdiction j ON j.id = p.jurisdiction_id
      WHERE j.slug = 'cambridge-ma' AND p.geom IS NOT NULL AND p.known @> now() AND p.valid @> (now() AT TIME ZONE j.timezone)::date ORDER BY p.id LIMIT 3`,
  );
  parcels = rows.map((r) => r.id);
}, 600_000);
afterAll(async () => {
  await server?.close();
  await db?.drop();
});

async function state(org: string) {
  await server.services.meter.flush();
  const q = async (sql: string) => Number((await pool().query(sql, [org])).rows[0].n);
  return {
    balance: (await pool().query('SELECT balance FROM credit_account WHERE organization_id = $1', [org])).rows[0].balance,
    batches: await q('SELECT count(*) AS n FROM place_batch WHERE organization_id = $1'),
    items: await q('SELECT count(*) AS n FROM place_batch_item i JOIN place_batch b ON b.id = i.batch_id WHERE b.organization_id = $1'),
    memos: await q('SELECT count(*) AS n FROM charge_memo WHERE organization_id = $1'),
    usage: await q(`SELECT count(*) AS n FROM credit_ledger WHERE organization_id = $1 AND kind = 'usage'`),
  };
}

describe('402 changes nothing', () => {
  test('a place batch the balance cannot cover: 402 quota_exhausted, no batch rows, balance unchanged', async () => {
    expect(parcels.length).toBeGreaterThanOrEqual(2);
    const body = { item: [{ ref: 'a', parcel: [parcels[0]] }, { ref: 'b', parcel: [parcels[1]] }] };
    const poor = await createTestOrg(server, 1);
    const before = await state(poor.organizationId);
    expect(before).toEqual({ balance: 1, batches: 0, items: 0, memos: 0, usage: 0 });

    const r = await call(server, 'POST', '/place/batch', { key: poor.apiKey, body });
    expect(r.status).toBe(402);
    expect(r.body.detail.error.code).toBe('quota_exhausted');
    expect(r.body.item).toBeUndefined();
    expect(await state(poor.organizationId)).toEqual(before);
    const credit = await call(server, 'GET', '/credit', { key: poor.apiKey });
    expect(credit.body.item.balance).toBe(1);

    // the same batch on a balance that covers it is kept and charged per place
    const rich = await createTestOrg(server, 10);
    const ok = await call(server, 'POST', '/place/batch', { key: rich.apiKey, body });
    expect(ok.status).toBe(201);
    expect(ok.body.meta.cost).toBe('2');
    expect(await state(rich.organizationId)).toMatchObject({ balance: 8, batches: 1, items: 2, memos: 2 });
    expect((await call(server, 'GET', `/place/batch/${ok.body.item.id}`, { key: rich.apiKey })).status).toBe(200);
  });

  test('with an Idempotency-Key, a 402 keeps no replay record either', async () => {
    const poor = await createTestOrg(server, 0);
    const body = { item: [{ parcel: [parcels[0]] }] };
    const r = await call(server, 'POST', '/place/batch', { key: poor.apiKey, body, headers: { 'Idempotency-Key': 'k-402' } });
    expect(r.status).toBe(402);
    const { rows } = await pool().query('SELECT count(*)::int AS n FROM idempotency_record WHERE organization_id = $1', [poor.organizationId]);
    expect(rows[0].n).toBe(0);
    expect(await state(poor.organizationId)).toMatchObject({ balance: 0, batches: 0, memos: 0 });
  });

  test('a mutation charged after it answers cannot write before its charge is secured', async () => {
    const org = await createTestOrg(server, 10);
    const r = await call(server, 'POST', '/probe/writes-early', { key: org.apiKey, body: {} });
    expect(r.status).toBe(500);
    expect((await pool().query(`SELECT 1 FROM place_batch WHERE id = 'batch_probe_early'`)).rowCount).toBe(0);
    expect(await state(org.organizationId)).toMatchObject({ balance: 10, memos: 0 });
  });
});

describe('GET /place field selection', () => {
  const base = `/place?point=${POINT}&include=authority,assignment,parcel,boundary`;

  test('names select and -names remove, in the item and beside it', async () => {
    const all = await call(server, 'GET', base, { key });
    expect(all.status).toBe(200);
    expect(Object.keys(all.body.item).sort()).toEqual(['assignment', 'boundary', 'parcel']);
    expect(all.body.authority.length).toBeGreaterThan(0);

    const minus = await call(server, 'GET', `${base}&field=-boundary,-authority`, { key });
    expect(minus.status).toBe(200);
    expect(Object.keys(minus.body.item).sort()).toEqual(['assignment', 'parcel']);
    expect(minus.body.authority).toBeUndefined();
    // the location token is minted per answer (its expiry counts from now): compare the rest
    const stable = (r: Record<string, unknown>) => ({ ...r, location_token: undefined, token_expires_at: undefined });
    expect(stable(minus.body.resolution)).toEqual(stable(all.body.resolution));

    const only = await call(server, 'GET', `${base}&field=parcel,resolution`, { key });
    expect(only.status).toBe(200);
    expect(Object.keys(only.body.item)).toEqual(['parcel']);
    expect(only.body.resolution.state).toBe('resolved');
    expect(only.body.authority).toBeUndefined();
    expect(only.body.as_of).toMatchObject({ basis: all.body.as_of.basis, resolved: { from: all.body.as_of.resolved.from } }); // never suppressed
    // a section not asked for by include is still a known name
    expect((await call(server, 'GET', `/place?point=${POINT}&field=-assignment`, { key })).status).toBe(200);
  });

  test('an unknown name is 422 field_unknown, and nothing is charged', async () => {
    const org = await createTestOrg(server, 5);
    const r = await call(server, 'GET', `${base}&field=-nonsense`, { key: org.apiKey });
    expect(r.status).toBe(422);
    expect(r.body.detail.error).toMatchObject({ code: 'field_unknown', field: 'field' });
    expect(r.body.detail.error.detail).toContain('assignment');
    const nested = await call(server, 'GET', `${base}&field=parcels.id`, { key: org.apiKey });
    expect(nested.body.detail.error.code).toBe('field_unknown');
    expect((await state(org.organizationId)).balance).toBe(5);
  });
});

describe('unsuppressible fields stay, at any depth', () => {
  test('place answer: -status, -effective_from, -citation(.id), -as_of on the sections and their rows', async () => {
    const plain = await call(server, 'GET', `/place?point=${POINT}&include=authority,assignment`, { key });
    const a0 = plain.body.item.assignment[0];
    expect(a0).toHaveProperty('status');
    expect(a0).toHaveProperty('effective_from');
    expect(a0.citation?.id).toMatch(/^cit_/);
    const tries = [
      '-as_of', '-as_of.basis',
      '-assignment.status', '-assignment.effective_from', '-assignment.citation', '-assignment.citation.id',
      '-authority.status', '-authority.citation', '-authority.effective_from',
    ];
    const r = await call(server, 'GET', `/place?point=${POINT}&include=authority,assignment&field=${tries.join(',')}`, { key });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body.as_of).sort()).toEqual(Object.keys(plain.body.as_of).sort());
    expect(r.body.item.assignment).toEqual(plain.body.item.assignment);
    expect(r.body.authority).toEqual(plain.body.authority);
    // a contract field this answer does not carry at the top is an unknown name, not a silent no-op
    const top = await call(server, 'GET', `/place?point=${POINT}&field=-status`, { key });
    expect(top.body.detail.error).toMatchObject({ code: 'field_unknown', field: 'field' });
    // what is not protected inside the same rows still goes
    const quote = await call(server, 'GET', `/place?point=${POINT}&include=assignment&field=-assignment.citation.quote,-assignment.map_version`, { key });
    const q0 = quote.body.item.assignment[0];
    expect(q0.citation.id).toBe(a0.citation.id);
    expect(q0.citation).not.toHaveProperty('quote');
    expect(q0).not.toHaveProperty('map_version');
    expect(q0.status).toBe(a0.status);
  });

  test('district list: top-level -status, -effective_from, -citation.id, -citation are ignored; others remove', async () => {
    const path = '/jurisdiction/cambridge-ma/district?size=3';
    const plain = await call(server, 'GET', path, { key });
    expect(plain.status).toBe(200);
    const d0 = plain.body.item[0];
    expect(d0.citation.id).toBeTruthy();
    const r = await call(server, 'GET', `${path}&field=-status,-effective_from,-citation.id,-citation,-purpose,-id`, { key });
    expect(r.status).toBe(200);
    const r0 = r.body.item[0];
    expect(r0).toMatchObject({ id: d0.id, status: d0.status, effective_from: d0.effective_from, citation: d0.citation });
    expect(r0).not.toHaveProperty('purpose');
    const some = await call(server, 'GET', `${path}&field=code_raw`, { key });
    expect(some.body.item[0]).toMatchObject({ id: d0.id, code_raw: d0.code_raw, status: d0.status, effective_from: d0.effective_from, citation: d0.citation });
    expect(some.body.item[0]).not.toHaveProperty('kind');
  });
});
