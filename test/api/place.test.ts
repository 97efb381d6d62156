// /place, /rule, batches, suggestions and coverage on real Cambridge data.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RunningServer } from '../../api/server.ts';
import { call, cambridgeApi, createTestOrg } from '../helpers/server.ts';

let close = async () => {};
let server: RunningServer;
let key: string;
const POINT = '42.3629,-71.1113';

beforeAll(async () => {
  ({ server, key, close } = await cambridgeApi(10_000));
}, 120_000);
afterAll(async () => {
  await close();
});

describe('GET /place', () => {
  test('a point resolves to its parcel, jurisdiction and authorities, with coverage and time blocks', async () => {
    const r = await call(server, 'GET', `/place?point=${POINT}&include=authority,assignment,parcel`, { key });
    expect(r.status).toBe(200);
    expect(r.body.resolution).toMatchObject({ state: 'resolved', grain: 'parcel', parcel_key: '127-123', location_token: expect.stringMatching(/^loc_/) });
    expect(r.body.jurisdiction).toMatchObject({ slug: 'cambridge-ma', fips_key: 'us:cousub:2501711000' });
    expect(r.body.authority[0]).toMatchObject({ subject: 'zoning', basis: 'home_rule', citation: expect.stringMatching(/^cit_/) });
    expect(r.body.coverage.layer.zoning_text.held).toBe(false);
    expect(r.body.as_of).toMatchObject({ constant: true, segment_count: 1, basis: 'default' });
    expect(r.body.meta.answer_id).toMatch(/^ans_/);
    // the token stands for the same place
    const again = await call(server, 'GET', `/place?location_token=${r.body.resolution.location_token}&include=assignment`, { key });
    expect(again.body.item.assignment).toEqual(r.body.item.assignment);
    expect(again.body.resolution).toMatchObject({ grain: 'parcel', parcel: r.body.resolution.parcel, parcel_key: '127-123' });
    // a whole parcel travels by id, not by its polygon
    expect(r.body.resolution.location_token.length).toBeLessThan(400);
  });

  test('a point outside every held jurisdiction is refused; two locations at once are refused', async () => {
    const out = await call(server, 'GET', '/place?point=40.7,-74.0', { key });
    expect(out.status).toBe(422);
    expect(out.body.detail.error).toMatchObject({ code: 'location_unmatched', field: 'point' });
    const two = await call(server, 'GET', `/place?point=${POINT}&apn=1&fips=25017`, { key });
    expect(two.body.detail.error).toMatchObject({ code: 'parameter_invalid', field: 'apn' });
    const swapped = await call(server, 'GET', '/place?point=91,-71.1113', { key });
    expect(swapped.body.detail.error).toMatchObject({ code: 'parameter_invalid', field: 'point' });
  });

  test('an address several parcels carry is ambiguous: one candidate per parcel, with its key; strict refuses it', async () => {
    // the assessor lists "1 DANA ST" on 17 rows of two parcels
    const r = await call(server, 'GET', `/place?address=${encodeURIComponent('1 Dana St, Cambridge, MA')}`, { key });
    expect(r.status).toBe(200);
    expect(r.body.resolution.state).toBe('ambiguous');
    const c = r.body.resolution.candidates as Array<{ parcel: string; parcel_key: string }>;
    const held = await server.services.pool.query(`SELECT DISTINCT a.parcel_id, p.parcel_key FROM address_point a JOIN parcel p ON p.id = a.parcel_id WHERE a.normalized = '1 DANA ST' ORDER BY 1`);
    expect(c.map((x) => [x.parcel, x.parcel_key]).sort()).toEqual(held.rows.map((x) => [x.parcel_id, x.parcel_key]));
    expect(c).toHaveLength(2);
    const strict = await call(server, 'GET', `/place?address=${encodeURIComponent('1 Dana St, Cambridge, MA')}&strict=true`, { key });
    expect(strict.status).toBe(422);
  });

  test('a PLSS key: malformed is 422 naming plss; in a state never surveyed by it, unmatched; elsewhere, not yet held (501)', async () => {
    const bad = await call(server, 'GET', '/place?plss=CO:06:T001S:R068W:40', { key });
    expect(bad.status).toBe(422);
    expect(bad.body.detail.error).toMatchObject({ code: 'parameter_invalid', field: 'plss' });
    const ma = await call(server, 'GET', '/place?plss=MA:01:T001N:R001E:12', { key });
    expect(ma.status).toBe(422);
    expect(ma.body.detail.error).toMatchObject({ code: 'location_unmatched', field: 'plss' });
    const co = await call(server, 'GET', '/rule?plss=CO:06:T001S:R068W:12:NE', { key });
    expect(co.status).toBe(501);
    expect(co.body.detail.error).toMatchObject({ code: 'not_available', field: 'plss' });
  });

  test('an invalid or too large geometry is refused with the reason', async () => {
    const bowtie = 'POLYGON((-71.11 42.36,-71.10 42.37,-71.10 42.36,-71.11 42.37,-71.11 42.36))';
    const r = await call(server, 'GET', `/place?geometry=${encodeURIComponent(bowtie)}`, { key });
    expect(r.body.detail.error).toMatchObject({ code: 'parameter_invalid', field: 'geometry' });
    expect(r.body.detail.error.detail).toMatch(/Self-intersection/i);
    const huge = await call(server, 'GET', `/place?geometry=${encodeURIComponent('POLYGON((-72 42,-70 42,-70 43,-72 43,-72 42))')}`, { key });
    expect(huge.body.detail.error.detail).toMatch(/km²/);
  });
});

