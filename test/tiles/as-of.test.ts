// Maps through time, on the synthetic town after its v1 and v2 ingests (EXPECTED.md): parcel 4-15
// is rezoned R-2 → VC effective 2026-05-15. Tiles decoded with @mapbox/vector-tile answer the
// district at the parcel on each side of that date and as known before v2; ETags follow the map
// version in force; TileJSON honours bbox; GET /map states each version and its period; the map
// exhibit carries its stamp in headers.
import { VectorTile, type VectorTileFeature } from '@mapbox/vector-tile';
import { PbfReader } from 'pbf';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RunningServer } from '../../api/server.ts';
import { type PipelineHarness, pipelineHarness, syntheticManifests } from '../helpers/pipeline.ts';
import { call, createTestOrg, startTestServer } from '../helpers/server.ts';
import { type SyntheticSite, startSyntheticSite } from '../helpers/synthetic-site.ts';
import { tileAt } from '../helpers/tiles.ts';

let site: SyntheticSite;
let h: PipelineHarness;
let server: RunningServer;
let key: string;
const T1 = new Date('2026-03-05T12:00:00Z');
const T2 = new Date('2026-04-21T12:00:00Z');
const BEFORE_V2_KNOWN = '2026-04-01T00:00:00Z';
const BEFORE_V1_KNOWN = '2026-03-01T00:00:00Z';
/** Parcel 4-15 (221 Main St), EXPECTED.md. */
const P415 = { lat: 42.621706, lon: -71.493446 };

beforeAll(async () => {
  site = await startSyntheticSite({ version: 1 });
  h = await pipelineHarness('tiles-as-of', { manifestDir: await syntheticManifests(site.url) });
  await h.ingest(['millbrook-ma'], { now: T1 });
  site.setVersion(2);
  await h.ingest(['millbrook-ma'], { now: T2 });
  server = await startTestServer({ DATABASE_URL: h.url, RATE_LIMIT_PER_SECOND: '100000' });
  key = (await createTestOrg(server, 1000)).apiKey;
}, 180_000);
afterAll(async () => {
  await server?.close();
  await h?.close();
  await site?.close();
});

/** Even-odd point in polygon over all rings of a tile feature (holes and parts included). */
function covers(f: VectorTileFeature, px: number, py: number): boolean {
  let inside = false;
  for (const ring of f.loadGeometry()) {
    for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
      const a = ring[i];
      const b = ring[j];
      if (a.y > py !== b.y > py && px < ((b.x - a.x) * (py - a.y)) / (b.y - a.y) + a.x) inside = !inside;
    }
  }
  return inside;
}

async function tile(layer: string, z: number, query: string, headers: Record<string, string> = {}) {
  const { x, y, px, py } = tileAt(P415.lon, P415.lat, z);
  const res = await fetch(`${server.url}/map/${layer}/${z}/${x}/${y}${query ? `?${query}` : ''}`, { headers: { 'X-API-Key': key, ...headers } });
  const bytes = new Uint8Array(await res.arrayBuffer());
  const t = res.status === 200 ? new VectorTile(new PbfReader(bytes)) : null;
  const l = t?.layers[layer];
  const features = l ? Array.from({ length: l.length }, (_, i) => l.feature(i)) : [];
  const here = features.filter((f) => covers(f, px, py));
  return { res, etag: res.headers.get('etag'), features, here };
}

/** The district code the tile draws at parcel 4-15 (exactly one feature must cover it). */
async function districtAtParcel(z: number, query: string) {
  const r = await tile('district', z, query);
  expect(r.res.status, query).toBe(200);
  expect(r.here.length, `features covering 4-15 at z${z} ${query}`).toBe(1);
  return { code: String(r.here[0].properties.code), mapVersion: String(r.here[0].properties.map_version), etag: r.etag, features: r.features };
}

interface MapVersion {
  id: string;
  layer: string;
  effective_from: string;
  effective_through: string | null;
  geometry_sha256: string;
}
const mapVersions = async (query: string) => (await call(server, 'GET', `/map?jurisdiction=millbrook-ma&layer=district${query ? `&${query}` : ''}`, { key })).body.item as MapVersion[];

