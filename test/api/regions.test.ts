// Saved regions over real HTTP and PostgreSQL: created, listed, read, changed and deleted under
// the organization's credential (If-Match against the ETag read), never seen by another
// organization; membership with valid time resolving at as_of in each member's timezone; and
// the region scope on every operation that takes one (the change feed, /coverage, extracts).
// Statistical areas: none is held, so a sta_ id is 501 with the store's reason; one held (in a
// transaction rolled back) resolves to its members.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { planExtract } from '../../activities/extract/plan.ts';
import type { RunningServer } from '../../api/server.ts';
import { stableId } from '../../core/ids.ts';
import { resolveScope } from '../../core/query/scope.ts';
import { parseTimeText } from '../../core/time.ts';
import { type Call, call, createTestOrg, startTestServer } from '../helpers/server.ts';

let server: RunningServer;
let key: string;
let org: string;
let otherKey: string;
const tag = Math.random().toString(36).slice(2, 8);
const county = `8${String(Math.floor(Math.random() * 99)).padStart(2, '0')}`;
const town = (n: number, tz: string) => {
  const fips = `us:cousub:25${county}${String(10000 + Math.floor(Math.random() * 8999) + n).padStart(5, '0')}`;
  return { id: stableId('jurisdiction', fips), fips, slug: `rgn-town-${n}-${tag}`, tz };
};
// A: always a member; B (Pacific time): from 2021-01-01 through 2022-12-31; C: not a member
const A = town(1, 'America/New_York');
const B = town(2, 'America/Los_Angeles');
const C = town(3, 'America/New_York');
const STA = 'sta_00000000000000000000';

beforeAll(async () => {
  server = await startTestServer({ RATE_LIMIT_PER_SECOND: '100000' });
  const o = await createTestOrg(server, 1000);
  key = o.apiKey;
  org = o.organizationId;
  otherKey = (await createTestOrg(server, 1000)).apiKey;
  for (const t of [A, B, C]) {
    await server.services.pool.query(
      `INSERT INTO jurisdiction (id, slug, name, type, level, fips_state, fips_county, fips_cousub, fips_key, state_postal, timezone)
       VALUES ($1, $2, $2, 'town', 'cousub', '25', $3, $4, $5, 'MA', $6)`,
      [t.id, t.slug, county, t.fips.slice(-5), t.fips, t.tz],
    );
  }
});
afterAll(async () => {
  await server.close();
});

const error = (r: Call) => [r.status, r.body?.detail?.error?.code, r.body?.detail?.error?.field];
const create = (body: unknown, k = key) => call(server, 'POST', '/region', { key: k, body });
const members = { name: `Region ${tag}`, member: [A.fips, { jurisdiction: B.slug, from: '2021-01-01', through: '2022-12-31' }] };

