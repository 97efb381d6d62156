// Extracts GIS tools open, on real Cambridge data through the workflow logic bound in-process:
// GeoJSONSeq, GeoPackage and FlatGeobuf files opened by the real `ogrinfo` (Debian's GDAL 3.6),
// each with as many features as rows written, lon,lat coordinates in EPSG:4326, and parcel
// area in square feet as OGC and tiles serve it; Geobuf decoded by the geobuf package to the
// GeoJSONSeq extract of the same request, and refused past its row limit.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DuckDBInstance } from '@duckdb/node-api';
import { decode } from 'geobuf';
import Pbf from 'pbf4';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { GEOBUF_MAX_ROWS } from '../../activities/extract/formats.ts';
import { type ExtractRequest, planExtract } from '../../activities/extract/plan.ts';
import { createExtractActivities, type ExtractDeps } from '../../activities/extract.ts';
import { newId } from '../../core/ids.ts';
import { createLogger } from '../../core/log.ts';
import { localDate } from '../../core/time.ts';
import { createPool, type Pool } from '../../store/db.ts';
import { insertExtract } from '../../store/extracts.ts';
import { runExtractInProcess } from '../../workflows/extract-inprocess.ts';
import { ingestedDatabase } from '../helpers/pipeline.ts';

const run = promisify(execFile);

let db: { url: string; drop: () => Promise<void> };
let pool: Pool;
let dir: string;
let jur: string;
let today: string;
let nowIso: string;

beforeAll(async () => {
  db = await ingestedDatabase('cambridge', ['cambridge-ma']);
  pool = createPool(db.url, { max: 6 });
  dir = await mkdtemp(join(tmpdir(), 'landlex-gis-extracts-'));
  jur = (await pool.query(`SELECT id FROM jurisdiction WHERE slug = 'cambridge-ma'`)).rows[0].id;
  today = localDate(new Date(), 'America/New_York');
  nowIso = new Date().toISOString();
}, 600_000);
afterAll(async () => {
  await pool.end();
  await db.drop();
  await rm(dir, { recursive: true, force: true });
});

const requestOf = (body: Partial<ExtractRequest>) => ({ scope: { jurisdiction: ['cambridge-ma'] }, as_of: today, known_as_of: nowIso, ...body }) as ExtractRequest;

async function runExtract(body: Partial<ExtractRequest>, deps: Partial<ExtractDeps> = {}) {
  const req = requestOf(body);
  const p = await planExtract(pool, req);
  const id = newId('extract');
  await insertExtract(pool, { id, organizationId: null, resource: p.plan.resource, format: p.plan.format, request: req, plan: p.plan, rowEstimate: p.rowEstimate, creditEstimate: p.creditEstimate, creditsCharged: 0 });
  const out = await runExtractInProcess(createExtractActivities({ pool, dir, log: createLogger('silent'), ...deps }), id, { sleep: async () => {} });
  return { ...out, plan: p.plan, rowEstimate: p.rowEstimate };
}

async function extract(body: Partial<ExtractRequest>) {
  const out = await runExtract(body);
  expect(out.state, out.error ?? '').toBe('succeeded');
  return { ...out, path: join(dir, out.extract, out.files[0].name) };
}