describe('district tiles at as_of across the rezoning of 4-15 (effective 2026-05-15)', () => {
  for (const z of [15, 16]) {
    test(`z${z}: R-2 on 2026-05-14, VC on 2026-05-15; the ETag follows the map version in force`, async () => {
      const [v1] = await mapVersions('as_of=2026-05-14');
      const [v2] = await mapVersions('as_of=2026-05-15');
      expect(v1.id).not.toBe(v2.id);

      const before = await districtAtParcel(z, 'as_of=2026-05-14');
      const after = await districtAtParcel(z, 'as_of=2026-05-15');
      expect(before.code).toBe('R-2');
      expect(after.code).toBe('VC');
      // the feature drawn there comes from the map in force on each date
      expect(before.mapVersion).toBe(v1.id);
      expect(after.mapVersion).toBe(v2.id);
      expect(before.etag).toMatch(/^".+"$/);
      expect(after.etag).not.toBe(before.etag);

      const repeat = await districtAtParcel(z, 'as_of=2026-05-15');
      expect(repeat.etag).toBe(after.etag);
      expect(repeat.code).toBe('VC');
      const cached = await tile('district', z, 'as_of=2026-05-15', { 'If-None-Match': after.etag! });
      expect(cached.res.status).toBe(304);
      // the old map's ETag does not validate the new map's tile
      expect((await tile('district', z, 'as_of=2026-05-15', { 'If-None-Match': before.etag! })).res.status).toBe(200);
    });
  }

  test('as known before v2 was ingested (known_as_of 2026-04-01), 4-15 is R-2 even on 2026-06-01', async () => {
    const then = await districtAtParcel(16, `as_of=2026-06-01&known_as_of=${BEFORE_V2_KNOWN}`);
    const now = await districtAtParcel(16, 'as_of=2026-06-01');
    expect(then.code).toBe('R-2');
    expect(now.code).toBe('VC');
    expect(then.etag).not.toBe(now.etag);
    // before v1 was known nothing is held: an empty tile, whose ETag is not the one known later
    const nothing = await tile('district', 16, `as_of=2026-06-01&known_as_of=${BEFORE_V1_KNOWN}`);
    expect(nothing.res.status).toBe(204);
    expect(nothing.etag).not.toBe(then.etag);
    // GET /map agrees: v1 in force on 2026-06-01 as known then, open-ended
    const known = await mapVersions(`as_of=2026-06-01&known_as_of=${BEFORE_V2_KNOWN}`);
    expect(known.map((m) => [m.id, m.effective_through])).toEqual([[then.mapVersion, null]]);
  });

  test('the v2 tile differs from v1 only by the strip moved from R-2 to VC', async () => {
    const before = await districtAtParcel(15, 'as_of=2026-05-14');
    const after = await districtAtParcel(15, 'as_of=2026-05-15');
    const codes = (fs: VectorTileFeature[]) => fs.map((f) => String(f.properties.code)).sort();
    expect(codes(after.features)).toEqual(codes(before.features));
    const r1 = (fs: VectorTileFeature[]) => fs.filter((f) => f.properties.code === 'R-1').map((f) => JSON.stringify(f.loadGeometry()));
    expect(r1(after.features)).toEqual(r1(before.features));
  });

  test('future_land_use: the town publishes none, so its tile is empty (204, with an ETag) and GET /map lists none', async () => {
    const flu = await tile('future_land_use', 15, 'as_of=2026-05-15');
    expect(flu.res.status).toBe(204);
    expect(flu.etag).toMatch(/^".+"$/);
    expect((await call(server, 'GET', '/map?jurisdiction=millbrook-ma&layer=future_land_use', { key })).body.item).toEqual([]);
  });
});

