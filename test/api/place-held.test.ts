// /place and /rule answer from what the store holds for Cambridge: property records of the
// parcel at the place, and the layers an include names, held or not, with a reason that changes
// as the store changes (a source's problem recorded, a source held, a layer's facts loaded).
// Also /place with a point and a buffer. Each test reads the store it changes; they run in order.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RunningServer } from '../../api/server.ts';
import { noteCoverageProblem, upsertCoverage } from '../../store/coverage.ts';
import { CAMBRIDGE } from '../helpers/jurisdictions.ts';
import { call, cambridgeApi } from '../helpers/server.ts';

let close = async () => {};
let server: RunningServer;
let key: string;
const POINT = '42.3629,-71.1113';
const [LAT, LON] = POINT.split(',').map(Number);

beforeAll(async () => {
  ({ server, key, close } = await cambridgeApi(10_000));
}, 120_000);
afterAll(async () => {
  await close();
});

const get = (path: string) => call(server, 'GET', path, { key });
const db = () => server.services.pool;
const includeReason = (body: any, layer: string) => body.item.not_consulted.find((n: { layer: string; via?: string }) => n.layer === layer && n.via === 'include')?.reason;
const layerReason = (body: any, layer: string) => body.layer?.find((n: { layer: string }) => n.layer === layer)?.reason;

describe('include=property on /place', () => {
  test('the property records of the parcel at the place, each with the roll version it was read from', async () => {
    const r = await get(`/place?point=${POINT}&include=property,parcel`);
    expect(r.status).toBe(200);
    const parcel = r.body.resolution.parcel;
    const held = await db().query(
      `SELECT p.id, s.key FROM property p JOIN source s ON s.id = p.source_id
        WHERE $1 = ANY(p.parcel_ids) AND upper_inf(p.known) AND upper_inf(p.valid) ORDER BY p.id`,
      [parcel],
    );
    expect(held.rows.length).toBeGreaterThan(0);
    const got = r.body.item.property as Array<any>;
    expect(got.map((p) => p.id).sort()).toEqual(held.rows.map((x) => x.id));
    for (const p of got) {
      expect(p.parcel).toContain(parcel);
      expect(p).toMatchObject({ object: 'property', jurisdiction: CAMBRIDGE, status: 'stated', source: { kind: 'assessor_roll', version: expect.stringMatching(/^ver_/), document: expect.stringMatching(/^doc_/) } });
      expect(held.rows.find((x) => x.id === p.id)!.key).toBe(p.source.key);
    }
    expect(got[0].label).toBe('23 ROCKWELL ST');
    expect(r.body.layer).toBeUndefined();
    expect(r.body.coverage.layer.assessor).toMatchObject({ held: true });
  });

  test('none in force then, or none known then, is said with the reason read from the store', async () => {
    const first = (await db().query(`SELECT min(lower(valid))::text AS d, min(lower(known)) AS k FROM property WHERE jurisdiction_id = $1`, [CAMBRIDGE])).rows[0];
    const early = await get(`/place?point=${POINT}&include=property&as_of=2001-01-01`);
    expect(early.status).toBe(200);
    expect(early.body.item.property).toBeUndefined();
    const reason = layerReason(early.body, 'property');
    expect(reason).toMatch(/^the assessor sources held for Cambridge \(.*assessor-fy2025.*\) hold no property record in force on 2001-01-01/);
    // as known before the rolls were loaded: the same, naming that instant
    const before = new Date(new Date(first.k).getTime() - 1000).toISOString();
    const unknown = await get(`/place?point=${POINT}&include=property&known_as_of=${encodeURIComponent(before)}`);
    expect(unknown.body.item.property).toBeUndefined();
    // (an instant inside a load's window is answered as known just before that load began)
    expect(unknown.body.as_of.known_as_of <= before).toBe(true);
    expect(layerReason(unknown.body, 'property')).toMatch(/hold no property record in force on \d{4}-\d{2}-\d{2} as known at /);
    expect(first.d > '2001-01-01').toBe(true);
  });

  test('a point in a street is no parcel: properties are held per parcel, said so', async () => {
    // a point inside the largest right-of-way polygon (a key without a digit) of the parcel layer
    const row = (
      await db().query(
        `SELECT ST_Y(ST_PointOnSurface(geom)) AS lat, ST_X(ST_PointOnSurface(geom)) AS lon FROM parcel
          WHERE jurisdiction_id = $1 AND attributes->>'key_status' = 'not_a_parcel_id' AND upper_inf(known) AND geom IS NOT NULL ORDER BY area_m2 DESC LIMIT 1`,
        [CAMBRIDGE],
      )
    ).rows[0];
    const r = await get(`/place?point=${row.lat},${row.lon}&include=property`);
    expect(r.status).toBe(200);
    expect(r.body.resolution.parcel).toBeNull();
    expect(r.body.item.property).toEqual([]);
    expect(layerReason(r.body, 'property')).toBe(`the location resolves to a ${r.body.resolution.grain}, not a parcel: property records are held per parcel`);
  });
});