/** What `ogrinfo -ro -so -al` says of the file's one layer. */
async function summary(path: string) {
  const { stdout, stderr } = await run('ogrinfo', ['-ro', '-so', '-al', path]);
  const fields = Object.fromEntries([...stdout.matchAll(/^(\w+): (\w+(?:\(\w+\))?) \(/gm)].map((m) => [m[1], m[2]]));
  const extent = /^Extent: \(([-\d.]+), ([-\d.]+)\) - \(([-\d.]+), ([-\d.]+)\)/m.exec(stdout)?.slice(1).map(Number) ?? null;
  return {
    stdout,
    stderr,
    driver: /using driver `(\w+)'/.exec(stdout)?.[1],
    layer: /^Layer name: (\w+)/m.exec(stdout)?.[1],
    geometry: /^Geometry: (.+)$/m.exec(stdout)?.[1],
    count: Number(/^Feature Count: (\d+)/m.exec(stdout)?.[1]),
    extent,
    fields,
  };
}

/** One feature as ogrinfo prints it. */
async function feature(path: string, where: string) {
  const { stdout } = await run('ogrinfo', ['-ro', '-al', '-where', where, path], { maxBuffer: 1 << 24 });
  return stdout.slice(stdout.indexOf('OGRFeature('));
}

const count = async (sql: string, values: unknown[]) => Number((await pool.query(sql, values)).rows[0].n);
const PARCELS = 'FROM parcel WHERE jurisdiction_id = $1 AND known @> $2::timestamptz AND valid @> $3::date';

describe('parcels in the formats GIS tools open', () => {
  const DRIVERS = { geojsonseq: 'GeoJSONSeq', gpkg: 'GPKG', flatgeobuf: 'FlatGeobuf' } as const;

  for (const format of ['geojsonseq', 'gpkg', 'flatgeobuf'] as const) {
    test(`${format}: ogrinfo opens it, one feature per row, lon,lat in EPSG:4326, area in square feet`, async () => {
      const all = await count(`SELECT count(*) AS n ${PARCELS}`, [jur, nowIso, today]);
      const located = await count(`SELECT count(*) AS n ${PARCELS} AND geom IS NOT NULL AND NOT ST_IsEmpty(geom)`, [jur, nowIso, today]);
      expect(all).toBeGreaterThan(13_000);
      const x = await extract({ resource: 'parcel', format });
      // FlatGeobuf holds only features with a geometry; the others are counted, never silently dropped
      const rows = format === 'flatgeobuf' ? located : all;
      expect(x.rows).toBe(rows);
      expect(x.rowEstimate).toBe(rows);
      expect(x.files[0].rows).toBe(rows);
      expect(x.plan.leftOut ?? 0).toBe(format === 'flatgeobuf' ? all - located : 0);

      const s = await summary(x.path);
      expect(s.stderr).toBe('');
      expect(s.driver).toBe(DRIVERS[format]);
      expect(s.layer).toBe('parcel');
      expect(s.geometry).toBe('Multi Polygon');
      expect(s.count).toBe(rows);
      expect(s.stdout).toMatch(/ID\["EPSG",4326\]/);
      // lon,lat: x is Cambridge's longitude, y its latitude
      const [w, so, e, n] = s.extent!;
      expect(w).toBeGreaterThan(-71.2);
      expect(e).toBeLessThan(-71.0);
      expect(so).toBeGreaterThan(42.3);
      expect(n).toBeLessThan(42.45);
      expect(Object.keys(s.fields).filter((k) => k.startsWith('area'))).toEqual(['area_sq_ft']);
      expect(s.fields.area_sq_ft).toBe('Real');
      expect(s.fields.id).toBe('String');

      const pg = (await pool.query(`SELECT id, ST_Area(geom::geography) * 10.763910417 AS sq_ft, ST_AsText(geom) AS wkt ${PARCELS} AND parcel_key = '127-123'`, [jur, nowIso, today])).rows[0];
      const f = await feature(x.path, "parcel_key = '127-123'");
      expect(f).toContain(`id (String) = ${pg.id}`);
      const area = Number(/area_sq_ft \(Real\) = ([\d.]+)/.exec(f)![1]);
      expect(Math.abs(area - pg.sq_ft)).toBeLessThanOrEqual(Math.max(2, pg.sq_ft * 0.005));
      // the same first vertex, lon first
      const first = (wkt: string) => /\(\(\(([-\d.]+) ([-\d.]+)/.exec(wkt)!.slice(1).map(Number);
      const [fx, fy] = first(f);
      const [px, py] = first(pg.wkt);
      expect(Math.abs(fx - px)).toBeLessThan(1e-8);
      expect(Math.abs(fy - py)).toBeLessThan(1e-8);
    });
  }

  test('GeoJSONSeq is RFC 8142: each record RS, one GeoJSON Feature, LF; id a member, the rest properties', async () => {
    const x = await extract({ resource: 'parcel', format: 'geojsonseq' });
    expect(x.files[0]).toMatchObject({ name: 'parcel.geojsons', media_type: 'application/geo+json-seq' });
    const text = await readFile(x.path, 'utf8');
    const records = text.split('\x1e');
    expect(records.shift()).toBe('');
    expect(records).toHaveLength(x.rows);
    for (const r of records) expect(r.endsWith('\n') && r.indexOf('\n') === r.length - 1).toBe(true);
    const features = records.map((r) => JSON.parse(r));
    expect(new Set(features.map((f) => f.type))).toEqual(new Set(['Feature']));
    const f = features.find((g) => g.properties.parcel_key === '127-123');
    expect(f.id).toMatch(/^prc_/);
    expect(f.properties.id).toBeUndefined();
    expect(f.geometry.type).toBe('MultiPolygon');
    expect(typeof f.properties.attributes).toBe('object');
    expect(typeof f.properties.area_sq_ft).toBe('number');
    expect(f.properties.area_m2).toBeUndefined();
    // the parcel without a polygon is kept, with a null geometry
    const unlocated = await count(`SELECT count(*) AS n ${PARCELS} AND geom IS NULL`, [jur, nowIso, today]);
    expect(features.filter((g) => g.geometry === null)).toHaveLength(unlocated);
  });

  test('GeoPackage: srs_id 4326, an R-tree, JSON columns declared, the extract named in the layer description', async () => {
    const x = await extract({ resource: 'parcel', format: 'gpkg', field: ['parcel_key', 'attributes', 'geometry'] });
    const sql = async (q: string) => (await run('ogrinfo', ['-ro', '-q', '-sql', q, x.path])).stdout;
    expect(await sql('SELECT table_name, data_type, srs_id FROM gpkg_contents')).toMatch(/table_name \(String\) = parcel[\s\S]*data_type \(String\) = features[\s\S]*srs_id \(Integer(64)?\) = 4326/);
    expect(await sql(`SELECT count(*) AS n FROM sqlite_master WHERE name = 'rtree_parcel_geometry'`)).toMatch(/n \(Integer(64)?\) = 1/);
    expect(await sql('SELECT column_name, mime_type FROM gpkg_data_columns')).toMatch(/column_name \(String\) = attributes\s+mime_type \(String\) = application\/json/);
    expect((await summary(x.path)).stdout).toContain(`"extract":"${x.extract}"`);
  });
});

describe('other resources and edge cases', () => {
  test('rows without a geometry: a GeoPackage attribute table and GeoJSON Features with null geometry; FlatGeobuf refused', async () => {
    const n = await count('SELECT count(*) AS n FROM district WHERE jurisdiction_id = $1 AND known @> $2::timestamptz AND valid @> $3::date', [jur, nowIso, today]);
    expect(n).toBeGreaterThan(100);
    for (const format of ['gpkg', 'geojsonseq'] as const) {
      const x = await extract({ resource: 'district', format });
      const s = await summary(x.path);
      expect(s.count, format).toBe(n);
      expect(x.rows, format).toBe(n);
      expect(s.fields.code_normalized, format).toBe('String');
    }
    expect((await summary((await extract({ resource: 'district', format: 'gpkg' })).path)).geometry).toBe('None');
    await expect(planExtract(pool, { resource: 'district', format: 'flatgeobuf', scope: { jurisdiction: ['cambridge-ma'] } })).rejects.toMatchObject({ code: 'parameter_invalid', field: 'format' });
  });

  test('FlatGeobuf keeps the geometry when field[] leaves it out', async () => {
    const x = await extract({ resource: 'district_area', format: 'flatgeobuf', field: ['code_raw'] });
    expect(x.plan.fields).toEqual(['id', 'effective_from', 'code_raw', 'geometry']);
    const s = await summary(x.path);
    expect(s.count).toBe(x.rows);
    expect(s.geometry).toBe('Multi Polygon');
    expect(Object.keys(s.fields)).toEqual(['id', 'effective_from', 'code_raw']);
  });

  test('an extract with no rows: GeoPackage and FlatGeobuf open with no features; GeoParquet too', async () => {
    const none = { resource: 'parcel', filter: { parcel_key: { eq: 'no such parcel' } } } as const;
    for (const format of ['gpkg', 'flatgeobuf'] as const) {
      const x = await extract({ ...none, format });
      expect(x.rows).toBe(0);
      const s = await summary(x.path);
      expect(s.count, format).toBe(0);
      expect(s.geometry, format).toBe('Multi Polygon');
      expect(s.fields.area_sq_ft, format).toBe('Real');
    }
    const p = await extract({ ...none, format: 'parquet' });
    const instance = await DuckDBInstance.create(':memory:');
    const c = await instance.connect();
    try {
      expect((await c.runAndReadAll(`SELECT count(*)::int AS n FROM read_parquet('${p.path}')`)).getRowObjects()).toEqual([{ n: 0 }]);
      const kv = (await c.runAndReadAll(`SELECT decode(value) AS v FROM parquet_kv_metadata('${p.path}') WHERE decode(key) = 'geo'`)).getRowObjects();
      expect(JSON.parse(String(kv[0].v))).toMatchObject({ version: '1.1.0', primary_column: 'geometry', columns: { geometry: { encoding: 'WKB', geometry_types: [] } } });
    } finally {
      c.closeSync();
      instance.closeSync();
    }
  });
});

/** A decoded Geobuf FeatureCollection, as the tests read it. */
type FeatureCollection = { type: string; features: Array<{ geometry: { coordinates: number[][][][] } | null }> };

describe('Geobuf', () => {
  /** The features of a GeoJSONSeq extract, and the FeatureCollection of a Geobuf one. */
  const seqFeatures = async (path: string) => (await readFile(path, 'utf8')).split('\x1e').slice(1).map((r) => JSON.parse(r));
  const decoded = async (path: string) => decode(new Pbf(new Uint8Array(await readFile(path)))) as FeatureCollection;

  const requests: Array<[string, Partial<ExtractRequest>]> = [
    ['every parcel, every column', { resource: 'parcel' }],
    ['districts: no geometry, filtered (filter_outcome)', { resource: 'district', filter: { kind: { eq: 'base' } } }],
    ['district areas, some columns', { resource: 'district_area', field: ['code_raw', 'attributes', 'geometry'] }],
  ];
  for (const [name, body] of requests) {
    test(`${name}: decodes to the GeoJSONSeq extract of the same request, one feature per row`, async () => {
      const seq = await extract({ ...body, format: 'geojsonseq' });
      const gb = await extract({ ...body, format: 'geobuf' });
      expect(gb.files[0]).toMatchObject({ name: `${body.resource}.pbf`, format: 'geobuf', media_type: 'application/vnd.geobuf', rows: seq.rows });
      expect(gb.rowEstimate).toBe(seq.rowEstimate);
      expect(gb.rows).toBe(gb.rowEstimate);
      const features = await seqFeatures(seq.path);
      expect(features).toHaveLength(seq.rows);
      expect(features.length).toBeGreaterThan(0);
      const fc = await decoded(gb.path);
      expect(fc.features).toHaveLength(gb.rows);
      // same members, properties and coordinates (exact: toStrictEqual compares numbers with Object.is)
      expect(fc).toStrictEqual({ type: 'FeatureCollection', features });
    });
  }

  test('coordinates keep every decimal PostGIS wrote, past the 6 the package keeps by itself', async () => {
    const x = await extract({ resource: 'parcel', format: 'geobuf', filter: { parcel_key: { eq: '127-123' } }, field: ['geometry'] });
    const ring = (await decoded(x.path)).features[0].geometry!.coordinates[0][0];
    const pg = (await pool.query(`SELECT ST_AsGeoJSON(geom)::json -> 'coordinates' -> 0 -> 0 AS ring ${PARCELS} AND parcel_key = '127-123'`, [jur, nowIso, today])).rows[0].ring;
    expect(ring).toStrictEqual(pg);
    expect(ring.flat().some((v) => Math.round(v * 1e6) / 1e6 !== v)).toBe(true);
  });

  test('past the row limit: 422 naming format when planned (and priced), at it accepted', async () => {
    const n = await count(`SELECT count(*) AS n ${PARCELS}`, [jur, nowIso, today]);
    expect(GEOBUF_MAX_ROWS).toBeGreaterThan(n);
    const req = requestOf({ resource: 'parcel', format: 'geobuf' });
    const refused = planExtract(pool, req, new Date(), null, { maxRows: n - 1 });
    await expect(refused).rejects.toMatchObject({ code: 'parameter_invalid', status: 422, field: 'format' });
    await expect(refused).rejects.toMatchObject({ detail: expect.stringContaining(`holds at most ${(n - 1).toLocaleString('en-US')} rows; this extract has ${n.toLocaleString('en-US')}`) });
    expect((await planExtract(pool, req, new Date(), null, { maxRows: n })).rowEstimate).toBe(n);
    // the limit is Geobuf's: the same rows in a streamed format are planned whatever it is
    expect((await planExtract(pool, { ...req, format: 'geojsonseq' }, new Date(), null, { maxRows: 1 })).rowEstimate).toBe(n);
  });

  test("a collection past the writer's heap fails the extract (nothing listed), not the process", async () => {
    const x = await runExtract({ resource: 'parcel', format: 'geobuf' }, { geobufHeapMb: 16 });
    expect(x.state).toBe('failed');
    expect(x.error).toMatch(/more than its 16 MB heap/);
    expect(x.files).toEqual([]);
    expect((await pool.query('SELECT count(*)::int AS n FROM extract_file WHERE extract_id = $1', [x.extract])).rows[0].n).toBe(0);
  });
});