describe('TileJSON bbox', () => {
  test('a bbox outside the world, inverted or malformed is 422 parameter_invalid naming bbox', async () => {
    for (const bbox of ['-200,42,-71,43', '-71.5,-95,-71.4,42.7', '-71.4,42.6,-71.5,42.7', '-71.5,42.7,-71.4,42.6', '-71.5,42.6,-71.4', 'a,b,c,d']) {
      const r = await call(server, 'GET', `/map/district?bbox=${bbox}`, { key });
      expect(r.status, bbox).toBe(422);
      expect(r.body.detail.error).toMatchObject({ code: 'parameter_invalid', field: 'bbox' });
    }
  });

  test('bounds are the data in force, cut to the bbox; a bbox with no data is its own bounds', async () => {
    const all = (await call(server, 'GET', '/map/district', { key })).body;
    const [w, s, e, n] = all.bounds as number[];
    // the town's extent (EXPECTED.md: about 42.62 N, 71.50 W, 2.1 km by 2.3 km)
    expect(w).toBeCloseTo(-71.516, 2);
    expect(n).toBeCloseTo(42.631, 2);
    expect(e - w).toBeGreaterThan(0.02);
    expect(e - w).toBeLessThan(0.05);

    const cut = (await call(server, 'GET', `/map/district?bbox=-71.5,42.6,-71.49,42.625`, { key })).body;
    expect(cut.bounds[0]).toBe(-71.5);
    expect(cut.bounds[1]).toBeCloseTo(s, 9); // the data starts north of the bbox's south edge
    expect(cut.bounds[2]).toBe(-71.49);
    expect(cut.bounds[3]).toBe(42.625);
    expect(cut.center[0]).toBeCloseTo(-71.495, 6);

    const wider = (await call(server, 'GET', '/map/district?bbox=-72,42,-71,43', { key })).body;
    expect(wider.bounds).toEqual(all.bounds);

    const elsewhere = (await call(server, 'GET', '/map/district?bbox=-71.2,42.3,-71.0,42.4', { key })).body;
    expect(elsewhere.bounds).toEqual([-71.2, 42.3, -71.0, 42.4]);
  });

  test('TileJSON follows time: its version changes with the map in force and its tile URL carries as_of', async () => {
    const a = (await call(server, 'GET', '/map/district?as_of=2026-05-14', { key })).body;
    const b = (await call(server, 'GET', '/map/district?as_of=2026-05-15', { key })).body;
    const none = (await call(server, 'GET', '/map/district?as_of=2020-01-01', { key })).body;
    expect(a.version).not.toBe(b.version);
    // semver, its minor rising with each date something took effect (none by 2020)
    const minor = (v: string) => Number(/^\d+\.(\d+)\.0$/.exec(v)?.[1]);
    expect(minor(none.version)).toBeLessThan(minor(a.version));
    expect(minor(a.version)).toBeLessThan(minor(b.version));
    expect(none.bounds).toEqual([-180, -85.0511, 180, 85.0511]);
    expect(b.tiles[0]).toMatch(/\/map\/district\/\{z\}\/\{x\}\/\{y\}\?as_of=2026-05-15$/);
  });
});

describe('GET /map', () => {
  test('each version states its CRS, geometry hash and effective period', async () => {
    const items = await mapVersions('as_of=from:2026-03-01 to:2026-12-31');
    expect(items.length).toBe(2);
    const [v1, v2] = items;
    for (const m of items) {
      expect(m).toMatchObject({ layer: 'district', published_crs: 'EPSG:26986', feature_count: 4, dropped_count: 0 });
      expect(m.geometry_sha256).toMatch(/^[0-9a-f]{64}$/);
      expect(m.id).toMatch(/^map_/);
    }
    expect(v1.geometry_sha256).not.toBe(v2.geometry_sha256);
    expect(v1).toMatchObject({ effective_from: '2026-03-05', effective_through: '2026-05-15', effective_basis: 'first_observed' });
    expect(v2).toMatchObject({ effective_from: '2026-05-15', effective_through: null, effective_basis: 'stated' });
    const parcels = (await call(server, 'GET', '/map?jurisdiction=millbrook-ma&layer=parcel', { key })).body.item;
    expect(parcels).toMatchObject([{ layer: 'parcel', feature_count: 21, published_crs: 'EPSG:26986', effective_through: null }]);
  });

  test('the time filter: nothing before the first map; v2 only from its effective date', async () => {
    expect(await call(server, 'GET', '/map?jurisdiction=millbrook-ma&as_of=2026-03-04', { key }).then((r) => r.body.item)).toEqual([]);
    expect(await call(server, 'GET', '/map?as_of=2020-01-01', { key }).then((r) => r.body.item)).toEqual([]);
    const v1 = await mapVersions('as_of=2026-03-05');
    expect(v1.map((m) => m.effective_from)).toEqual(['2026-03-05']);
    expect((await mapVersions('as_of=2026-05-14')).map((m) => m.id)).toEqual(v1.map((m) => m.id));
    const v2 = await mapVersions('as_of=2026-05-15');
    expect(v2.map((m) => m.effective_from)).toEqual(['2026-05-15']);
    expect((await mapVersions('')).map((m) => m.id)).toEqual(v2.map((m) => m.id)); // today (after 2026-05-15)
    expect((await mapVersions('as_of=from:2026-05-01 to:2026-05-14')).map((m) => m.id)).toEqual(v1.map((m) => m.id));
    expect((await mapVersions('as_of=from:2026-05-14 to:2026-05-15')).map((m) => m.id)).toEqual([v1[0].id, v2[0].id]);
    // before v2 was known, no version starts on 2026-05-15
    expect((await mapVersions(`as_of=2026-05-15&known_as_of=${BEFORE_V2_KNOWN}`)).map((m) => m.id)).toEqual(v1.map((m) => m.id));
    expect(await mapVersions(`known_as_of=${BEFORE_V1_KNOWN}`)).toEqual([]);
  });
});

