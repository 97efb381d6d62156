// ingest/wkb.ts must give exactly GDAL's ISO WKB: checked on every polygon of the real Cambridge
// layers and on the synthetic town's map reprojected from EPSG:26986.
import { resolve } from 'node:path';
import gdal from 'gdal-async';
import { expect, test } from 'vitest';
import { sharedDir } from '../../activities/fetch.ts';
import '../../ingest/layers.ts'; // sets GDAL's WKT precision and axis order
import { multiPolygonWkb } from '../../ingest/wkb.ts';

const FILES = [
  resolve(sharedDir(), 'real/cambridge_ma/ASSESSING_ParcelsFY2014.topojson'),
  resolve(sharedDir(), 'real/cambridge_ma/CDD_ZoningDistricts.geojson'),
  resolve(sharedDir(), 'real/cambridge_ma/CDD_ZoningOverlayDistricts.geojson'),
  resolve(import.meta.dirname, '../fixtures/synthetic-town/v1/gis/zoning.geojson'),
];

test.each(FILES)('the same bytes as GDAL for every polygon of %s', (file) => {
  const ds = gdal.open(file);
  const layer = ds.layers.get(0);
  const wgs84 = gdal.SpatialReference.fromUserInput('OGC:CRS84');
  const ct = layer.srs && !layer.srs.isSame(wgs84) && layer.srs.getAuthorityCode(null as never) !== '4326' ? new gdal.CoordinateTransformation(layer.srs, wgs84) : null;
  let compared = 0;
  for (let f = layer.features.first(); f; f = layer.features.next()) {
    const raw = f.getGeometry();
    if (!raw || raw.isEmpty()) continue;
    const g = raw.clone();
    if (ct) g.transform(ct);
    g.flattenTo2D();
    const type = g.wkbType & 0xff;
    if (type !== 3 && type !== 6) continue;
    const gdalWkb = g.toWKB('LSB', 'ISO');
    const expected = type === 3 ? Buffer.concat([Buffer.from([1, 6, 0, 0, 0, 1, 0, 0, 0]), gdalWkb]) : gdalWkb;
    expect(multiPolygonWkb(g.toWKT())?.equals(expected)).toBe(true);
    compared++;
  }
  ds.close();
  expect(compared).toBeGreaterThan(3);
});

test('anything but a polygon or multipolygon is refused', () => {
  expect(multiPolygonWkb('POINT (1 2)')).toBeNull();
  expect(multiPolygonWkb('POLYGON EMPTY')).toBeNull();
});
