// The layer reader's polygons: GDAL's own WKB, as MultiPolygons (checked on every polygon of the
// real Cambridge layers and on the synthetic town's map reprojected from EPSG:26986), and a
// layer's WKB buffers freed as it is read, not held to the end.
import { resolve } from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import gdal from 'gdal-async';
import { expect, test } from 'vitest';
import { sharedDir } from '../../activities/fetch.ts';
import { readFeatures } from '../../ingest/layers.ts';
import { asMultiPolygonWkb } from '../../ingest/wkb.ts';

const PARCELS = resolve(sharedDir(), 'real/cambridge_ma/ASSESSING_ParcelsFY2014.topojson');
const FILES = [
  PARCELS,
  resolve(sharedDir(), 'real/cambridge_ma/CDD_ZoningDistricts.geojson'),
  resolve(sharedDir(), 'real/cambridge_ma/CDD_ZoningOverlayDistricts.geojson'),
  resolve(import.meta.dirname, '../fixtures/synthetic-town/v1/gis/zoning.geojson'),
];

test.each(FILES)('every polygon of %s comes out a MultiPolygon equal to what GDAL read', async (file) => {
  const format = file.endsWith('.topojson') ? 'topojson' : 'geojson';
  const crs = file.includes('synthetic') ? 'EPSG:26986' : 'EPSG:4326';
  const ds = gdal.open(file);
  const layer = ds.layers.get(0);
  const wgs84 = gdal.SpatialReference.fromUserInput('OGC:CRS84');
  const ct = layer.srs && !layer.srs.isSame(wgs84) && layer.srs.getAuthorityCode(null as never) !== '4326' ? new gdal.CoordinateTransformation(layer.srs, wgs84) : null;
  const it = readFeatures({ path: file }, { format, publishedCrs: crs });
  let compared = 0;
  for (let f = layer.features.first(); f; f = layer.features.next()) {
    const read = await it.next();
    if (read.done) throw new Error('the reader stopped early');
    const raw = f.getGeometry();
    if (!raw || raw.isEmpty() || read.value.repaired) continue;
    const g = raw.clone();
    if (ct) g.transform(ct);
    g.flattenTo2D();
    const own = g.toWKB('LSB', 'ISO');
    const expected = (g.wkbType & 0xff) === 3 ? Buffer.concat([Buffer.from([1, 6, 0, 0, 0, 1, 0, 0, 0]), own]) : own;
    expect(read.value.wkb!.equals(expected)).toBe(true);
    compared++;
  }
  ds.close();
  expect(compared).toBeGreaterThan(3);
});

test('anything but a polygon or multipolygon is refused', () => {
  expect(asMultiPolygonWkb(gdal.Geometry.fromWKT('POINT (1 2)').toWKB('LSB', 'ISO'))).toBeNull();
  expect(asMultiPolygonWkb(gdal.Geometry.fromWKT('LINESTRING (1 2, 3 4)').toWKB('LSB', 'ISO'))).toBeNull();
  expect(asMultiPolygonWkb(gdal.Geometry.fromWKT('POLYGON EMPTY').toWKB('LSB', 'ISO'))).toBeNull();
});

test('buffers of features already used are freed while the layer is still being read', async () => {
  // A feature's WKB lives in native memory that its Buffer's finalizer frees; finalizers run only
  // when the event loop turns. A reader that never let it turn would hold a million-feature
  // layer's WKB to the end; this one lets it turn, so buffers die as the read goes on.
  let freed = 0;
  const registry = new FinalizationRegistry(() => {
    freed++;
  });
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as () => void;
  let features = 0;
  let freedBeforeEnd = 0;
  for await (const f of readFeatures({ path: PARCELS }, { format: 'topojson', publishedCrs: 'EPSG:4326', keyField: 'ML', layerHash: false })) {
    if (f.wkb) registry.register(f.wkb, null);
    if (++features % 500 === 0) gc(); // collect what is garbage; freeing it still needs the loop to turn
    freedBeforeEnd = freed;
  }
  expect(features).toBe(13_116);
  expect(freedBeforeEnd).toBeGreaterThan(1000);
});
