// GET /jurisdiction paging (cursors, total), field selection, pricing and dry_run, the /v1 list
// form, and GET /jurisdiction/{id} by its three id forms, over real HTTP and PostGIS.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { peekCursor, signCursor } from '../../core/query/cursor.ts';
import { stableId } from '../../core/ids.ts';
import { call } from '../helpers/server.ts';
import { CAMBRIDGE, MA, MIDDLESEX, jid, jurisdictionFixture } from '../helpers/jurisdictions.ts';

const f = jurisdictionFixture(1);
const { P, towns, isolate: ISOLATE } = f;
const get = f.get;
// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked field by field
type Item = Record<string, any>;

beforeAll(async () => {
  await f.setup();
  await f.server.services.pool.query(
    `INSERT INTO authority (id, content_sha256, source_id, jurisdiction_id, subject, governing_jurisdiction_id, basis, legal_name, agency, valid, known)
     VALUES ($1, 'x', 'manifest', $2, 'zoning', $2, 'home_rule', $3, '{"name": "Planning Board", "type": "planning"}', daterange('2020-01-01', NULL), tstzrange(now(), NULL))`,
    [stableId('authority', towns[1].id, 'zoning'), towns[1].id, towns[1].legal_name],
  );
});
afterAll(f.teardown);

describe('GET /jurisdiction paging and selection', () => {
  test('cursors: tampered, sort changed, expired', async () => {
    const first = await get('/jurisdiction', { ...ISOLATE, sort: 'name', size: '5' });
    const cursor: string = first.body.page.next_cursor;
    const p = peekCursor(cursor);
    const forged = `${Buffer.from(JSON.stringify({ ...p, id: 'jur_0000000000' })).toString('base64url')}.${cursor.split('.')[1]}`;
    expect((await get('/jurisdiction', { ...ISOLATE, sort: 'name', cursor: forged })).body.detail.error).toMatchObject({ code: 'parameter_invalid', field: 'cursor' });
    expect((await get('/jurisdiction', { ...ISOLATE, sort: '-name', cursor })).body.detail.error).toMatchObject({ code: 'cursor_sort_mismatch' });
    expect((await get('/jurisdiction', { ...ISOLATE, cursor: cursor, sort: 'name', state: 'MA' })).body.detail.error).toMatchObject({ code: 'parameter_invalid', field: 'cursor' });
    const old = signCursor({ ...p, i: Math.floor(Date.now() / 1000) - 25 * 3600 }, f.server.services.secret);
    expect((await get('/jurisdiction', { ...ISOLATE, sort: 'name', cursor: old })).body.detail.error).toMatchObject({ code: 'cursor_expired', field: 'cursor' });
    const fresh = signCursor({ ...p, i: Math.floor(Date.now() / 1000) - 23 * 3600 }, f.server.services.secret);
    expect((await get('/jurisdiction', { ...ISOLATE, sort: 'name', cursor: fresh })).status).toBe(200);
  });

  test('total on the first page only', async () => {
    const r = await get('/jurisdiction', { ...ISOLATE, size: '10', total: 'true' });
    expect(r.body.page.total).toEqual({ value: 61, relation: 'eq' });
    const next = await get('/jurisdiction', { ...ISOLATE, size: '10', total: 'true', cursor: r.body.page.next_cursor });
    expect(next.status).toBe(200);
    expect(next.body.page.total).toBeUndefined();
    expect((await get('/jurisdiction', { ...ISOLATE, size: '10' })).body.page.total).toBeUndefined();
    const v1 = await get('/v1/jurisdiction', { ...ISOLATE, size: '10', total: 'true' });
    expect(v1.body.total).toEqual({ value: 61, relation: 'eq' });
  });

  test('field selection', async () => {
    const r = await get('/jurisdiction', { state: 'MA', fips: 'us:cousub:2501711000', field: 'id,name' });
    expect(r.body.item).toEqual([{ id: CAMBRIDGE, name: 'Cambridge' }]);
    const f = await get('/jurisdiction', { ...ISOLATE, size: '1', field: 'name' });
    expect(Object.keys(f.body.item[0]).sort()).toEqual(['filter_outcome', 'id', 'name']);
    expect((await get('/jurisdiction', { state: 'RI', field: 'id,name' })).body.item).toEqual([]);
    expect((await get('/jurisdiction', { field: 'id,zoning' })).body.detail.error).toMatchObject({ code: 'field_unknown', field: 'field' });
    const v1 = await get('/v1/jurisdiction', { fips: 'us:state:25', field: 'name' });
    expect(v1.body.data).toEqual([{ object: 'jurisdiction', id: MA, href: `/jurisdiction/${MA}`, name: 'Massachusetts' }]);
  });

  test('a key is needed', async () => {
    const r = await call(f.server, 'GET', '/jurisdiction');
    expect(r.status).toBe(401);
  });
});

