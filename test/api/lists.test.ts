// Lists of places (/v1/list) over real HTTP and PostGIS with Cambridge's parcels loaded through
// the pipeline: lists and sites created, read, paged newest first, changed and deleted; a site by
// parcel ids (an assemblage) or by an address found by the location matcher; what a site shows
// checked against SQL over the held polygons; PATCH semantics (null clears, parcel replaces the
// set, parcels kept keep when they joined); 422s naming the field; another organization's list
// and items are 404; parcels sent are charged once a day with a key, never to a person.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RunningServer } from '../../api/server.ts';
import { normalizeAddress } from '../../core/address.ts';
import { ingestedDatabase } from '../helpers/pipeline.ts';
import { type Call, call, createTestOrg, startTestServer } from '../helpers/server.ts';

let db: { url: string; drop: () => Promise<void> };
let server: RunningServer;
let key: string;
let orgId: string;
let keyId: string;
let otherKey: string;
// p1 and p2 touch (an assemblage); p3 is elsewhere; addressed: a parcel one address names alone
let p1: string;
let p2: string;
let p3: string;
let addressed: { id: string; address: string };

const q = async (sql: string, values: unknown[] = []) => (await server.services.pool.query(sql, values)).rows;
const v1 = (method: string, path: string, body?: unknown, k = key, headers: Record<string, string> = {}) => call(server, method, `/v1${path}`, { key: k, body, headers });
const refusal = (r: Call) => [r.status, r.body?.code, r.body?.errors?.[0]?.field];
const acres = (m2: number) => Math.round((m2 / 4046.8564224) * 1000) / 1000;

beforeAll(async () => {
  db = await ingestedDatabase('cambridge', ['cambridge-ma']);
  server = await startTestServer({ DATABASE_URL: db.url, RATE_LIMIT_PER_SECOND: '100000' });
  const a = await createTestOrg(server, 1000);
  ({ apiKey: key, organizationId: orgId } = a);
  keyId = (await q('SELECT id FROM api_key WHERE organization_id = $1', [orgId]))[0].id;
  otherKey = (await createTestOrg(server, 1000)).apiKey;
  // two parcels with numbers and assessor rows whose polygons meet
  const pair = await q(
    `WITH a AS (SELECT p.id, p.parcel_key, p.geom FROM parcel p
                 WHERE p.id IN (SELECT unnest(parcel_ids) FROM property WHERE label ~ '^[0-9]') AND p.geom IS NOT NULL AND p.parcel_key ~ '^[0-9]+-[0-9]+$'
                 ORDER BY p.parcel_key LIMIT 50)
     SELECT a.id AS a, b.id AS b FROM a JOIN parcel b ON b.geom && a.geom AND ST_Intersects(a.geom, b.geom) AND b.id <> a.id AND b.parcel_key ~ '^[0-9]+-[0-9]+$'
      ORDER BY a.parcel_key, b.parcel_key LIMIT 1`,
  );
  [p1, p2] = [pair[0].a, pair[0].b];
  p3 = (await q(`SELECT id FROM parcel WHERE geom IS NOT NULL AND NOT (id = ANY($1)) ORDER BY parcel_key DESC LIMIT 1`, [[p1, p2]]))[0].id;
  // an address held for exactly one parcel, written as the matcher normalizes it
  const unique = await q(
    `SELECT normalized, min(parcel_id) AS id FROM address_point WHERE parcel_id IS NOT NULL AND normalized ~ '^[0-9]+ [A-Z]+ ST$'
      GROUP BY normalized HAVING count(DISTINCT parcel_id) = 1 ORDER BY normalized LIMIT 50`,
  );
  const fit = unique.find((r) => normalizeAddress(r.normalized).normalized === r.normalized)!;
  addressed = { id: fit.id, address: fit.normalized };
});
afterAll(async () => {
  await server?.close();
  await db?.drop();
});

async function newList(name = 'Sites', k = key) {
  const r = await v1('POST', '/list', { name }, k);
  expect(r.status).toBe(201);
  return r.body.id as string;
}

