// Feature ids and TileJSON versions through loads, on Cambridge's data beside the synthetic town
// after three loads (EXPECTED.md): v1, v2 (R-2 shrinks and VC grows from 2026-05-15), and a third
// in which the publisher redraws parcel 1-7. An MVT id stays while a feature is drawn the same
// way, even when its row is re-inserted, and changes with the feature; the TileJSON minor
// version rises with each load and each date something took effect; with two towns 40 km apart,
// the center is on data, not on the ground between them.
import { VectorTile } from '@mapbox/vector-tile';
import { PbfReader } from 'pbf';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RunningServer } from '../../api/server.ts';
import { type SiteFile, siteFile } from '../../bin/synthetic-site.ts';
import { ingestedDatabase, type PipelineHarness, pipelineHarness, syntheticManifests } from '../helpers/pipeline.ts';
import { call, createTestOrg, startTestServer } from '../helpers/server.ts';
import { type SyntheticSite, startSyntheticSite } from '../helpers/synthetic-site.ts';
import { checkTileJson } from '../helpers/tilejson.ts';
import { tileAt } from '../helpers/tiles.ts';

let site: SyntheticSite;
let h: PipelineHarness;
let server: RunningServer;
let key: string;
const T1 = new Date('2026-03-05T12:00:00Z');
const T2 = new Date('2026-04-21T12:00:00Z');
const T3 = new Date('2026-06-10T12:00:00Z');
const BEFORE_V2 = '2026-04-01T00:00:00Z';
const BEFORE_T3 = '2026-05-01T00:00:00Z';
const AFTER_T3 = '2026-06-11T00:00:00Z';
/** Parcel 4-15 (EXPECTED.md), in R-2 until 2026-05-15. */
const P415 = { lat: 42.621706, lon: -71.493446 };

beforeAll(async () => {
  site = await startSyntheticSite({ version: 1 });
  const db = await ingestedDatabase('cambridge', ['cambridge-ma']);
  h = await pipelineHarness('tiles-versions', { manifestDir: await syntheticManifests(site.url), database: db });
  await h.ingest(['millbrook-ma'], { now: T1 });
  site.setVersion(2);
  await h.ingest(['millbrook-ma'], { now: T2 });
  // the publisher moves 1-7's north edge 7 m south
  const parcels = (siteFile(2, '/gis/parcels.geojson') as SiteFile).bytes.toString('utf8');
  const line = parcels.split('\n').find((l) => l.includes('"MAP_LOT": "1-7"')) as string;
  site.serve('/gis/parcels.geojson', parcels.replace(line, line.replace('930397.71', '930390.71').replace('930369.88', '930362.88')), 'application/geo+json');
  await h.ingest(['millbrook-ma'], { now: T3 });
  server = await startTestServer({ DATABASE_URL: h.url, RATE_LIMIT_PER_SECOND: '100000' });
  key = (await createTestOrg(server, 1000)).apiKey;
}, 300_000);
afterAll(async () => {
  await server?.close();
  await h?.close();
  await site?.close();
});

/** A tile's features (MVT id and properties) and its ETag. */
async function tile(layer: string, z: number, x: number, y: number, query: string) {
  const res = await fetch(`${server.url}/map/${layer}/${z}/${x}/${y}?${query}`, { headers: { 'X-API-Key': key } });
  expect(res.status, `${layer} ${z}/${x}/${y}?${query}`).toBe(200);
  const l = new VectorTile(new PbfReader(new Uint8Array(await res.arrayBuffer()))).layers[layer];
  const features = Array.from({ length: l.length }, (_, i) => l.feature(i)).map((f) => ({ id: f.id, properties: f.properties }));
  return { etag: res.headers.get('etag'), features, byId: new Map(features.map((f) => [String(f.properties.id), f.id])) };
}

const minor = (v: string) => Number(/^\d+\.(\d+)\.0$/.exec(v)?.[1]);