describe('pricing and dry_run', () => {
  test('a page costs one credit; dry_run prices it, returns no rows and charges nothing', async () => {
    const r = await get('/jurisdiction', { ...ISOLATE, size: '5' });
    expect(await f.charged(r.headers.get('x-request-id')!)).toBe(1);
    const dry = await get('/jurisdiction', { ...ISOLATE, dry_run: 'true' });
    expect(dry.status).toBe(200);
    expect(dry.body.item).toBeNull();
    expect(await f.charged(dry.headers.get('x-request-id')!)).toBe(0);
    const one = await get(`/jurisdiction/${CAMBRIDGE}`, { dry_run: 'true' });
    expect(one.body).toMatchObject({ item: null, request: { dry_run: true }, meta: { cost_estimate: 1 } });
    const real = await get(`/jurisdiction/${CAMBRIDGE}`);
    expect(real.body.meta.cost).toBe('1');
    expect((await get('/jurisdiction', { dry_run: 'true', has_zoning: 'true' })).status).toBe(501);
  });
});

describe('GET /v1/jurisdiction', () => {
  test('the list form', async () => {
    const r = await get('/v1/jurisdiction', { ...ISOLATE, size: '2', sort: 'name' });
    expect(r.body).toMatchObject({ object: 'list', has_more: true, next_cursor: expect.any(String), suppressed: 0 });
    expect(r.body.data).toHaveLength(2);
    const first = (await f.sqlIds('name, id'))[0];
    expect(r.body.data[0]).toMatchObject({ object: 'jurisdiction', id: first, href: `/jurisdiction/${first}`, name: expect.stringContaining(P) });
    const last = await get('/v1/jurisdiction', { fips: 'us:state:25' });
    expect(last.body).toMatchObject({ object: 'list', has_more: false, next_cursor: null });
  });

  test('refusals are problem objects naming the parameter', async () => {
    const r = await get('/v1/jurisdiction', { 'filter[zoning][eq]': 'x' });
    expect(r.status).toBe(422);
    expect(r.headers.get('content-type')).toMatch(/problem\+json/);
    expect(r.body).toMatchObject({ code: 'field_unknown', errors: [{ field: 'filter[zoning][eq]', code: 'field_unknown' }] });
  });
});

describe('GET /jurisdiction/{id}', () => {
  test('by jur_ id, slug and fips_key alike', async () => {
    const forms = [CAMBRIDGE, 'cambridge-ma', 'us:cousub:2501711000'];
    const bodies = await Promise.all(forms.map((f) => get(`/jurisdiction/${encodeURIComponent(f)}`)));
    for (const b of bodies) expect(b.status).toBe(200);
    expect(bodies[0].body.item).toMatchObject({
      id: CAMBRIDGE, slug: 'cambridge-ma', name: 'Cambridge', legal_name: 'City of Cambridge', type: 'city', population: 118403, population_year: 2020,
      fips: { level: 'cousub', code: '2501711000', state: '25', key: 'us:cousub:2501711000', county: '017', cousub: '11000', place: '11000' },
      parent: MIDDLESEX,
    });
    expect(bodies[1].body.item).toEqual(bodies[0].body.item);
    expect(bodies[2].body.item).toEqual(bodies[0].body.item);
    expect(bodies[0].body.meta.request_id).toMatch(/^req_/);
  });

  test('include: containment up the parent chain, agency as held, body not held', async () => {
    const r = await get(`/jurisdiction/${towns[1].id}`, { include: 'containment,agency,body' });
    expect(r.status).toBe(200);
    expect(r.body.item.containment.map((c: Item) => c.id)).toEqual([MIDDLESEX, MA]);
    expect(r.body.item.containment[0]).toMatchObject({ name: 'Middlesex County', level: 'county', fips_key: 'us:county:25017', href: `/jurisdiction/${MIDDLESEX}` });
    expect(r.body.item.agency).toEqual([{ subject: 'zoning', agency: { name: 'Planning Board', type: 'planning' }, legal_name: towns[1].legal_name, governing_jurisdiction: towns[1].id, citation: null }]);
    expect(r.body.item.body).toEqual([]);
    expect(r.body.notice).toEqual([expect.objectContaining({ code: 'not_held', subject: ['body'] })]);
    const none = await get(`/jurisdiction/${towns[2].id}`, { include: 'agency' });
    expect(none.body.item.agency).toEqual([]);
    expect(none.body.notice[0]).toMatchObject({ code: 'not_held', subject: ['agency'] });
    const plain = await get(`/jurisdiction/${towns[2].id}`);
    expect(plain.body.item.containment).toBeUndefined();
    expect(plain.body.notice).toBeUndefined();
    expect((await get(`/jurisdiction/${MA}`, { include: 'zoning' })).body.detail.error).toMatchObject({ code: 'vocabulary_value_unknown', field: 'include' });
  });

  test('field selection on one', async () => {
    const r = await get(`/jurisdiction/${MA}`, { field: 'name,fips' });
    expect(Object.keys(r.body.item).sort()).toEqual(['fips', 'id', 'name']);
  });

  test('404 for no record, 422 for a malformed id', async () => {
    for (const id of [jid('us:cousub:9999999999'), 'no-such-town', 'us:place:9999999']) {
      const r = await get(`/jurisdiction/${encodeURIComponent(id)}`);
      expect(r.status, id).toBe(404);
      expect(r.body.detail.error.code).toBe('no_such_resource');
    }
    for (const id of ['jur_!!', 'jur_', 'us:cousub:25', 'us:town:2501711000']) {
      const r = await get(`/jurisdiction/${encodeURIComponent(id)}`);
      expect(r.status, id).toBe(422);
      expect(r.body.detail.error).toMatchObject({ code: 'id_malformed', field: 'id' });
    }
  });
});