describe('layers named as not held only where they are not, with reasons from the coverage rows', () => {
  test('special districts: no source, then a source that failed, then a source held but not read', async () => {
    const ask = async () => {
      const rule = await get(`/rule?point=${POINT}&include=special_district`);
      const place = await get(`/place?point=${POINT}&include=special_district`);
      if (rule.status !== 200) console.log(JSON.stringify(rule.body));
      expect([rule.status, place.status]).toEqual([200, 200]);
      expect(layerReason(place.body, 'special_district')).toBe(includeReason(rule.body, 'special_district'));
      return includeReason(rule.body, 'special_district');
    };
    expect(await ask()).toBe('no source of the special_district layer is held for Cambridge');
    await noteCoverageProblem(db(), CAMBRIDGE, 'special_district', 'water-districts', { at: '2026-01-05T10:00:00Z', stage: 'fetch', reason: 'HTTP 404 Not Found' });
    expect(await ask()).toBe('no source of the special_district layer is held for Cambridge: source water-districts failed at fetch on 2026-01-05: HTTP 404 Not Found');
    await upsertCoverage(db(), { jurisdictionId: CAMBRIDGE, layer: 'special_district', held: true, tier: 'full', sourceKey: 'water-districts' });
    expect(await ask()).toBe('the special_district sources held for Cambridge (water-districts) are held, but no special district is read from them into the store');
  });

  test('context layers: the include and each context_type share the context_layer row', async () => {
    const r = await get(`/place?point=${POINT}&include=context_layer&context_type=flood_zone,wetland`);
    expect(r.body.layer).toEqual([
      { layer: 'context_layer', held: false, reason: 'no source of the context_layer layer is held for Cambridge' },
      { layer: 'flood_zone', held: false, reason: 'no source of the context_layer layer is held for Cambridge' },
      { layer: 'wetland', held: false, reason: 'no source of the context_layer layer is held for Cambridge' },
    ]);
    await noteCoverageProblem(db(), CAMBRIDGE, 'context_layer', 'fema-nfhl', { at: '2026-02-01T00:00:00Z', stage: 'load', reason: 'no features in the file' });
    const again = await get(`/rule?point=${POINT}&include=context_layer`);
    expect(includeReason(again.body, 'context_layer')).toBe('no source of the context_layer layer is held for Cambridge: source fema-nfhl failed at load on 2026-02-01: no features in the file');
  });

  test('future land use: not held, then held (an area drawn over the point) and answered, as known from then on', async () => {
    const none = await get(`/rule?point=${POINT}&include=future_land_use`);
    expect(includeReason(none.body, 'future_land_use')).toBe('no source of the future_land_use layer is held for Cambridge');
    expect(none.body.item.future_land_use).toBeUndefined();
    const placeNone = await get(`/place?point=${POINT}&include=future_land_use`);
    expect(layerReason(placeNone.body, 'future_land_use')).toBe('no source of the future_land_use layer is held for Cambridge');
    // a plan map's area over the point, as a loader would hold it (a map version and its area fact)
    const before = new Date(Date.now() - 1000).toISOString();
    await db().query(
      `INSERT INTO map_version (id, jurisdiction_id, layer, feature_count, geometry_sha256, effective_from, known)
       VALUES ('map_flutest', $1, 'future_land_use', 1, repeat('0', 64), '2020-01-01', tstzrange(now(), NULL))`,
      [CAMBRIDGE],
    );
    await db().query(
      `INSERT INTO district_area (id, content_sha256, source_id, jurisdiction_id, district_id, kind, code_raw, map_version_id, geom, geom_sha256, valid, known)
       VALUES ('dst_flutest', 'x', 'src_flutest', $1, 'dst_flutest', 'future_land_use', 'Mixed Use Corridor', 'map_flutest',
               ST_Multi(ST_Buffer(ST_SetSRID(ST_MakePoint($2, $3), 4326)::geography, 200)::geometry), 'x', daterange('2020-01-01', NULL), tstzrange(now(), NULL))`,
      [CAMBRIDGE, LON, LAT],
    );
    // and its pieces, as the loader cuts every area (store/load/pieces.ts)
    await db().query(`INSERT INTO district_area_piece (fact_id, geom) SELECT fact_id, ST_Subdivide(geom, 256) FROM district_area WHERE id = 'dst_flutest'`);
    const held = await get(`/rule?point=${POINT}&include=future_land_use,provenance`);
    expect(held.status).toBe(200);
    expect(includeReason(held.body, 'future_land_use')).toBeUndefined();
    expect(held.body.item.future_land_use).toEqual([{ designation: 'Mixed Use Corridor', id: 'dst_flutest', share: 1, contains_point: true, map_version: 'map_flutest', version: null, effective_from: '2020-01-01', status: 'stated' }]);
    // a plan's designation is no zoning district: never among the districts of the place
    const ids = (b: any) => [...b.item.share, ...b.item.overlay].map((x: { district: { id: string } }) => x.district.id);
    expect(ids(held.body)).not.toContain('dst_flutest');
    expect((await get(`/v1/zoning?lat=${POINT.split(',')[0]}&lon=${POINT.split(',')[1]}`)).body.data.map((d: { id: string }) => d.id)).not.toContain('zon_flutest');
    const place = await get(`/place?point=${POINT}&include=future_land_use`);
    expect(place.body.item.future_land_use.map((f: { designation: string }) => f.designation)).toEqual(['Mixed Use Corridor']);
    expect(place.body.layer).toBeUndefined();
    // as known before the area was held: not held again
    const then = await get(`/rule?point=${POINT}&include=future_land_use&known_as_of=${encodeURIComponent(before)}`);
    expect(includeReason(then.body, 'future_land_use')).toBe('no source of the future_land_use layer is held for Cambridge');
  });
});