describe('saved regions', () => {
  test('create, read, list, change with If-Match, delete', async () => {
    const made = await create({ ...members, name: `Crud ${tag}`, description: 'two towns' });
    expect(made.status).toBe(201);
    const id: string = made.body.item.id;
    expect(id).toMatch(/^rgn_/);
    expect(made.headers.get('location')).toBe(`/region/${id}`);
    const etag = made.headers.get('etag')!;
    expect(made.body.item.member.map((m: { jurisdiction: { id: string }; from: string | null; through: string | null }) => [m.jurisdiction.id, m.from, m.through]).sort()).toEqual(
      [[A.id, null, null], [B.id, '2021-01-01', '2022-12-31']].sort(),
    );
    const got = await call(server, 'GET', `/region/${id}?as_of=2021-06-01`, { key });
    expect(got.status).toBe(200);
    expect(got.headers.get('etag')).toBe(etag);
    expect(got.body.item.jurisdiction.sort()).toEqual([A.id, B.id].sort());
    const list = await call(server, 'GET', '/region?size=200', { key });
    expect(list.body.item.map((r: { id: string }) => r.id)).toContain(id);

    const patched = await call(server, 'PATCH', `/region/${id}`, { key, body: { member: [C.id] }, headers: { 'If-Match': etag } });
    expect(patched.status).toBe(200);
    expect(patched.body.item.jurisdiction).toEqual([C.id]);
    expect(patched.body.item.version).toBe(2);
    // the ETag read before the change is stale now, for a change and for a delete
    expect(error(await call(server, 'PATCH', `/region/${id}`, { key, body: { name: 'x' }, headers: { 'If-Match': etag } }))).toEqual([409, 'version_conflict', 'If-Match']);
    expect(error(await call(server, 'DELETE', `/region/${id}`, { key, headers: { 'If-Match': etag } }))).toEqual([409, 'version_conflict', 'If-Match']);
    expect((await call(server, 'GET', `/region/${id}`, { key })).body.item.name).toBe(`Crud ${tag}`);
    const gone = await call(server, 'DELETE', `/region/${id}`, { key, headers: { 'If-Match': patched.headers.get('etag')! } });
    expect(gone.status).toBe(204);
    expect(error(await call(server, 'GET', `/region/${id}`, { key }))).toEqual([404, 'no_such_resource', 'region']);
  });

  test("another organization's region is not found, exactly as one that does not exist", async () => {
    const mine = (await create({ ...members, name: `Private ${tag}` })).body.item.id;
    const nobody = 'rgn_00000000000000000000';
    for (const [method, body] of [['GET', undefined], ['PATCH', { name: 'taken' }], ['DELETE', undefined]] as const) {
      const theirs = await call(server, method, `/region/${mine}`, { key: otherKey, body });
      const none = await call(server, method, `/region/${nobody}`, { key: otherKey, body });
      expect(error(theirs)).toEqual([404, 'no_such_resource', 'region']);
      expect(theirs.body.detail.error.detail).toBe(none.body.detail.error.detail.replace(nobody, mine));
    }
    expect((await call(server, 'GET', '/region?size=200', { key: otherKey })).body.item.map((r: { id: string }) => r.id)).not.toContain(mine);
    expect((await call(server, 'GET', `/region/${mine}`, { key })).status).toBe(200);
  });

  test('members: unknown, overlapping or backwards dates, and a name already used, are 422 naming the field', async () => {
    expect(error(await create({ name: `Bad ${tag}`, member: [A.id, 'no-such-town'] }))).toEqual([422, 'parameter_invalid', 'member[1]']);
    expect(error(await create({ name: `Bad ${tag}`, member: [A.id, { jurisdiction: A.fips, from: '2020-01-01' }] }))).toEqual([422, 'parameter_invalid', 'member[1]']);
    expect(error(await create({ name: `Bad ${tag}`, member: [{ jurisdiction: A.id, from: '2022-01-01', through: '2021-01-01' }] }))).toEqual([422, 'parameter_invalid', 'member[0].through']);
    // the same town twice on dates that do not meet is two memberships
    expect((await create({ name: `Twice ${tag}`, member: [{ jurisdiction: A.id, through: '2019-12-31' }, { jurisdiction: A.id, from: '2021-01-01' }] })).status).toBe(201);
    expect(error(await create({ name: `twice ${tag}`, member: [A.id] }))).toEqual([422, 'parameter_invalid', 'name']);
  });

  test("membership resolves at as_of, on each member's own date", async () => {
    const id = (await create({ ...members, name: `Dated ${tag}` })).body.item.id;
    const at = async (asOf: string) => (await call(server, 'GET', `/region/${id}?as_of=${encodeURIComponent(asOf)}`, { key })).body.item.jurisdiction.sort();
    expect(await at('2021-06-01')).toEqual([A.id, B.id].sort());
    expect(await at('2024-01-01')).toEqual([A.id]);
    expect(await at('2020-12-31')).toEqual([A.id]);
    expect(await at('from:2019-01-01 to:2021-01-01')).toEqual([A.id, B.id].sort());
    // 06:00Z on 2021-01-01 is still 2020-12-31 in Los Angeles, where B's membership has not begun
    expect(await at('2021-01-01T06:00:00Z')).toEqual([A.id]);
    expect(await at('2021-01-01T09:00:00Z')).toEqual([A.id, B.id].sort());
  });
});