describe('GET /rule', () => {
  test('districts with shares; what is not held is named; before retention refused or clamped', async () => {
    const r = await call(server, 'GET', `/rule?point=${POINT}`, { key });
    expect(r.status).toBe(200);
    expect(r.body.item.share[0]).toMatchObject({ district: { code: 'BA-3' }, share: 1 });
    expect(r.body.item.not_consulted.map((n: { layer: string }) => n.layer)).toContain('zoning_text');
    const old = await call(server, 'GET', `/rule?point=${POINT}&as_of=2001-01-01`, { key });
    expect(old.body.detail.error).toMatchObject({ code: 'as_of_before_retention', field: 'as_of' });
    const clamped = await call(server, 'GET', `/rule?point=${POINT}&as_of=2001-01-01&as_of_clamp=true`, { key });
    expect(clamped.body.as_of.basis).toBe('clamped');
  });

  test('an unknown use slug is vocabulary_value_unknown', async () => {
    const r = await call(server, 'GET', `/rule?point=${POINT}&use=residential.castle.moat`, { key });
    expect(r.body.detail.error).toMatchObject({ code: 'vocabulary_value_unknown', field: 'use' });
  });
});

describe('batches', () => {
  test('a place batch answers each item, is kept, and one match can be overridden', async () => {
    const body = { item: [{ ref: 'a', point: POINT }, { ref: 'b', apn: '127-123', fips: '25017' }, { ref: 'c', point: 'not a point' }] };
    const r = await call(server, 'POST', '/place/batch', { key, body });
    expect(r.status).toBe(201);
    expect(r.body.item).toMatchObject({ answered: 2, refused: 1 });
    expect(r.body.item.item[2]).toMatchObject({ ref: 'c', status: 'refused', error: { field: 'point' } });
    expect(r.body.meta.cost).toBe('1'); // both answered items are the same parcel: one place, one credit
    const id = r.body.item.id;
    const got = await call(server, 'GET', `/place/batch/${id}`, { key });
    expect(got.body.item.item.map((i: { ref: string }) => i.ref)).toEqual(['a', 'b', 'c']);
    const patched = await call(server, 'PATCH', `/place/batch/${id}/item/c`, { key, body: { point: POINT } });
    expect(patched.status).toBe(200);
    expect(patched.body.item).toMatchObject({ ref: 'c', status: 'answered', override: { point: POINT } });
    const other = await createTestOrg(server, 10);
    expect((await call(server, 'GET', `/place/batch/${id}`, { key: other.apiKey })).status).toBe(404);
  });

  test('a rule batch answers each location', async () => {
    const r = await call(server, 'POST', '/rule/batch', { key, body: { item: [{ point: POINT }, { point: '40.7,-74.0' }] } });
    expect(r.status).toBe(200);
    expect(r.body.item.item[0].answer.share[0].district.code).toBe('BA-3');
    expect(r.body.item.item[1]).toMatchObject({ status: 'refused', error: { code: 'location_unmatched' } });
  });
});

test('suggestions: jurisdictions, parcels and districts', async () => {
  const j = await call(server, 'GET', '/place/suggestion?q=Cambr', { key });
  expect(j.body.item[0]).toMatchObject({ type: 'jurisdiction', label: 'Cambridge, MA' });
  const p = await call(server, 'GET', '/place/suggestion?q=127-12&type=parcel', { key });
  expect(p.body.item.length).toBeGreaterThan(0);
  expect(p.body.item[0].location_token).toMatch(/^loc_/);
  const d = await call(server, 'GET', '/place/suggestion?q=BA-&type=district', { key });
  expect(d.body.item.map((x: { query: { district: string } }) => x.query.district)).toContain('BA-3');
});