describe('/rule includes read from the code text and the ordinance list, where Cambridge holds neither', () => {
  test('definition and standalone_ordinance are named with the reason their coverage rows give', async () => {
    const ask = async () => {
      const r = await get(`/rule?point=${POINT}&include=definition,standalone_ordinance,provenance`);
      expect(r.status).toBe(200);
      expect(r.body.item.definition).toBeUndefined();
      expect(r.body.item.standalone_ordinance).toBeUndefined();
      // provenance is always read: the map's district areas and the manifest's authorities
      expect(r.body.item.provenance.map((p: { source: { kind: string } | null; doc_type: string }) => p.doc_type).sort()).toEqual(expect.arrayContaining(['manifest', 'map']));
      expect(includeReason(r.body, 'provenance')).toBeUndefined();
      return [includeReason(r.body, 'definition'), includeReason(r.body, 'standalone_ordinance')];
    };
    expect(await ask()).toEqual(['no source of the zoning_text layer is held for Cambridge', 'no source of the ordinance layer is held for Cambridge']);
    await noteCoverageProblem(db(), CAMBRIDGE, 'zoning_text', 'municode', { at: '2026-03-01T08:00:00Z', stage: 'load', reason: 'pdf_no_text_layer' });
    expect((await ask())[0]).toBe('no source of the zoning_text layer is held for Cambridge: source municode failed at load on 2026-03-01: pdf_no_text_layer');
  });
});

describe('/place with a point and a buffer', () => {
  test('the buffer is drawn in its unit around the point, and the districts are those of the circle', async () => {
    const circle = async (buffer: number, unit: string) => {
      const r = await get(`/place?point=${POINT}&buffer=${buffer}&buffer_unit=${unit}&include=assignment,boundary,property`);
      expect(r.status).toBe(200);
      expect(r.body.resolution).toMatchObject({ state: 'resolved', grain: 'area', parcel: null });
      const m2 = (await db().query('SELECT ST_Area(ST_GeomFromGeoJSON($1)::geography) AS a', [JSON.stringify(r.body.item.boundary)])).rows[0].a;
      return { r, m2 };
    };
    const m = await circle(60, 'm');
    expect(m.m2 / (Math.PI * 60 * 60)).toBeCloseTo(1, 1);
    const ft = await circle(60, 'ft');
    expect(ft.m2 / (Math.PI * (60 * 0.3048) ** 2)).toBeCloseTo(1, 1);
    // the districts the 60 m circle reaches, worked out here by PostGIS from the held map
    const expected = await db().query(
      `SELECT DISTINCT code_raw FROM district_area WHERE jurisdiction_id = $1 AND kind IN ('base', 'overlay') AND upper_inf(known) AND upper_inf(valid)
          AND ST_Intersects(geom, ST_Buffer(ST_SetSRID(ST_MakePoint($2, $3), 4326)::geography, 60)::geometry) ORDER BY 1`,
      [CAMBRIDGE, LON, LAT],
    );
    const codes = (m.r.body.item.assignment as Array<{ district: { code_raw: string }; share: number }>).map((a) => a.district.code_raw).sort();
    expect(expected.rows.length).toBeGreaterThan(1);
    for (const c of codes) expect(expected.rows.map((x) => x.code_raw)).toContain(c);
    expect(codes).toContain('BA-3');
    // an area is no parcel: no property records, said so
    expect(layerReason(m.r.body, 'property')).toBe('the location resolves to an area, not a parcel: property records are held per parcel');
    const alone = await get('/place?buffer=60&address=1%20Dana%20St');
    expect(alone.status).toBe(422);
    expect(alone.body.detail.error).toMatchObject({ field: 'buffer' });
    const unit = await get(`/place?point=${POINT}&buffer=60&buffer_unit=yd`);
    expect(unit.status).toBe(422);
    expect(unit.body.detail.error.field).toBe('buffer_unit');
  });
});
