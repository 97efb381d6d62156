// Vector tiles from real Cambridge data, decoded with @mapbox/vector-tile and checked against
// the store: features, attributes and geometry; TileJSON; ETags; refusals.
import { VectorTile } from '@mapbox/vector-tile';
import { PbfReader } from 'pbf';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RunningServer } from '../../api/server.ts';
import { call, cambridgeApi } from '../helpers/server.ts';

let close = async () => {};
let server: RunningServer;
let key: string;

beforeAll(async () => {
  ({ server, key, close } = await cambridgeApi(1000));
}, 120_000);
afterAll(async () => {
  await close();
});

async function tile(path: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${server.url}${path}`, { headers: { 'X-API-Key': key, ...headers } });
  const bytes = new Uint8Array(await res.arrayBuffer());
  return { res, tile: res.status === 200 ? new VectorTile(new PbfReader(bytes)) : null };
}

/** Features the store has in the tile's envelope, computed independently. */
async function inTile(table: 'district_area' | 'parcel', where: string, z: number, x: number, y: number) {
  const { rows } = await server.services.pool.query(
    `SELECT ${table === 'parcel' ? 'parcel_key AS k' : 'code_raw AS k'} FROM ${table}
      WHERE ${where} AND geom IS NOT NULL AND upper_inf(known) AND upper_inf(valid)
        AND ST_Intersects(ST_Transform(geom, 3857), ST_TileEnvelope($1, $2, $3)) ORDER BY 1`,
    [z, x, y],
  );
  return rows.map((r) => r.k);
}

describe('tiles', () => {
  test('a district tile holds exactly the districts the store places in it, with their codes', async () => {
    const [z, x, y] = [14, 4955, 6060];
    const { res, tile: t } = await tile(`/map/district/${z}/${x}/${y}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/vnd.mapbox-vector-tile');
    const layer = t!.layers.district;
    const codes = Array.from({ length: layer.length }, (_, i) => String(layer.feature(i).properties.code)).sort();
    expect(codes).toEqual(await inTile('district_area', `kind = 'base'`, z, x, y));
    const f = layer.feature(0);
    expect(f.type).toBe(3);
    expect(f.properties.district).toMatch(/^dst_/);
    const ring = f.loadGeometry()[0];
    expect(ring.length).toBeGreaterThan(3);
    for (const p of ring) {
      expect(p.x).toBeGreaterThanOrEqual(-64);
      expect(p.x).toBeLessThanOrEqual(4096 + 64);
    }
    const gj = f.toGeoJSON(x, y, z);
    const [lon, lat] = (gj.geometry as { coordinates: number[][][] }).coordinates[0][0];
    expect(lon).toBeGreaterThan(-71.2);
    expect(lat).toBeGreaterThan(42.3);
  });

  test('a parcel tile at z16 carries each parcel in it with key and area', async () => {
    const [z, x, y] = [16, 19822, 24241];
    const { tile: t } = await tile(`/map/parcel/${z}/${x}/${y}`);
    const layer = t!.layers.parcel;
    const keys = Array.from({ length: layer.length }, (_, i) => String(layer.feature(i).properties.parcel_key)).sort();
    expect(keys).toEqual(await inTile('parcel', 'true', z, x, y));
    expect(typeof layer.feature(0).properties.area_sq_ft).toBe('number');
  });

  test('ETag and Cache-Control; a matching If-None-Match is 304', async () => {
    const first = await tile('/map/overlay/14/4955/6060');
    const etag = first.res.headers.get('etag')!;
    expect(etag).toMatch(/^".+"$/);
    expect(first.res.headers.get('cache-control')).toMatch(/max-age=\d+/);
    const again = await tile('/map/overlay/14/4955/6060', { 'If-None-Match': etag });
    expect(again.res.status).toBe(304);
    const other = await tile('/map/overlay/14/4955/6061');
    expect(other.res.headers.get('etag')).not.toBe(etag);
  });

  test('nothing there is 204; outside the zoom range is 204; bad coordinates 400; unknown layer 404', async () => {
    expect((await tile('/map/district/14/100/100')).res.status).toBe(204);
    expect((await tile('/map/parcel/10/309/378')).res.status).toBe(204);
    for (const bad of ['/map/district/14/99999/1', '/map/district/30/0/0', '/map/district/3/1/x']) {
      const r = await call(server, 'GET', bad, { key });
      expect(r.status, bad).toBe(400);
      expect(r.body.detail.error.code).toBe('tile_coordinate_invalid');
    }
    expect((await call(server, 'GET', '/map/roads/14/4955/6060', { key })).status).toBe(404);
  });

  test('the coverage layer paints each jurisdiction with the layers held for it', async () => {
    const { tile: t } = await tile('/map/coverage/10/309/378');
    const f = t!.layers.coverage.feature(0);
    expect(f.properties).toMatchObject({ name: 'Cambridge', district_map: true, parcel: true, zoning_text: false });
  });
});