/** Where a point falls in an exhibit of a bbox (tiles/image.ts: Web Mercator, one scale, 70 px footer). */
function exhibitPixel(bbox: string, width: number, height: number, p: { lat: number; lon: number }) {
  const merc = (lon: number, lat: number) => [(lon * Math.PI * 6378137) / 180, 6378137 * Math.log(Math.tan(Math.PI / 4 + (lat * Math.PI) / 360))];
  const [w, s, e, n] = bbox.split(',').map(Number);
  const [x0, y0] = merc(w, s);
  const [x1, y1] = merc(e, n);
  const scale = Math.min(width / (x1 - x0), (height - 70) / (y1 - y0));
  const [px, py] = merc(p.lon, p.lat);
  return { x: Math.round((px - x0) * scale), y: Math.round((y1 - py) * scale) };
}

describe('the map exhibit', () => {
  const bbox = '-71.4975,42.6195,-71.4895,42.6240';

  test('its headers repeat the stamp: map version in force, its effective date, retrieval time, as_of and known_as_of', async () => {
    const { PNG } = await import('pngjs');
    const pixels: number[] = [];
    for (const asOf of ['2026-05-14', '2026-05-15']) {
      const res = await fetch(`${server.url}/map/district/image?bbox=${bbox}&width=400&height=300&as_of=${asOf}`, { headers: { 'X-API-Key': key } });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/png');
      const [m] = await mapVersions(`as_of=${asOf}`);
      expect(res.headers.get('x-map-version')).toBe(m.id);
      expect(res.headers.get('x-map-effective-from')).toBe(m.effective_from);
      expect(res.headers.get('x-as-of')).toBe(asOf);
      expect(Date.parse(res.headers.get('x-known-as-of')!)).toBeGreaterThan(T2.getTime());
      const retrieved = res.headers.get('x-source-retrieved-at')!;
      expect(retrieved).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/);
      // v1 was fetched at the first ingest, v2 at the second
      expect(retrieved.slice(0, 10)).toBe(asOf === '2026-05-14' ? '2026-03-05' : '2026-04-21');
      const png = PNG.sync.read(Buffer.from(await res.arrayBuffer()));
      const { x, y } = exhibitPixel(bbox, 400, 300, P415);
      pixels.push(png.data.readUInt32BE((png.width * y + x) * 4));
    }
    // 4-15 is painted in R-2's colour, then in VC's
    expect(pixels[0]).not.toBe(pixels[1]);
    const then = await fetch(`${server.url}/map/district/image?bbox=${bbox}&width=400&height=300&as_of=2026-06-01&known_as_of=${BEFORE_V2_KNOWN}`, { headers: { 'X-API-Key': key } });
    expect(then.status).toBe(200);
    expect(then.headers.get('x-map-version')).toBe((await mapVersions('as_of=2026-05-14'))[0].id);
    expect(then.headers.get('x-known-as-of')).toBe(new Date(BEFORE_V2_KNOWN).toISOString().replace('.000Z', '.000000Z'));
  });

  test('a bbox outside the world or inverted is 422 naming bbox', async () => {
    for (const b of ['-200,42,-71,43', '-71.5,42.6,-71.4,95', '-71.49,42.62,-71.50,42.63', '-71.5,42.63,-71.49,42.62']) {
      const r = await call(server, 'GET', `/map/district/image?bbox=${b}`, { key });
      expect(r.status, b).toBe(422);
      expect(r.body.detail.error).toMatchObject({ code: 'parameter_invalid', field: 'bbox' });
    }
  });
});