describe('MVT feature ids', () => {
  test("an area drawn the same way keeps its id though the load after it re-inserted its row; the town's other areas too", async () => {
    const { x, y } = tileAt(P415.lon, P415.lat, 15);
    const then = await tile('district', 15, x, y, `as_of=2026-05-14&known_as_of=${BEFORE_V2}`);
    const now = await tile('district', 15, x, y, 'as_of=2026-05-14');
    expect(then.features.map((f) => f.properties.code).sort()).toEqual(now.features.map((f) => f.properties.code).sort());
    for (const f of now.features) expect(Number.isSafeInteger(f.id), String(f.properties.code)).toBe(true);
    expect(now.byId).toEqual(then.byId);
    // R-2 as it was before 2026-05-15 is held by two rows: the one v1 loaded, and its past re-inserted by v2
    const r2 = now.features.find((f) => f.properties.code === 'R-2');
    const { rows } = await h.pool.query('SELECT count(DISTINCT fact_id)::int AS n FROM district_area WHERE id = $1 AND valid @> $2::date', [r2?.properties.id, '2026-05-14']);
    expect(rows[0].n).toBe(2);
  });

  test('a parcel redrawn by its publisher gets another id under the same parcel id; its neighbours keep theirs', async () => {
    const { rows } = await h.pool.query(
      `SELECT ST_X(p) AS lon, ST_Y(p) AS lat FROM (SELECT ST_PointOnSurface(geom) AS p FROM parcel WHERE parcel_key = '1-7' AND upper_inf(known) AND upper_inf(valid)) x`,
    );
    const { x, y } = tileAt(rows[0].lon, rows[0].lat, 14);
    const before = await tile('parcel', 14, x, y, `known_as_of=${BEFORE_T3}`);
    const after = await tile('parcel', 14, x, y, `known_as_of=${AFTER_T3}`);
    const now = await tile('parcel', 14, x, y, '');
    const p17 = before.features.find((f) => f.properties.parcel_key === '1-7');
    expect(p17).toBeDefined();
    const id17 = String(p17?.properties.id);
    expect(after.byId.has(id17)).toBe(true);
    expect(after.byId.get(id17)).not.toBe(before.byId.get(id17));
    expect(after.etag).not.toBe(before.etag);
    const others = [...before.byId.keys()].filter((id) => id !== id17);
    expect(others.length).toBeGreaterThan(0);
    for (const id of others) expect(after.byId.get(id), id).toBe(before.byId.get(id));
    // as known now, the same features with the same ids as just after the change
    expect(now.byId).toEqual(after.byId);
  });
});

describe('TileJSON', () => {
  test('the minor version rises with each load that changed the layer and each date something took effect', async () => {
    const version = async (layer: string, query: string) => checkTileJson((await call(server, 'GET', `/map/${layer}?${query}`, { key })).body).version;
    // districts: v2 is a load, and 2026-05-15 a date
    const d1 = await version('district', `as_of=2026-06-01&known_as_of=${BEFORE_V2}`);
    const d2 = await version('district', `as_of=2026-05-14&known_as_of=${BEFORE_T3}`);
    const d3 = await version('district', `as_of=2026-06-01&known_as_of=${BEFORE_T3}`);
    expect(minor(d1)).toBeLessThan(minor(d2));
    expect(minor(d2)).toBeLessThan(minor(d3));
    // parcels: v2 left them alone; the third load redrew 1-7
    const p1 = await version('parcel', `known_as_of=${BEFORE_V2}`);
    const p2 = await version('parcel', `known_as_of=${BEFORE_T3}`);
    const p3 = await version('parcel', `known_as_of=${AFTER_T3}`);
    expect(p2).toBe(p1);
    expect(minor(p3)).toBeGreaterThan(minor(p2));
  });

  test('with two towns, the center is on data, where the middle of the bounds is not', async () => {
    const onData = async (lon: number, lat: number) =>
      (
        await h.pool.query(
          `SELECT EXISTS (SELECT 1 FROM district_area WHERE kind = 'base' AND upper_inf(known) AND upper_inf(valid) AND ST_DWithin(geom, ST_SetSRID(ST_MakePoint($1, $2), 4326), 1e-9)) AS on`,
          [lon, lat],
        )
      ).rows[0].on;
    const t = checkTileJson((await call(server, 'GET', '/map/district', { key })).body);
    const [w, s, e, n] = t.bounds;
    // the bounds hold both towns: Millbrook at 71.5 W, Cambridge east of 71.17 W
    expect(w).toBeLessThan(-71.5);
    expect(e).toBeGreaterThan(-71.1);
    expect(await onData((w + e) / 2, (s + n) / 2)).toBe(false);
    expect(await onData(t.center[0], t.center[1])).toBe(true);
    // the larger town: Cambridge
    expect(t.center[0]).toBeGreaterThan(-71.17);
  });
});
