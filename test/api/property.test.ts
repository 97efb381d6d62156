// Property records over Cambridge's real assessor rolls (the FY2014 tax roll and the FY2025
// property database) and parcels: owner names, places, scopes and sorts against the SQL of the
// rows held; what a roll does not publish is withheld with why; /place embeds the same records.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RunningServer } from '../../api/server.ts';
import { CAMBRIDGE } from '../helpers/jurisdictions.ts';
import { call, cambridgeApi } from '../helpers/server.ts';

/** An answer's JSON, as the tests read it. */
// biome-ignore lint/suspicious/noExplicitAny: answers are checked against the OpenAPI document, then read loosely
type J = any;

let close = async () => {};
let server: RunningServer;
let key: string;
const POINT = '42.3629,-71.1113';

beforeAll(async () => {
  ({ server, key, close } = await cambridgeApi(100_000));
}, 300_000);
afterAll(async () => {
  await close();
});

const get = (path: string) => call(server, 'GET', path, { key });
const db = () => server.services.pool;
const ids = (b: { item: Array<{ id: string }> }) => b.item.map((i) => i.id);

async function walk(path: string) {
  const items: J[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const r = await get(`${path}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    items.push(...r.body.item);
    cursor = r.body.page.next_cursor;
    pages++;
  } while (cursor);
  return { items, pages };
}

describe('owner_name over the FY2025 roll', () => {
  test('every property held under a name, as SQL finds it, walked in pages', async () => {
    const { rows } = await db().query(
      `SELECT o AS name, array_agg(DISTINCT id ORDER BY id) AS ids FROM property, jsonb_array_elements_text(ownership->'owners') o
        WHERE upper_inf(known) AND upper_inf(valid) GROUP BY o HAVING count(DISTINCT id) >= 3 ORDER BY count(DISTINCT id) DESC, o LIMIT 8`,
    );
    expect(rows.length).toBe(8);
    for (const r of rows) {
      const got = await walk(`/property?owner_name=${encodeURIComponent(r.name.toLowerCase())}&size=2&include=ownership`);
      expect(got.items.map((i) => i.id).sort(), r.name).toEqual(r.ids);
      expect(got.pages).toBe(Math.ceil(r.ids.length / 2));
      for (const i of got.items) expect(i.ownership.owners, r.name).toContain(r.name);
    }
  });
});

describe('what a roll does not publish', () => {
  test('the FY2014 tax roll names no owners and no tax: withheld with why; the FY2025 database states both', async () => {
    const r = await get(`/property?point=${POINT}&include=ownership,tax,assessment,structure`);
    expect(r.status).toBe(200);
    const old = r.body.item.find((i: J) => i.source.key === 'tax-roll-fy2014');
    expect(old.ownership).toMatchObject({ status: 'withheld', owners: [], withheld: [{ field: 'owners', reason: 'The Tax roll FY2014 publishes no owner names.' }] });
    expect(old.tax).toMatchObject({ status: 'withheld', amount_cents: null, reason: 'The Tax roll FY2014 publishes no tax amount.' });
    expect(old.assessment.fiscal_year).toBe(2014);
    const { rows } = await db().query(`SELECT p.id FROM property p JOIN source s ON s.id = p.source_id WHERE s.key = 'assessor-fy2025' AND (tax->>'amount_cents') IS NOT NULL AND ownership->'owners' <> '[]' LIMIT 1`);
    const now = await get(`/property/${rows[0].id}?include=ownership,tax`);
    expect(now.body.item.tax).toMatchObject({ status: 'stated', fiscal_year: 2025, amount_cents: expect.any(Number) });
    expect(now.body.item.ownership).toMatchObject({ status: 'stated', basis: 'assessor_roll' });
  });
});

describe('places and scopes', () => {
  test('a parcel holding 438 accounts: /property walks them all, /place embeds the first 100 of the same', async () => {
    const { rows } = await db().query(`SELECT parcel_ids[1] AS parcel, count(DISTINCT id)::int AS n FROM property WHERE parcel_key = '1A-109' AND upper_inf(known) GROUP BY 1`);
    const [{ parcel, n }] = rows;
    expect(n).toBe(438);
    const all = await walk(`/property?parcel=${parcel}&size=200`);
    expect(all.pages).toBe(3);
    expect(new Set(all.items.map((i) => i.id)).size).toBe(n);
    const labels = all.items.map((i) => i.label);
    expect(labels).toEqual([...labels].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    const place = await get(`/place?parcel=${parcel}&include=property`);
    expect(place.body.item.property).toHaveLength(100);
    expect(place.body.item.property_total).toBe(n);
    const listed = new Set(all.items.map((i) => i.id));
    for (const p of place.body.item.property) expect(listed.has(p.id)).toBe(true);
  });

  test('/place?include=property and /property at a point name the same records', async () => {
    const place = await get(`/place?point=${POINT}&include=property`);
    const list = await get(`/property?point=${POINT}`);
    expect(place.body.item.property.length).toBeGreaterThan(0);
    expect(place.body.item.property.map((p: J) => p.id).sort()).toEqual(ids(list.body).sort());
    expect(list.body.resolution).toMatchObject({ state: 'resolved', grain: 'parcel', parcel: place.body.resolution.parcel });
  });

  test('a point with a buffer: the properties of every parcel it meets, by distance', async () => {
    const r = await get(`/property?point=${POINT}&buffer=60&buffer_unit=m&sort=distance&size=200`);
    const { rows } = await db().query(
      `SELECT count(DISTINCT p.id)::int AS n FROM property p
        WHERE upper_inf(p.known) AND upper_inf(p.valid) AND p.parcel_ids && ARRAY(SELECT id FROM parcel WHERE upper_inf(known) AND upper_inf(valid)
          AND ST_Intersects(geom, ST_Buffer(ST_SetSRID(ST_MakePoint(-71.1113, 42.3629), 4326)::geography, 60)::geometry))`,
    );
    expect(r.body.item.length).toBe(rows[0].n);
    const d = r.body.item.map((i: J) => i.distance.value);
    expect(d[0]).toBe(0);
    expect([...d].sort((a, b) => a - b)).toEqual(d);
  });

  test('jurisdiction and county: the whole roll, counted; a scope holding no roll says so', async () => {
    const { rows } = await db().query(`SELECT count(DISTINCT id)::int AS n FROM property WHERE jurisdiction_id = $1 AND upper_inf(known) AND upper_inf(valid)`, [CAMBRIDGE]);
    expect(rows[0].n).toBeGreaterThan(10_000);
    const city = await get('/property?jurisdiction=cambridge-ma&size=3&total=true&sort=-year_built');
    expect(city.body.page.total).toEqual({ value: 10_000, relation: 'gte' });
    const oldest = await db().query(
      `SELECT id FROM (SELECT DISTINCT ON (id) id, (SELECT min((s->>'year_built')::int) FROM jsonb_array_elements(structure->'structures') s) AS y FROM property
        WHERE jurisdiction_id = $1 AND upper_inf(known) AND upper_inf(valid) ORDER BY id, fiscal_year DESC) x WHERE y IS NOT NULL ORDER BY y DESC, id DESC LIMIT 3`,
      [CAMBRIDGE],
    );
    expect(ids(city.body)).toEqual(oldest.rows.map((r) => r.id));
    const county = await get('/property?county=25017&size=3');
    expect(county.body.item.every((i: J) => i.jurisdiction.id === CAMBRIDGE)).toBe(true);
    const none = await get('/property?jurisdiction=us:county:25017');
    expect(none.status).toBe(200);
    expect(none.body.item).toEqual([]);
    expect(none.body.layer).toEqual([{ jurisdiction: expect.stringMatching(/^jur_/), layer: 'assessor', held: false, reason: 'no assessor roll of Middlesex County is held: its properties cannot be listed' }]);
    const condos = await get('/property?jurisdiction=cambridge-ma&use_raw=102&total=true&size=1');
    const c = await db().query(`SELECT count(DISTINCT id)::int AS n FROM property WHERE current_use->>'code' = '102' AND upper_inf(known) AND upper_inf(valid)`);
    expect(condos.body.page.total).toEqual(c.rows[0].n > 10_000 ? { value: 10_000, relation: 'gte' } : { value: c.rows[0].n, relation: 'eq' });
  });

  test('no recorder index held for Cambridge: /transaction says so', async () => {
    const r = await get('/transaction?jurisdiction=cambridge-ma');
    expect(r.status).toBe(200);
    expect(r.body.item).toEqual([]);
    expect(r.body.layer).toEqual([{ jurisdiction: CAMBRIDGE, layer: 'recorder', held: false, reason: 'no registry index of Cambridge is held: its recorded transactions cannot be listed' }]);
  });
});