test('TileJSON 3.0.0 describes each layer', async () => {
  const r = await call(server, 'GET', '/map/district', { key });
  expect(r.body).toMatchObject({ tilejson: '3.0.0', minzoom: 8, vector_layers: [{ id: 'district', fields: { code: 'String' } }] });
  expect(r.body.tiles[0]).toMatch(/\/map\/district\/\{z\}\/\{x\}\/\{y\}$/);
  expect(r.body.bounds[0]).toBeCloseTo(-71.16, 1);
});

test('GET /map lists map versions', async () => {
  const r = await call(server, 'GET', '/map?jurisdiction=cambridge-ma', { key });
  expect(r.body.item.map((m: { layer: string; feature_count: number }) => [m.layer, m.feature_count]).sort()).toEqual([['district', 261], ['overlay', 53], ['parcel', 13116]]);
  for (const m of r.body.item) {
    expect(m.id).toMatch(/^map_/);
    expect(m.geometry_sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(m.published_crs).toMatch(/^EPSG:\d+$/);
    expect(m.effective_from).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(m.effective_through).toBeNull();
    expect(['stated', 'first_observed']).toContain(m.effective_basis);
  }
  // nothing was in force before the first map was held
  const first = r.body.item.map((m: { effective_from: string }) => m.effective_from).sort()[0];
  const dayBefore = new Date(Date.parse(`${first}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
  expect((await call(server, 'GET', `/map?jurisdiction=cambridge-ma&as_of=${dayBefore}`, { key })).body.item).toEqual([]);
  expect((await call(server, 'GET', `/map?jurisdiction=cambridge-ma&as_of=${first}&layer=district`, { key })).body.item).toHaveLength(1);
});

test('a map exhibit: a PNG of the parcel with the layer drawn and the stamp naming the map version', async () => {
  const { PNG } = await import('pngjs');
  const place = await call(server, 'GET', '/place?point=42.3629,-71.1113', { key });
  const res = await fetch(`${server.url}/map/district/image?parcel=${place.body.resolution.parcel}&width=640&height=480`, { headers: { 'X-API-Key': key } });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('image/png');
  const versions = (await call(server, 'GET', '/map?jurisdiction=cambridge-ma&layer=district', { key })).body.item.map((m: { id: string }) => m.id);
  expect(res.headers.get('x-map-version')).toBe(versions.join(','));
  expect(res.headers.get('x-as-of')).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  expect(res.headers.get('x-source-retrieved-at')).toMatch(/^\d{4}-\d{2}-\d{2}T/);
  expect(res.headers.get('x-known-as-of')).toMatch(/^\d{4}-\d{2}-\d{2}T/);
  const png = PNG.sync.read(Buffer.from(await res.arrayBuffer()));
  expect([png.width, png.height]).toEqual([640, 480]);
  const colours = new Set<number>();
  for (let i = 0; i < png.data.length; i += 4 * 97) colours.add(png.data.readUInt32BE(i));
  expect(colours.size).toBeGreaterThan(5);
  for (const bbox of ['-71,43,-72,42', '-190,42,-71,43', '-71.2,42.3,-71.1,91']) {
    const bad = await call(server, 'GET', `/map/district/image?bbox=${bbox}`, { key });
    expect(bad.status, bbox).toBe(422);
    expect(bad.body.detail.error).toMatchObject({ code: 'parameter_invalid', field: 'bbox' });
  }
});

test('a large exhibit is drawn off the event loop: calls made while it draws keep being answered', async () => {
  // every Cambridge parcel at 2048 x 2048 takes seconds to draw; /health is asked again and again meanwhile
  const began = Date.now();
  let done = 0;
  const image = fetch(`${server.url}/map/parcel/image?bbox=-71.1099,42.3587,-71.0879,42.3806&width=2048&height=2048`, { headers: { 'X-API-Key': key } }).then(async (r) => {
    await r.arrayBuffer();
    done = Date.now();
    return r.status;
  });
  const answered: number[] = [began];
  while (!done) {
    const r = await fetch(`${server.url}/health`);
    await r.arrayBuffer();
    expect(r.status).toBe(200);
    answered.push(Date.now());
  }
  expect(await image).toBe(200);
  const gaps = answered.slice(1).map((t, i) => t - answered[i]);
  // drawn on the event loop, the process answers nothing for as long as the drawing takes
  expect(Math.max(...gaps)).toBeLessThan((done - began) / 3);
});
