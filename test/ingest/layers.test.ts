// GIS layers through GDAL on the real Cambridge files and on formats made from them with ogr2ogr.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import gdal from 'gdal-async';
import { afterAll, describe, expect, test } from 'vitest';
import { readLayer } from '../../ingest/layers.ts';
import { sharedDir } from '../../activities/fetch.ts';

const real = (f: string) => readFileSync(join(sharedDir(), 'real', 'cambridge_ma', f));
const work = mkdtempSync(join(tmpdir(), 'landlex-gis-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const envelope = (wkb: Buffer) => gdal.Geometry.fromWKB(wkb).getEnvelope();

describe('real Cambridge layers', () => {
  test('zoning districts: 261 features, none lost, lon/lat in Cambridge', async () => {
    const r = await readLayer(real('CDD_ZoningDistricts.geojson'), { format: 'geojson' });
    expect(r.feature_count).toBe(261);
    expect(r.features.filter((f) => f.wkb)).toHaveLength(261);
    expect(r.issues.filter((i) => i.severity === 'error')).toEqual([]);
    expect(r.published_crs).toBe('EPSG:4326');
    for (const f of r.features) {
      const e = envelope(f.wkb!);
      expect(e.minX).toBeGreaterThan(-71.17);
      expect(e.maxX).toBeLessThan(-71.05);
      expect(e.minY).toBeGreaterThan(42.35);
      expect(e.maxY).toBeLessThan(42.41);
    }
    expect(new Set(r.features.map((f) => f.properties.ZONE_TYPE)).has('C-3')).toBe(true);
  });

  test('overlays: 53 features', async () => {
    const r = await readLayer(real('CDD_ZoningOverlayDistricts.geojson'), { format: 'geojson' });
    expect(r.feature_count).toBe(53);
    expect(r.empty).toEqual([]);
  });

  test('parcels (TopoJSON, CRS published by the manifest): 13,116 features, none dropped, one kept without area', async () => {
    const r = await readLayer(real('ASSESSING_ParcelsFY2014.topojson'), { format: 'topojson', keyField: 'ML', publishedCrs: 'EPSG:4326' });
    expect(r.feature_count).toBe(13_116);
    expect(r.features).toHaveLength(13_116);
    expect(r.empty).toEqual([{ index: 1895, reason: 'no geometry' }]);
    expect(r.features[1895].key).toBe('238-80');
    expect(r.repaired_count).toBeGreaterThan(0);
    const first = r.features.find((f) => f.key === '127-123')!;
    const e = envelope(first.wkb!);
    expect(e.minX).toBeCloseTo(-71.1115, 3);
    expect(e.minY).toBeCloseTo(42.3628, 3);
  });

  test('a TopoJSON without a published CRS is refused, not guessed', async () => {
    const r = await readLayer(real('ASSESSING_ParcelsFY2014.topojson'), { format: 'topojson' });
    expect(r.issues).toEqual([expect.objectContaining({ severity: 'error', code: 'crs_unknown' })]);
    expect(r.features).toEqual([]);
  });

  test('the layer hash is stable and changes when one vertex moves', async () => {
    const bytes = real('CDD_ZoningDistricts.geojson');
    const a = await readLayer(bytes, { format: 'geojson' });
    const b = await readLayer(bytes, { format: 'geojson' });
    expect(a.geometry_sha256).toBe(b.geometry_sha256);
    const text = bytes.toString('utf8');
    const m = /-71\.(\d{6})/.exec(text)!;
    const moved = text.replace(m[0], `-71.${String(Number(m[1]) + 1).padStart(6, '0')}`);
    const c = await readLayer(Buffer.from(moved), { format: 'geojson' });
    expect(c.geometry_sha256).not.toBe(a.geometry_sha256);
  });

  test('a truncated GeoJSON is an error issue, not a crash', async () => {
    const r = await readLayer(real('CDD_ZoningDistricts.geojson').subarray(0, 4000), { format: 'geojson' });
    expect(r.issues[0]).toMatchObject({ severity: 'error', code: 'unreadable' });
  });
});

describe('formats made with ogr2ogr', () => {
  const source = join(sharedDir(), 'real', 'cambridge_ma', 'CDD_ZoningDistricts.geojson');
  const zipOf = (dir: string, name: string) => {
    execFileSync('zip', ['-q', '-j', join(work, `${name}.zip`), ...['shp', 'shx', 'dbf', 'prj'].map((e) => join(dir, `${name}.${e}`)).filter((f) => { try { readFileSync(f); return true; } catch { return false; } })]);
    return readFileSync(join(work, `${name}.zip`));
  };

  test('a zipped Shapefile in feet (EPSG:2249) reads back to the same lon/lat', async () => {
    execFileSync('ogr2ogr', ['-f', 'ESRI Shapefile', join(work, 'd2249.shp'), source, '-t_srs', 'EPSG:2249'], { stdio: 'ignore' });
    const r = await readLayer(zipOf(work, 'd2249'), { format: 'shapefile_zip' });
    const original = await readLayer(readFileSync(source), { format: 'geojson' });
    expect(r.feature_count).toBe(261);
    expect(r.published_crs).toBe('EPSG:2249');
    const a = envelope(original.features[0].wkb!);
    const b = envelope(r.features[0].wkb!);
    expect(Math.abs(a.minX - b.minX)).toBeLessThan(1e-6);
    expect(Math.abs(a.minY - b.minY)).toBeLessThan(1e-6);
  });

  test('a Shapefile without its .prj is refused unless the manifest publishes its CRS', async () => {
    execFileSync('ogr2ogr', ['-f', 'ESRI Shapefile', join(work, 'noprj.shp'), source, '-t_srs', 'EPSG:2249'], { stdio: 'ignore' });
    unlinkSync(join(work, 'noprj.prj'));
    const bytes = zipOf(work, 'noprj');
    const refused = await readLayer(bytes, { format: 'shapefile_zip' });
    expect(refused.issues[0]).toMatchObject({ code: 'crs_unknown' });
    const told = await readLayer(bytes, { format: 'shapefile_zip', publishedCrs: 'EPSG:2249' });
    expect(told.feature_count).toBe(261);
    expect(envelope(told.features[0].wkb!).minX).toBeCloseTo(-71.13, 1);
  });

  test('a GeoPackage in NAD83 reads as lon/lat', async () => {
    execFileSync('ogr2ogr', ['-f', 'GPKG', join(work, 'd.gpkg'), source, '-t_srs', 'EPSG:4269'], { stdio: 'ignore' });
    const r = await readLayer(readFileSync(join(work, 'd.gpkg')), { format: 'gpkg' });
    expect(r.feature_count).toBe(261);
    expect(envelope(r.features[0].wkb!).minX).toBeLessThan(-71);
  });

  test('a self-intersecting polygon is repaired and counted', async () => {
    const bowtie = { type: 'FeatureCollection', features: [{ type: 'Feature', properties: { code: 'X' }, geometry: { type: 'Polygon', coordinates: [[[-71.1, 42.37], [-71.09, 42.38], [-71.09, 42.37], [-71.1, 42.38], [-71.1, 42.37]]] } }] };
    const r = await readLayer(Buffer.from(JSON.stringify(bowtie)), { format: 'geojson' });
    expect(r.repaired_count).toBe(1);
    const g = gdal.Geometry.fromWKB(r.features[0].wkb!);
    expect(g.isValid()).toBe(true);
    expect((g as gdal.MultiPolygon).children.count()).toBe(2);
  });
});