describe('the region scope, on every operation that takes one', () => {
  let region: string;
  let foreign: string;
  beforeAll(async () => {
    region = (await create({ ...members, name: `Scope ${tag}` })).body.item.id;
    foreign = (await create({ name: `Foreign ${tag}`, member: [C.id] }, otherKey)).body.item.id;
  });
  const refused = (r: Call, field: string) => {
    expect(error(r)).toEqual([422, 'parameter_invalid', field]);
    expect(r.body.detail.error.detail).toMatch(/no saved region of this organization/);
  };

  test('GET /coverage', async () => {
    const r = await call(server, 'GET', `/coverage?region=${region}`, { key });
    expect(r.status).toBe(200);
    // B's membership ended in 2022: today the region is A alone
    expect([...new Set(r.body.item.map((i: { jurisdiction: { id: string } }) => i.jurisdiction.id))]).toEqual([A.id]);
    refused(await call(server, 'GET', `/coverage?region=${foreign}`, { key }), 'region');
  });

  test('GET /change_event, JSON and stream', async () => {
    const r = await call(server, 'GET', `/change_event?since=0&region=${region}`, { key });
    expect(r.status).toBe(200);
    expect(r.body.coverage.scope).toEqual({ kind: 'region', label: `region Scope ${tag} (${region})` });
    expect(r.body.coverage.not_held.jurisdiction).toEqual([A.id]);
    refused(await call(server, 'GET', `/change_event?since=0&region=${foreign}`, { key }), 'region');
    refused(await call(server, 'GET', `/change_event?since=0&region=${foreign}`, { key, headers: { Accept: 'text/event-stream' } }), 'region');
  });

  test('POST /extract, resolving at the extract’s as_of, and planExtract as the CLI calls it', async () => {
    const body = (asOf?: string) => ({ resource: 'district', format: 'jsonl', scope: { region }, ...(asOf ? { as_of: asOf } : {}) });
    const then = await call(server, 'POST', '/extract?dry_run=true', { key, body: body('2021-06-01') });
    expect(then.status).toBe(200);
    expect(then.body.item.jurisdiction.sort()).toEqual([A.id, B.id].sort());
    expect((await call(server, 'POST', '/extract?dry_run=true', { key, body: body() })).body.item.jurisdiction).toEqual([A.id]);
    refused(await call(server, 'POST', '/extract?dry_run=true', { key, body: { ...body(), scope: { region: foreign } } }), 'scope.region');
    // without an organization (the operator's CLI) no saved region is seen
    await expect(planExtract(server.services.pool, body() as never)).rejects.toMatchObject({ code: 'parameter_invalid', field: 'scope.region' });
    const planned = await planExtract(server.services.pool, body('2021-06-01') as never, new Date(), org);
    expect(planned.plan.jurisdictions.sort()).toEqual([A.id, B.id].sort());
  });

  test('a statistical area: none held is 501 with the reason from the store; one held resolves to its members', async () => {
    const r = await call(server, 'GET', `/coverage?region=${STA}`, { key });
    expect(error(r)).toEqual([501, 'not_available', 'region']);
    expect(r.body.detail.error.detail).toMatch(/^No statistical area is held: none has been loaded from any source, and (the \d+ sources? held \(.*\) state none|no source is held)\.$/);
    expect(error(await call(server, 'GET', `/region/${STA}`, { key }))).toEqual([501, 'not_available', 'region']);
    expect(error(await call(server, 'GET', '/region/sta_!!', { key }))).toEqual([422, 'id_malformed', 'region']);
    const client = await server.services.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query(`INSERT INTO statistical_area (id, kind, code, name, source_id) VALUES ($1, 'cbsa', $2, 'Test Area', 'test')`, [STA, tag]);
      await client.query(
        `INSERT INTO statistical_area_member (statistical_area_id, jurisdiction_id, valid, known)
         VALUES ($1, $2, daterange(NULL, NULL), tstzrange(now() - interval '1 day', NULL)), ($1, $3, daterange('2023-01-01', NULL), tstzrange(now() - interval '1 day', NULL))`,
        [STA, A.id, C.id],
      );
      const at = async (asOf?: string) => (await resolveScope(client, { region: STA }, { asOf: asOf ? parseTimeText(asOf, 'as_of') : undefined })).ids.sort();
      expect(await at('2021-06-01')).toEqual([A.id]);
      expect(await at()).toEqual([A.id, C.id].sort());
      await expect(resolveScope(client, { region: 'sta_11111111111111111111' })).rejects.toMatchObject({ code: 'parameter_invalid', field: 'region' });
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  });
});
