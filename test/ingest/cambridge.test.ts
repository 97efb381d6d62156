// Cambridge through the whole pipeline on real PostGIS: maps and parcels with nothing dropped,
// the list/map mismatch reported, and a second run that changes nothing.
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { sharedDir } from '../../activities/fetch.ts';
import { readLayer } from '../../ingest/layers.ts';
import type { JurisdictionOutcome, SourceOutcome } from '../../workflows/logic.ts';
import { type PipelineHarness, pipelineHarness } from '../helpers/pipeline.ts';

let h: PipelineHarness;
let first: JurisdictionOutcome;
const source = (o: JurisdictionOutcome, key: string) => o.sources.find((s) => s.source === key) as SourceOutcome;

beforeAll(async () => {
  h = await pipelineHarness('cambridge');
  [first] = await h.ingest(['cambridge-ma']);
}, 120_000);
afterAll(async () => {
  await h.close();
});

describe('first run', () => {
  test('zoning districts: 261 polygons, none dropped, a map_ version with its hash', async () => {
    expect(source(first, 'zoning-districts')).toMatchObject({ state: 'loaded', counts: { features: 261, not_placed: 0, areas: 261 } });
    const { rows } = await h.pool.query(`SELECT feature_count, dropped_count, published_crs, geometry_sha256 FROM map_version WHERE layer = 'district'`);
    expect(rows).toEqual([{ feature_count: 261, dropped_count: 0, published_crs: 'EPSG:4326', geometry_sha256: expect.stringMatching(/^[0-9a-f]{64}$/) }]);
    const areas = await h.pool.query(`SELECT count(*)::int AS n, bool_and(ST_IsValid(geom)) AS valid FROM district_area WHERE kind = 'base'`);
    expect(areas.rows[0]).toEqual({ n: 261, valid: true });
  });

  test('overlays: 53 polygons; overlap polygons place each overlay they name', async () => {
    expect(source(first, 'zoning-overlays')).toMatchObject({ state: 'loaded', counts: { features: 53, not_placed: 0 } });
    const { rows } = await h.pool.query(`SELECT count(DISTINCT feature_ref)::int AS features FROM district_area WHERE kind = 'overlay'`);
    expect(rows[0].features).toBe(53);
  });

  test('parcels: 13,116 features, none dropped; the one without area is kept and flagged', async () => {
    expect(source(first, 'parcels-fy2014')).toMatchObject({ state: 'loaded', counts: { features: 13_116, dropped: 0, without_geometry: 1 } });
    const { rows } = await h.pool.query(`SELECT parcel_key, geom IS NULL AS no_geom, attributes->>'geometry_status' AS status FROM parcel WHERE parcel_key = '238-80'`);
    expect(rows).toEqual([{ parcel_key: '238-80', no_geom: true, status: 'no geometry' }]);
    const all = await h.pool.query(`SELECT count(*)::int AS n, count(*) FILTER (WHERE ST_IsValid(geom))::int AS valid FROM parcel`);
    expect(all.rows[0].valid).toBe(all.rows[0].n - 1);
    // the loader derives the layer hash in SQL (nothing held per feature); it is the parser's hash
    const layer = await readLayer({ path: resolve(sharedDir(), 'real/cambridge_ma/ASSESSING_ParcelsFY2014.topojson') }, { format: 'topojson', publishedCrs: 'EPSG:4326', keyField: 'ML' });
    const mv = await h.pool.query(`SELECT geometry_sha256, feature_count FROM map_version WHERE layer = 'parcel'`);
    expect(mv.rows).toEqual([{ geometry_sha256: layer.geometry_sha256, feature_count: 13_116 }]);
  });

  test('each parcel area is its polygon measured on the ellipsoid (within 0.5% of Massachusetts State Plane metres)', async () => {
    const { rows } = await h.pool.query(
      `SELECT count(*)::int AS n, max(abs(area_m2 / ST_Area(ST_Transform(geom, 26986)) - 1)) AS worst FROM parcel WHERE geom IS NOT NULL AND ST_Area(geom) > 0`,
    );
    expect(rows[0].n).toBeGreaterThan(13_000);
    expect(rows[0].worst).toBeLessThan(0.005);
  });

  test('the district list and the map disagree, and coverage says how', async () => {
    const { rows } = await h.pool.query(`SELECT detail->'sources'->'zoning-districts' AS d FROM coverage WHERE layer = 'district_map'`);
    expect(rows[0].d.listed_not_on_map).toEqual(['A-1', 'A-2', 'B', 'BC', 'C']);
    expect(rows[0].d.on_map_not_listed).toEqual(expect.arrayContaining(['CAM-10', 'MAS-12']));
  });

  test('district facts cite the exact text they came from', async () => {
    const { rows } = await h.pool.query(
      `SELECT c.quote, (c.locator->>'start')::int AS s, (c.locator->>'end')::int AS e, t.text
         FROM district d JOIN citation c ON c.id = d.citation_id JOIN version_text t ON t.version_id = c.version_id`,
    );
    expect(rows.length).toBeGreaterThan(90);
    for (const r of rows) expect(r.text.slice(r.s, r.e)).toBe(r.quote);
  });

  test('the jurisdiction takes its extent from the zoning map', async () => {
    const { rows } = await h.pool.query(`SELECT boundary_basis, ST_Area(boundary::geography) / 1e6 AS km2 FROM jurisdiction WHERE slug = 'cambridge-ma'`);
    expect(rows[0].boundary_basis).toBe('union of the zoning district map');
    expect(rows[0].km2).toBeGreaterThan(15);
    expect(rows[0].km2).toBeLessThan(19);
  });
});

test('a second run of unchanged sources makes no version, fact or event', async () => {
  const count = async () =>
    (await h.pool.query(`SELECT (SELECT count(*) FROM document_version) + (SELECT count(*) FROM district_area) + (SELECT count(*) FROM parcel) + (SELECT count(*) FROM district) + (SELECT count(*) FROM change_event) AS n`)).rows[0].n;
  const before = await count();
  const [again] = await h.ingest(['cambridge-ma']);
  for (const key of ['district-list', 'zoning-districts', 'zoning-overlays', 'parcels-fy2014']) {
    expect(source(again, key)).toMatchObject({ state: 'unchanged', newVersion: false, newEvents: 0 });
  }
  expect(await count()).toBe(before);
});