describe('lists', () => {
  test('create, read, list newest first, rename with If-Match, delete (204)', async () => {
    const made = await v1('POST', '/list', { name: '  Waterfront  ', description: 'candidates' });
    expect(made.status).toBe(201);
    const id: string = made.body.id;
    expect(made.body).toMatchObject({ object: 'list', id: expect.stringMatching(/^lst_/), name: 'Waterfront', description: 'candidates', item_count: 0, href: `/v1/list/${id}` });
    expect(made.headers.get('location')).toBe(`/v1/list/${id}`);
    const etag = made.headers.get('etag')!;
    const later = await newList('Later');

    const got = await v1('GET', `/list/${id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(made.body);
    const page = await v1('GET', '/list');
    expect(page.body.object).toBe('list');
    const ids = page.body.data.map((l: { id: string }) => l.id);
    expect(ids.indexOf(later)).toBeLessThan(ids.indexOf(id));

    const renamed = await v1('PATCH', `/list/${id}`, { name: 'Harbor', description: null }, key, { 'If-Match': etag });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: 'Harbor', description: null, version: 2 });
    expect(Date.parse(renamed.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(made.body.updated_at));
    expect(refusal(await v1('PATCH', `/list/${id}`, { name: 'Stale' }, key, { 'If-Match': etag }))).toEqual([409, 'version_conflict', undefined]);
    expect(refusal(await v1('PATCH', `/list/${id}`, { name: '' }))).toEqual([422, 'parameter_invalid', 'name']);
    expect(refusal(await v1('POST', '/list', { description: 'no name' }))).toEqual([422, 'parameter_invalid', 'name']);

    const gone = await v1('DELETE', `/list/${id}`);
    expect(gone.status).toBe(204);
    expect(gone.body).toBeNull();
    expect(refusal(await v1('GET', `/list/${id}`))).toEqual([404, 'no_such_resource', undefined]);
    expect(refusal(await v1('GET', '/list/not-an-id'))).toEqual([422, 'id_malformed', 'list_id']);
  });

  test('lists page newest first with cursor and size; size is 1 to 200', async () => {
    const o = await createTestOrg(server, 10);
    const made: string[] = [];
    for (let i = 0; i < 5; i++) made.push(await newList(`L${i}`, o.apiKey));
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const r: Call = await v1('GET', `/list?size=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}${pages === 0 ? '&total=true' : ''}`, undefined, o.apiKey);
      expect(r.status).toBe(200);
      if (pages === 0) expect(r.body.total).toEqual({ value: 5, relation: 'eq' });
      expect(r.body.has_more).toBe(r.body.next_cursor !== null);
      seen.push(...r.body.data.map((l: { id: string }) => l.id));
      cursor = r.body.next_cursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual([...made].reverse());
    expect(refusal(await v1('GET', '/list?size=0', undefined, o.apiKey))[0]).toBe(422);
    expect(refusal(await v1('GET', '/list?size=201', undefined, o.apiKey))).toEqual([422, 'parameter_invalid', 'size']);
  });
});

describe('sites', () => {
  test('a site of two parcels: its parcels, area, geometry, centroid and jurisdiction as held', async () => {
    const list = await newList();
    const r = await v1('POST', `/list/${list}/item`, { name: 'Corner assemblage', parcel: [p1, p2], filter: { type: ['building'] }, notes: 'call owner' });
    expect(r.status).toBe(201);
    const it = r.body;
    expect(it).toMatchObject({ object: 'list_item', id: expect.stringMatching(/^lsi_/), list, kind: 'site', name: 'Corner assemblage', status: 'new', notes: 'call owner', filter: { type: ['building'] }, added_by: keyId, href: `/v1/list/${list}/item/${it.id}` });
    expect(r.headers.get('location')).toBe(it.href);

    const held = await q(`SELECT id, parcel_key, area_m2 FROM parcel WHERE id = ANY($1) AND known @> now()`, [[p1, p2]]);
    const byId = new Map(held.map((h) => [h.id, h]));
    expect(it.parcel.map((p: { id: string }) => p.id)).toEqual([p1, p2]);
    for (const p of it.parcel) {
      expect(p).toMatchObject({ number: byId.get(p.id).parcel_key, acres: acres(byId.get(p.id).area_m2), href: `/parcel/${p.id}` });
      expect(Date.parse(p.added_at)).toBeGreaterThan(0);
    }
    const [site] = await q(
      `SELECT ST_Area(ST_Union(geom)::geography) AS m2, ST_Y(ST_Centroid(ST_Union(geom))) AS lat, ST_X(ST_Centroid(ST_Union(geom))) AS lon
         FROM parcel WHERE id = ANY($1) AND known @> now()`,
      [[p1, p2]],
    );
    expect(it.acres).toBe(acres(site.m2));
    expect(it.centroid.lat).toBeCloseTo(site.lat, 6);
    expect(it.centroid.lon).toBeCloseTo(site.lon, 6);
    expect(['Polygon', 'MultiPolygon']).toContain(it.geometry.type);
    // the union as GeoJSON at 7 decimals (about a centimetre) covers the same ground
    const [diff] = await q(`SELECT ST_Area(ST_SymDifference(ST_Union(geom), ST_SetSRID(ST_GeomFromGeoJSON($2), 4326))::geography) AS m2 FROM parcel WHERE id = ANY($1)`, [[p1, p2], JSON.stringify(it.geometry)]);
    expect(diff.m2).toBeLessThan(Math.max(1, site.m2 * 1e-4));
    expect(it.jurisdiction).toMatchObject({ name: 'Cambridge', type: 'city', fips: 'us:cousub:2501711000', href: `/jurisdiction/${it.jurisdiction.id}` });
    // Cambridge's rolls print site addresses without a ZIP code: none is held, none is made up
    const zips = await q(`SELECT 1 FROM property, jsonb_array_elements(addresses) a WHERE parcel_ids && $1 AND a->>'postal_code' IS NOT NULL`, [[p1, p2]]);
    expect(zips).toHaveLength(0);
    expect(it.postal_code).toBeNull();
    const [roll] = await q(
      `SELECT a->>'street_line_1' AS line FROM property pr, jsonb_array_elements(pr.addresses) a WHERE pr.parcel_ids @> ARRAY[$1] AND a->>'street_line_1' IS NOT NULL
        ORDER BY upper_inf(pr.valid) DESC, pr.fiscal_year DESC NULLS LAST, 1 LIMIT 1`,
      [p1],
    );
    expect(roll).toBeDefined();
    expect(it.parcel[0].address).toBe(`${roll.line}, Cambridge MA`);
    expect(it.address).toBe(it.parcel[0].address);

    const got = await v1('GET', `/list/${list}/item/${it.id}`);
    expect(got.body).toEqual(it);
    const after = (await v1('GET', `/list/${list}`)).body;
    expect(after.item_count).toBe(1);
    expect(Date.parse(after.updated_at)).toBeGreaterThanOrEqual(Date.parse(it.created_at));
    const kept = await q('SELECT parcel_id, added_at FROM list_item_parcel WHERE item_id = $1 ORDER BY position', [it.id]);
    expect(kept.map((k) => k.parcel_id)).toEqual([p1, p2]);
  });

  test('a site by address: the parcel the location matcher finds, the address as given', async () => {
    const list = await newList();
    const r = await v1('POST', `/list/${list}/item`, { address: addressed.address, status: 'reviewing' });
    expect(r.status).toBe(201);
    expect(r.body.parcel.map((p: { id: string }) => p.id)).toEqual([addressed.id]);
    expect(r.body).toMatchObject({ address: addressed.address, status: 'reviewing', name: null, notes: null, filter: null });
    // the batch finds the same parcel for the same address
    const batch = await call(server, 'POST', '/v1/parcel/batch', { key, body: { item: [{ address: addressed.address }] } });
    expect(batch.body.item[0].parcel.id).toBe(addressed.id);
  });

  test('refusals name the field: parcels by index, the address with its candidates, the body', async () => {
    const list = await newList();
    const add = (body: unknown) => v1('POST', `/list/${list}/item`, body);
    expect(refusal(await add({ parcel: [p1, 'prc_00000000000000000000'] }))).toEqual([422, 'parameter_invalid', 'parcel[1]']);
    expect(refusal(await add({ parcel: ['prc_bad'] }))).toEqual([422, 'id_malformed', 'parcel[0]']);
    expect(refusal(await add({ parcel: [p1, p2, p1] }))).toEqual([422, 'parameter_invalid', 'parcel[2]']);
    expect(refusal(await add({ parcel: [] }))).toEqual([422, 'parameter_invalid', 'parcel']);
    expect(refusal(await add({ name: 'nowhere' }))).toEqual([422, 'parameter_invalid', 'parcel']);
    expect(refusal(await add({ parcel: [p1], address: addressed.address }))).toEqual([422, 'parameter_invalid', 'address']);
    expect(refusal(await add({ parcel: [p1], filter: ['not', 'an', 'object'] }))).toEqual([422, 'parameter_invalid', 'filter']);
    expect(refusal(await add({ parcel: [p1], status: 'won' }))[2]).toBe('status');
    let deep: unknown = 1;
    for (let i = 0; i < 20; i++) deep = { x: deep };
    expect(refusal(await add({ parcel: [p1], filter: deep }))).toEqual([422, 'parameter_invalid', 'filter']);
    // a monitor reads kind, type and status: any other key, or a kind it does not know, is refused by name
    expect(refusal(await add({ parcel: [p1], filter: { zoning: 'R-1' } }))).toEqual([422, 'parameter_invalid', 'filter.zoning']);
    expect(refusal(await add({ parcel: [p1], filter: { kind: ['permit', 'deed'] } }))).toEqual([422, 'parameter_invalid', 'filter.kind']);
    // one letter off: no address matches exactly, the closest are named with their parcels
    const near = await add({ address: addressed.address.replace(/ ST$/, ' STT') });
    expect(refusal(near)).toEqual([422, 'location_ambiguous', 'address']);
    expect(near.body.detail).toContain(addressed.id);
    expect(refusal(await add({ address: '99999 Zzyzxqqv Rd' }))).toEqual([422, 'location_unmatched', 'address']);
    // a street alone is coarser than a parcel
    const street = await add({ address: addressed.address.replace(/^[0-9]+ /, '') });
    expect([street.status, street.body.errors[0].field]).toEqual([422, 'address']);
    expect((await v1('GET', `/list/${list}`)).body.item_count).toBe(0);
  });

  test('PATCH: null clears, status null is new, parcel replaces the set (kept parcels keep when they joined), filter replaced whole', async () => {
    const list = await newList();
    const made = (await v1('POST', `/list/${list}/item`, { name: 'A', notes: 'n', parcel: [p1, p2], filter: { kind: 'permit', status: ['issued'] } })).body;
    const before = new Map((await q('SELECT parcel_id, added_at FROM list_item_parcel WHERE item_id = $1', [made.id])).map((r) => [r.parcel_id, r.added_at.toISOString()]));
    const path = `/list/${list}/item/${made.id}`;

    const one = await v1('PATCH', path, { status: 'pursuing', filter: { type: 'demolition' } });
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ name: 'A', notes: 'n', status: 'pursuing', filter: { type: 'demolition' }, version: 2 });
    expect(one.body.parcel.map((p: { id: string }) => p.id)).toEqual([p1, p2]);

    const etag = (await v1('GET', path)).headers.get('etag')!;
    const two = await v1('PATCH', path, { name: null, notes: null, filter: null, status: null, parcel: [p2, p3] }, key, { 'If-Match': etag });
    expect(two.status).toBe(200);
    expect(two.body).toMatchObject({ name: null, notes: null, filter: null, status: 'new' });
    expect(two.body.parcel.map((p: { id: string }) => p.id)).toEqual([p2, p3]);
    const after = new Map((await q('SELECT parcel_id, added_at FROM list_item_parcel WHERE item_id = $1', [made.id])).map((r) => [r.parcel_id, r.added_at.toISOString()]));
    expect([...after.keys()].sort()).toEqual([p2, p3].sort());
    expect(after.get(p2)).toBe(before.get(p2));
    expect(Date.parse(after.get(p3)!)).toBeGreaterThan(Date.parse(before.get(p2)!));
    expect(two.body.parcel[0].added_at).toBe(before.get(p2));
    expect(refusal(await v1('PATCH', path, { name: 'stale' }, key, { 'If-Match': etag }))).toEqual([409, 'version_conflict', undefined]);

    expect(refusal(await v1('PATCH', path, { parcel: null }))).toEqual([422, 'parameter_invalid', 'parcel']);
    expect(refusal(await v1('PATCH', path, { parcel: [] }))).toEqual([422, 'parameter_invalid', 'parcel']);
    expect(refusal(await v1('PATCH', path, { parcel: [p2, 'prc_00000000000000000000'] }))).toEqual([422, 'parameter_invalid', 'parcel[1]']);
    expect(refusal(await v1('PATCH', path, { filter: 'x' }))).toEqual([422, 'parameter_invalid', 'filter']);
    expect(refusal(await v1('PATCH', path, { address: 'x' }))).toEqual([422, 'parameter_invalid', 'address']);
    const still = (await v1('GET', path)).body;
    expect(still.parcel.map((p: { id: string }) => p.id)).toEqual([p2, p3]);

    // a site added by address forgets the address once its parcels are replaced
    const byAddress = (await v1('POST', `/list/${list}/item`, { address: addressed.address })).body;
    const replaced = await v1('PATCH', `/list/${list}/item/${byAddress.id}`, { parcel: [p3] });
    expect(replaced.body.address).toBe(replaced.body.parcel[0].address);
    expect(replaced.body.address).not.toBe(addressed.address);
  });

  test('parcels sent cost a credit each with a key, free again within a day; a person is not charged', async () => {
    const o = await createTestOrg(server, 100);
    const list = await newList('Charged', o.apiKey);
    const item = (await v1('POST', `/list/${list}/item`, { parcel: [p1, p2] }, o.apiKey)).body;
    await v1('PATCH', `/list/${list}/item/${item.id}`, { parcel: [p2, p3] }, o.apiKey);
    await v1('PATCH', `/list/${list}/item/${item.id}`, { name: 'no parcels sent' }, o.apiKey);
    const priced = await v1('PATCH', `/list/${list}/item/${item.id}?dry_run=true`, { parcel: [p1, p2, p3] }, o.apiKey);
    expect(priced.body).toMatchObject({ object: 'dry_run', cost_estimate: 3 });
    const session = await call(server, 'POST', '/session', { body: { email: o.email, password: o.password, organization_id: o.organizationId } });
    const bearer = session.body.item.access_token;
    const byPerson = await call(server, 'POST', `/v1/list/${list}/item`, { bearer, body: { parcel: [addressed.id] } });
    expect(byPerson.status).toBe(201);
    const me = await call(server, 'GET', '/me', { bearer });
    expect(byPerson.body.added_by).toBe(me.body.item.user_id);
    await server.services.meter.flush();
    const used = await q(`SELECT endpoint, credits FROM usage_event WHERE organization_id = $1 AND endpoint LIKE '%/item%' ORDER BY id`, [o.organizationId]);
    // add p1 p2: 2; replace with p2 p3: p3 only; no parcels sent: 0; a dry run: 0; a person: 0
    expect(used.map((u) => Number(u.credits))).toEqual([2, 1, 0, 0, 0]);
  });

  test('items page newest first and filter by status; deleting a site or a list removes its rows', async () => {
    const list = await newList();
    const made: string[] = [];
    for (const [i, status] of (['new', 'passed', 'new', 'passed', 'new'] as const).entries()) made.push((await v1('POST', `/list/${list}/item`, { name: `S${i}`, status, parcel: [i % 2 ? p1 : p3] })).body.id);
    const first = await v1('GET', `/list/${list}/item?size=2`);
    expect(first.body.data.map((x: { id: string }) => x.id)).toEqual([made[4], made[3]]);
    expect(first.body.has_more).toBe(true);
    const second = await v1('GET', `/list/${list}/item?size=2&cursor=${encodeURIComponent(first.body.next_cursor)}`);
    expect(second.body.data.map((x: { id: string }) => x.id)).toEqual([made[2], made[1]]);
    const passed = await v1('GET', `/list/${list}/item?status=passed&total=true`);
    expect(passed.body.data.map((x: { id: string }) => x.id)).toEqual([made[3], made[1]]);
    expect(passed.body.total).toEqual({ value: 2, relation: 'eq' });

    expect((await v1('DELETE', `/list/${list}/item/${made[0]}`)).status).toBe(204);
    expect(refusal(await v1('GET', `/list/${list}/item/${made[0]}`))).toEqual([404, 'no_such_resource', undefined]);
    expect((await v1('GET', `/list/${list}`)).body.item_count).toBe(4);
    expect((await v1('DELETE', `/list/${list}`)).status).toBe(204);
    expect(await q('SELECT id FROM list_item WHERE id = ANY($1)', [made])).toEqual([]);
    expect(await q('SELECT item_id FROM list_item_parcel WHERE item_id = ANY($1)', [made])).toEqual([]);
    expect(refusal(await v1('GET', `/list/${list}/item`))).toEqual([404, 'no_such_resource', undefined]);
  });

  test("another organization's list and items are 404, never 403, and never listed", async () => {
    const list = await newList('Private');
    const item = (await v1('POST', `/list/${list}/item`, { parcel: [p1] })).body.id;
    const other = await newList('Elsewhere');
    const paths: Array<[string, string, unknown?]> = [
      ['GET', `/list/${list}`],
      ['PATCH', `/list/${list}`, { name: 'x' }],
      ['DELETE', `/list/${list}`],
      ['GET', `/list/${list}/item`],
      ['POST', `/list/${list}/item`, { parcel: [p2] }],
      ['GET', `/list/${list}/item/${item}`],
      ['PATCH', `/list/${list}/item/${item}`, { name: 'x' }],
      ['DELETE', `/list/${list}/item/${item}`],
    ];
    for (const [method, path, body] of paths) expect(refusal(await v1(method, path, body, otherKey))).toEqual([404, 'no_such_resource', undefined]);
    // an item asked under another list of the same organization is not there either
    expect(refusal(await v1('GET', `/list/${other}/item/${item}`))).toEqual([404, 'no_such_resource', undefined]);
    const theirs = await v1('GET', '/list?size=200', undefined, otherKey);
    expect(theirs.body.data.map((l: { id: string }) => l.id)).not.toContain(list);
    const mine = await v1('GET', `/list/${list}/item/${item}`);
    expect(mine.body.name).toBeNull();
  });
});
