// TileJSON of every layer on real Cambridge data, checked against the rules of TileJSON 3.0.0
// (test/fixtures/tilejson-3.0.0.schema.json, with ajv, and the rules between keys beside it):
// a semver version, a center on the layer's data, vector_layers with their fields.
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { RunningServer } from '../../api/server.ts';
import { TILE_LAYERS, type TileLayer } from '../../tiles/layers.ts';
import { call, cambridgeApi } from '../helpers/server.ts';
import { checkTileJson } from '../helpers/tilejson.ts';

let close = async () => {};
let server: RunningServer;
let key: string;

beforeAll(async () => {
  ({ server, key, close } = await cambridgeApi(1000));
}, 120_000);
afterAll(async () => {
  await close();
});

/** Whether a point lies on a feature of the layer in force now (on it or on its edge). */
async function onData(layer: string, lon: number, lat: number): Promise<boolean> {
  const from =
    layer === 'parcel'
      ? `parcel WHERE geom IS NOT NULL`
      : layer === 'coverage'
        ? `(SELECT boundary AS geom FROM jurisdiction WHERE boundary IS NOT NULL) j WHERE true`
        : `district_area WHERE kind = '${layer === 'district' ? 'base' : layer}'`;
  const live = layer === 'coverage' ? '' : 'AND upper_inf(known) AND upper_inf(valid)';
  const { rows } = await server.services.pool.query(`SELECT EXISTS (SELECT 1 FROM ${from} ${live} AND ST_DWithin(geom, ST_SetSRID(ST_MakePoint($1, $2), 4326), 1e-9)) AS on`, [lon, lat]);
  return rows[0].on;
}

test('every layer: valid TileJSON 3.0.0, a semver version, a center on the data, vector_layers with fields', async () => {
  for (const layer of ['district', 'overlay', 'parcel', 'coverage']) {
    const r = await call(server, 'GET', `/map/${layer}`, { key });
    expect(r.status, layer).toBe(200);
    const t = checkTileJson(r.body);
    // MAJOR the layer's schema, MINOR counted from its data (something is held), PATCH 0
    expect(t.version, layer).toBe(`${TILE_LAYERS[layer as TileLayer['id']].schema}.${t.version.split('.')[1]}.0`);
    expect(Number(t.version.split('.')[1]), layer).toBeGreaterThan(0);
    expect(await onData(layer, t.center[0], t.center[1]), `${layer} center ${t.center}`).toBe(true);
    expect(t.vector_layers).toHaveLength(1);
    expect(t.vector_layers[0].id).toBe(layer);
    expect(Object.keys(t.vector_layers[0].fields).length).toBeGreaterThan(2);
    // asked again, the same version
    expect((await call(server, 'GET', `/map/${layer}`, { key })).body.version).toBe(t.version);
  }
  expect((await call(server, 'GET', '/map/parcel', { key })).body.vector_layers[0].fields).toMatchObject({ parcel_key: 'String', area_sq_ft: 'Number' });
});

test('within a bbox: bounds cut to it, the center on data inside it; a layer with no data still valid', async () => {
  // the bbox's west part is empty ground outside Cambridge
  const bbox = [-71.4, 42.36, -71.1, 42.39];
  const t = checkTileJson((await call(server, 'GET', `/map/parcel?bbox=${bbox.join(',')}`, { key })).body);
  expect(t.bounds[0]).toBeGreaterThan(-71.17);
  expect(t.bounds[2]).toBeLessThanOrEqual(-71.1);
  expect(t.center[0]).toBeLessThanOrEqual(-71.1);
  expect(await onData('parcel', t.center[0], t.center[1])).toBe(true);
  // Cambridge publishes no future land use map: world bounds, version 1.0.0
  const none = checkTileJson((await call(server, 'GET', '/map/future_land_use', { key })).body);
  expect(none.version).toBe(`${TILE_LAYERS.future_land_use.schema}.0.0`);
});

test('the tiles URL carries the dates asked, and the version follows as_of', async () => {
  const before = checkTileJson((await call(server, 'GET', '/map/district?as_of=2000-01-01', { key })).body);
  expect(before.tiles[0]).toMatch(/\?as_of=2000-01-01$/);
  const now = checkTileJson((await call(server, 'GET', '/map/district', { key })).body);
  // nothing had taken effect in 2000: only the loads known count
  expect(Number(before.version.split('.')[1])).toBeLessThan(Number(now.version.split('.')[1]));
});