test('coverage names every layer, held or not, per jurisdiction', async () => {
  const r = await call(server, 'GET', '/coverage?jurisdiction=cambridge-ma', { key });
  const layers = Object.fromEntries(r.body.item.map((l: { layer: string; held: boolean }) => [l.layer, l.held]));
  expect(layers).toMatchObject({ district_map: true, overlay: true, parcel: true, district_list: true, zoning_text: false, recorder: false, authority: true });
});

describe('POST forms of /place and /rule (geometries too long for a query string)', () => {
  // a small circle around the point, drawn with many vertices
  const [lat, lon] = POINT.split(',').map(Number);
  const circle = (n: number) =>
    Array.from({ length: n + 1 }, (_, i) => {
      const a = ((i % n) / n) * 2 * Math.PI;
      return [lon + 0.00002 * Math.cos(a), lat + 0.00002 * Math.sin(a)];
    });
  const ring = circle(1000);
  const polygon = { type: 'Polygon', coordinates: [ring] };

  test('a GeoJSON object in the body answers as the same geometry given in the query', async () => {
    // too long for a request line: the reason for the POST form
    const long = await call(server, 'GET', `/place?include=assignment&geometry=${encodeURIComponent(JSON.stringify(polygon))}`, { key });
    expect(long.status).toBe(431);
    const posted = await call(server, 'POST', '/place?include=assignment', { key, body: { geometry: polygon } });
    expect(posted.status).toBe(200);
    const short = JSON.stringify({ type: 'Polygon', coordinates: [circle(24)] });
    const got = await call(server, 'GET', `/place?include=assignment&geometry=${encodeURIComponent(short)}`, { key });
    expect(got.status).toBe(200);
    expect(posted.body.resolution).toMatchObject({ state: 'resolved', grain: 'area', input: 'geometry' });
    const codes = (a: Array<{ district: { code: string } }>) => a.map((x) => x.district.code);
    expect(codes(posted.body.item.assignment)).toEqual(codes(got.body.item.assignment));
    expect(codes(posted.body.item.assignment).length).toBeGreaterThan(0);
    const rule = await call(server, 'POST', '/rule', { key, body: { geometry: `POLYGON((${ring.map((c) => c.join(' ')).join(',')}))` } });
    expect(rule.status).toBe(200);
    expect(rule.body.resolution).toMatchObject({ state: 'resolved', grain: 'area' });
    expect(rule.body.meta.answer_id).toMatch(/^ans_/);
  });

  test('a body without a geometry, or with other fields, is refused naming the field', async () => {
    const none = await call(server, 'POST', '/rule', { key, body: {} });
    expect(none.status).toBe(422);
    expect(none.body.detail.error.field).toBe('geometry');
    const extra = await call(server, 'POST', '/place', { key, body: { geometry: polygon, colour: 'red' } });
    expect(extra.status).toBe(422);
    expect(extra.body.detail.error.field).toBe('colour');
  });
});

describe('GET /rule field selection', () => {
  test('names select and -names remove, in the item and beside it; unknown names are refused', async () => {
    const all = await call(server, 'GET', `/rule?point=${POINT}`, { key });
    expect(all.status).toBe(200);
    expect(all.body.item.share.length).toBeGreaterThan(0);
    expect(all.body.authority.length).toBeGreaterThan(0);
    const minus = await call(server, 'GET', `/rule?point=${POINT}&field=-authority,-not_consulted`, { key });
    expect(minus.status).toBe(200);
    expect(minus.body.authority).toBeUndefined();
    expect(minus.body.item.not_consulted).toBeUndefined();
    expect(minus.body.item.share).toEqual(all.body.item.share);
    expect(minus.body.as_of).toBeDefined(); // never suppressed
    const only = await call(server, 'GET', `/rule?point=${POINT}&field=share`, { key });
    expect(Object.keys(only.body.item)).toEqual(['share']);
    expect(only.body.coverage).toBeUndefined();
    const bad = await call(server, 'GET', `/rule?point=${POINT}&field=shares`, { key });
    expect(bad.status).toBe(422);
    expect(bad.body.detail.error).toMatchObject({ code: 'field_unknown', field: 'field' });
  });
});
