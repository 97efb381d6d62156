// OGC API Features under /map/ogc, on real Cambridge data loaded through the pipeline and a real
// server on loopback: the documents and their links, items with bbox, datetime, CQL2 and
// property=value filters, keyset paging, refusals, and two real clients used unmodified:
// GDAL's OAPIF driver (ogrinfo, ogr2ogr) and OWSLib (Debian's python3-owslib).
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RunningServer } from '../../api/server.ts';
import { cambridgeApi } from '../helpers/server.ts';

const run = promisify(execFile);

let close = async () => {};
let server: RunningServer;
let key: string;
let work: string;
let ogc: string;

beforeAll(async () => {
  ({ server, key, close } = await cambridgeApi(100_000));
  work = await mkdtemp(join(tmpdir(), 'landlex-ogc-'));
  ogc = `${server.url}/map/ogc`;
}, 180_000);
afterAll(async () => {
  await close();
  if (work) await rm(work, { recursive: true, force: true });
});

interface Got {
  status: number;
  type: string;
  headers: Headers;
  body: any;
}

/** GET a path or an absolute URL, with the key unless told otherwise. */
async function get(pathOrUrl: string, opts: { key?: boolean } = {}): Promise<Got> {
  const url = pathOrUrl.startsWith('http') ? pathOrUrl : `${server.url}${pathOrUrl}`;
  const res = await fetch(url, { headers: opts.key === false ? {} : { 'X-API-Key': key } });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* kept as text */
  }
  return { status: res.status, type: res.headers.get('content-type') ?? '', headers: res.headers, body };
}

const IN_FORCE = `t.valid @> (now() AT TIME ZONE j.timezone)::date AND t.known @> now()`;

/** Features the store holds in force now, counted in SQL independently of the OGC code. */
async function storeCount(table: 'parcel' | 'district_area', where = 'true', values: unknown[] = []): Promise<number> {
  const { rows } = await server.services.pool.query(
    `SELECT count(*)::int AS n FROM ${table} t JOIN jurisdiction j ON j.id = t.jurisdiction_id WHERE t.geom IS NOT NULL AND ${IN_FORCE} AND ${where}`,
    values,
  );
  return rows[0].n;
}

/** Walks the next links from a first page; returns every feature id in order. */
async function walk(first: string): Promise<{ ids: string[]; pages: number }> {
  const ids: string[] = [];
  let url: string | undefined = first;
  let pages = 0;
  while (url) {
    const r = await get(url);
    expect(r.status, JSON.stringify(r.body).slice(0, 300)).toBe(200);
    for (const f of r.body.features) ids.push(f.id);
    url = r.body.links.find((l: { rel: string }) => l.rel === 'next')?.href;
    pages++;
    expect(pages).toBeLessThan(1000);
  }
  return { ids, pages };
}

const gdalConfig = () => ['--config', 'GDAL_HTTP_HEADERS', `X-API-Key: ${key}`];

describe('documents', () => {
  test('the landing page is public and links self, service-desc, conformance and data, absolutely', async () => {
    const r = await get('/map/ogc', { key: false });
    expect(r.status).toBe(200);
    expect(r.type).toMatch(/^application\/json/);
    const rel = Object.fromEntries(r.body.links.map((l: { rel: string }) => [l.rel, l]));
    expect(rel.self).toMatchObject({ href: ogc, type: 'application/json' });
    expect(rel['service-desc']).toMatchObject({ href: `${ogc}/api`, type: 'application/vnd.oai.openapi+json;version=3.0' });
    expect(rel.conformance).toMatchObject({ href: `${ogc}/conformance`, type: 'application/json' });
    expect(rel.data).toMatchObject({ href: `${ogc}/collections`, type: 'application/json' });
    // a trailing slash (OWSLib asks for it) is the same document
    expect((await get('/map/ogc/', { key: false })).body.links).toEqual(r.body.links);
  });

  test('conformance declares Part 1 Core, GeoJSON and OAS30, Part 2 CRS and Part 3 CQL2 text', async () => {
    const r = await get('/map/ogc/conformance', { key: false });
    expect(r.status).toBe(200);
    expect(r.body.conformsTo).toEqual(
      expect.arrayContaining([
        'http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/core',
        'http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/geojson',
        'http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/oas30',
        'http://www.opengis.net/spec/ogcapi-features-2/1.0/conf/crs',
        'http://www.opengis.net/spec/ogcapi-features-3/1.0/conf/filter',
        'http://www.opengis.net/spec/ogcapi-features-3/1.0/conf/features-filter',
        'http://www.opengis.net/spec/cql2/1.0/conf/cql2-text',
      ]),
    );
  });

  test('/map/ogc/api is a valid OpenAPI 3.0 document of the OGC paths, served as such', async () => {
    const r = await get('/map/ogc/api', { key: false });
    expect(r.status).toBe(200);
    expect(r.type).toMatch(/^application\/vnd\.oai\.openapi\+json;\s*version=3\.0/);
    expect(r.body.openapi).toMatch(/^3\.0\./);
    expect(r.body.servers[0].url).toBe(ogc);
    await SwaggerParser.validate(structuredClone(r.body));
    // limit is the shared component GDAL 3.8+ reads its page size from (it follows $refs only)
    expect(r.body.paths['/collections/parcels/items'].get.parameters).toContainEqual({ $ref: '#/components/parameters/limit' });
    expect(r.body.components.parameters.limit).toMatchObject({ name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 10_000, default: 1000 } });
  });

  test('the whole API description (OpenAPI 3.1) still validates and lists the OGC routes', async () => {
    const r = await get('/openapi.json', { key: false });
    await SwaggerParser.validate(structuredClone(r.body));
    expect(r.body.paths['/map/ogc/collections/{collectionId}/items'].get.operationId).toBe('ogcItems');
  });

  test('/map/ogc... is never taken for a tile layer', async () => {
    const collections = await get('/map/ogc/collections', { key: false });
    expect(collections.status).toBe(401); // the OGC route's credential, not a TileJSON or a 404 layer
    expect(collections.body.detail.error.code).toBe('credential_missing');
    const landing = await get('/map/ogc');
    expect(landing.body.tilejson).toBeUndefined();
    expect(landing.body.links).toBeDefined();
    // the tile routes still answer their own paths
    expect((await get('/map/district')).body.tilejson).toBe('3.0.0');
  });

  test('collections lists the four with items, queryables and a Cambridge extent', async () => {
    const r = await get('/map/ogc/collections');
    expect(r.status).toBe(200);
    expect(r.body.collections.map((c: { id: string }) => c.id)).toEqual(['districts', 'overlays', 'parcels', 'jurisdictions']);
    expect(r.body.links.find((l: { rel: string }) => l.rel === 'self').href).toBe(`${ogc}/collections`);
    const parcels = r.body.collections.find((c: { id: string }) => c.id === 'parcels');
    expect(parcels.itemType).toBe('feature');
    expect(parcels.links).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ rel: 'items', type: 'application/geo+json', href: `${ogc}/collections/parcels/items` }),
        expect.objectContaining({ rel: 'http://www.opengis.net/def/rel/ogc/1.0/queryables', type: 'application/schema+json' }),
      ]),
    );
    const [w, s, e, n] = parcels.extent.spatial.bbox[0];
    expect(w).toBeGreaterThan(-71.2);
    expect(e).toBeLessThan(-71.0);
    expect(s).toBeGreaterThan(42.3);
    expect(n).toBeLessThan(42.45);
    expect(parcels.crs).toContain('http://www.opengis.net/def/crs/OGC/1.3/CRS84');
    expect(parcels).toMatchObject({ defaultItemsPageSize: 1000, maximumItemsPageSize: 10_000 });
    const one = await get('/map/ogc/collections/parcels');
    expect(one.status).toBe(200);
    expect(one.body.id).toBe('parcels');
  });

  test("each collection's extent is the box of its own features in force (ST_Extent), not of the table", async () => {
    const area = (kind: string) => `SELECT ST_Extent(t.geom) AS b FROM district_area t JOIN jurisdiction j ON j.id = t.jurisdiction_id WHERE t.kind = '${kind}' AND ${IN_FORCE}`;
    const sql: Record<string, string> = {
      districts: area('base'),
      overlays: area('overlay'),
      parcels: `SELECT ST_Extent(t.geom) AS b FROM parcel t JOIN jurisdiction j ON j.id = t.jurisdiction_id WHERE ${IN_FORCE}`,
      jurisdictions: 'SELECT ST_Extent(boundary) AS b FROM jurisdiction',
    };
    const r = await get('/map/ogc/collections');
    for (const c of r.body.collections) {
      const { rows } = await server.services.pool.query(`SELECT ST_XMin(b) AS w, ST_YMin(b) AS s, ST_XMax(b) AS e, ST_YMax(b) AS n FROM (${sql[c.id]}) x`);
      const want = [rows[0].w, rows[0].s, rows[0].e, rows[0].n];
      expect(c.extent.spatial.bbox[0], c.id).toEqual(want);
      expect((await get(`/map/ogc/collections/${c.id}`)).body.extent.spatial.bbox[0], c.id).toEqual(want);
    }
    // overlays cover less than the districts: their own box, not the table's
    const [districts, overlays] = ['districts', 'overlays'].map((id) => r.body.collections.find((c: { id: string }) => c.id === id).extent.spatial.bbox[0]);
    expect(overlays).not.toEqual(districts);
  });

  test('an unknown collection is 404 no_such_resource, on every path under it', async () => {
    for (const p of ['', '/items', '/items/prc_x', '/queryables']) {
      const r = await get(`/map/ogc/collections/nosuch${p}`);
      expect(r.status, p).toBe(404);
      expect(r.body.detail.error.code).toBe('no_such_resource');
    }
  });

  test('queryables is a JSON Schema of the properties a filter may name', async () => {
    const r = await get('/map/ogc/collections/districts/queryables');
    expect(r.status).toBe(200);
    expect(r.type).toMatch(/^application\/schema\+json/);
    expect(r.body.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(r.body.$id).toBe(`${ogc}/collections/districts/queryables`);
    expect(r.body.properties.code).toMatchObject({ type: 'string' });
    expect(r.body.properties.effective_from).toMatchObject({ type: 'string', format: 'date' });
    expect(r.body.properties.geometry['x-ogc-role']).toBe('primary-geometry');
    expect(r.body.properties.attributes).toBeUndefined(); // objects are not queryable
  });
});

describe('items', () => {
  test('a first page: GeoJSON, default limit 1000, numberMatched from the store, a next link', async () => {
    const r = await get('/map/ogc/collections/parcels/items');
    expect(r.status).toBe(200);
    expect(r.type).toMatch(/^application\/geo\+json/);
    expect(r.headers.get('content-crs')).toBe('<http://www.opengis.net/def/crs/OGC/1.3/CRS84>');
    expect(r.body.type).toBe('FeatureCollection');
    expect(r.body.features).toHaveLength(1000);
    expect(r.body.numberReturned).toBe(1000);
    expect(r.body.numberMatched).toBe(await storeCount('parcel'));
    const f = r.body.features[0];
    expect(f).toMatchObject({ type: 'Feature', geometry: { type: 'MultiPolygon' } });
    expect(f.id).toMatch(/^prc_/);
    expect(typeof f.properties.parcel_key).toBe('string');
    const [lon, lat] = f.geometry.coordinates[0][0][0];
    expect(lon).toBeGreaterThan(-71.2);
    expect(lat).toBeGreaterThan(42.3);
    const next = r.body.links.find((l: { rel: string }) => l.rel === 'next');
    expect(next).toMatchObject({ type: 'application/geo+json' });
    expect(next.href.startsWith(`${ogc}/collections/parcels/items?`)).toBe(true);
    expect(new URL(next.href).searchParams.get('limit')).toBe('1000');
  });

  test('keyset next links give each feature exactly once, as many as the store holds', async () => {
    const { ids, pages } = await walk('/map/ogc/collections/districts/items?limit=7');
    const want = await storeCount('district_area', `t.kind = 'base'`);
    expect(want).toBeGreaterThan(7);
    expect(pages).toBe(1 + Math.ceil((want - 7) / 1000)); // 7, then 1,000 a page (the next links' least)
    expect(ids.length).toBe(want);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids); // keyset order on the feature id

    const parcels = await walk('/map/ogc/collections/parcels/items?limit=2000');
    expect(parcels.pages).toBeGreaterThan(1);
    expect(parcels.ids.length).toBe(await storeCount('parcel'));
    expect(new Set(parcels.ids).size).toBe(parcels.ids.length);
  });

  test('parcel area is area_sq_ft, square feet, in items, queryables and the OpenAPI schema alike', async () => {
    const r = await get('/map/ogc/collections/parcels/items?limit=50');
    const ids = r.body.features.map((f: { id: string }) => f.id);
    const { rows } = await server.services.pool.query(
      `SELECT t.id, ST_Area(t.geom::geography) / 0.09290304 AS sq_ft FROM parcel t JOIN jurisdiction j ON j.id = t.jurisdiction_id WHERE t.id = ANY($1) AND ${IN_FORCE}`,
      [ids],
    );
    const sqFt = new Map(rows.map((x) => [x.id, Number(x.sq_ft)]));
    for (const f of r.body.features) {
      expect(Object.keys(f.properties).filter((k) => k.startsWith('area'))).toEqual(['area_sq_ft']);
      expect(Math.abs(f.properties.area_sq_ft - sqFt.get(f.id)!)).toBeLessThanOrEqual(Math.max(2, sqFt.get(f.id)! * 0.005));
    }
    const queryables = await get('/map/ogc/collections/parcels/queryables');
    expect(Object.keys(queryables.body.properties).filter((k) => k.startsWith('area'))).toEqual(['area_sq_ft']);
    expect(queryables.body.properties.area_sq_ft).toMatchObject({ type: 'number' });
    const api = await get('/map/ogc/api');
    const schema = api.body.components.schemas.ParcelsFeature.properties.properties.properties;
    expect(Object.keys(schema).filter((k) => k.startsWith('area'))).toEqual(['area_sq_ft']);
    expect(schema.area_sq_ft.description).toMatch(/square feet/i);
    const items = api.body.paths['/collections/parcels/items'].get.parameters.map((p: { name?: string }) => p.name);
    expect(items).toContain('area_sq_ft');
    expect(items).not.toContain('area_m2');
  });

  test('one feature by id, with its links; an unknown id is 404', async () => {
    const page = await get('/map/ogc/collections/parcels/items?limit=1');
    const id = page.body.features[0].id;
    const r = await get(`/map/ogc/collections/parcels/items/${id}`);
    expect(r.status).toBe(200);
    expect(r.type).toMatch(/^application\/geo\+json/);
    expect(r.body).toMatchObject({ type: 'Feature', id, properties: page.body.features[0].properties });
    expect(r.body.links).toEqual(
      expect.arrayContaining([expect.objectContaining({ rel: 'self' }), expect.objectContaining({ rel: 'collection', href: `${ogc}/collections/parcels` })]),
    );
    const missing = await get('/map/ogc/collections/parcels/items/prc_00000000000000000000');
    expect(missing.status).toBe(404);
    expect(missing.body.detail.error).toMatchObject({ code: 'no_such_resource', field: 'featureId' });
  });

  test('a CQL2 filter on a district code selects exactly that district, as property=value does', async () => {
    const { rows } = await server.services.pool.query(
      `SELECT t.code_raw AS code, count(*)::int AS n FROM district_area t JOIN jurisdiction j ON j.id = t.jurisdiction_id
        WHERE t.kind = 'base' AND t.geom IS NOT NULL AND ${IN_FORCE} GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 1`,
    );
    const { code, n } = rows[0];
    const filter = encodeURIComponent(`code = '${code}' AND type IS NOT NULL OR code = '${code}'`);
    const r = await get(`/map/ogc/collections/districts/items?limit=1000&filter-lang=cql2-text&filter=${filter}`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.numberMatched).toBe(n);
    expect(r.body.features.map((f: { properties: { code: string } }) => f.properties.code)).toEqual(Array(n).fill(code));
    const byProperty = await get(`/map/ogc/collections/districts/items?limit=1000&code=${encodeURIComponent(code)}`);
    expect(byProperty.body.features.map((f: { id: string }) => f.id)).toEqual(r.body.features.map((f: { id: string }) => f.id));
    // a filter and property=value together: AND
    const none = await get(`/map/ogc/collections/districts/items?filter=${encodeURIComponent(`code <> '${code}'`)}&code=${encodeURIComponent(code)}`);
    expect(none.body.features).toEqual([]);
    // a spatial filter and a CASEI comparison parse and run too
    const spatial = await get(`/map/ogc/collections/parcels/items?limit=1&filter=${encodeURIComponent('S_INTERSECTS(geometry, BBOX(-71.2,42.3,-71.0,42.45)) AND CASEI(apn) LIKE CASEI(\'%\')')}`);
    expect(spatial.status, JSON.stringify(spatial.body)).toBe(200);
  });

  test('a filter that does not parse is 400 filter_unparsable giving the position', async () => {
    const r = await get(`/map/ogc/collections/districts/items?filter=${encodeURIComponent("code = 'A' AND")}`);
    expect(r.status).toBe(400);
    expect(r.body.detail.error).toMatchObject({ code: 'filter_unparsable', field: 'filter' });
    expect(r.body.detail.error.detail).toMatch(/at position 15\b/);
    const bad = await get(`/map/ogc/collections/districts/items?filter=${encodeURIComponent("code == 'A'")}`);
    expect(bad.status).toBe(400);
    expect(bad.body.detail.error.detail).toMatch(/at position 7\b/);
    const unknown = await get(`/map/ogc/collections/districts/items?filter=${encodeURIComponent("nosuch = 'A'")}`);
    expect(unknown.status).toBe(400);
    expect(unknown.body.detail.error.detail).toMatch(/Unknown property "nosuch".* at position 1\b/);
    const lang = await get(`/map/ogc/collections/districts/items?filter-lang=cql2-json&filter=${encodeURIComponent("code = 'A'")}`);
    expect(lang.status).toBe(400);
    expect(lang.body.detail.error.field).toBe('filter-lang');
  });

  test('bbox selects the features that intersect it; outside the world or inverted is 400 naming bbox', async () => {
    const box = [-71.11, 42.37, -71.1, 42.375];
    const r = await get(`/map/ogc/collections/parcels/items?limit=10000&bbox=${box.join(',')}`);
    expect(r.status).toBe(200);
    const want = await storeCount('parcel', 'ST_Intersects(t.geom, ST_MakeEnvelope($1, $2, $3, $4, 4326))', box);
    expect(want).toBeGreaterThan(0);
    expect(r.body.numberReturned).toBe(want);
    expect(r.body.numberMatched).toBe(want);
    // EPSG:4326 lists latitude first; the same box so written selects the same features
    const latFirst = await get(`/map/ogc/collections/parcels/items?limit=10000&bbox=42.37,-71.11,42.375,-71.1&bbox-crs=${encodeURIComponent('http://www.opengis.net/def/crs/EPSG/0/4326')}`);
    expect(latFirst.body.features.map((f: { id: string }) => f.id)).toEqual(r.body.features.map((f: { id: string }) => f.id));
    for (const bad of ['-200,42,-71,43', '-71,42,-72,43', '-71,42.4,-70,42.3', '1,2,3', 'a,b,c,d']) {
      const e = await get(`/map/ogc/collections/parcels/items?bbox=${bad}`);
      expect(e.status, bad).toBe(400);
      expect(e.body.detail.error, bad).toMatchObject({ code: 'ogc_parameter_invalid', field: 'bbox' });
    }
  });

  test('crs=EPSG:4326 writes latitude first and says so in Content-Crs; an unknown crs is 400', async () => {
    const uri = 'http://www.opengis.net/def/crs/EPSG/0/4326';
    const r = await get(`/map/ogc/collections/parcels/items?limit=1&crs=${encodeURIComponent(uri)}`);
    expect(r.headers.get('content-crs')).toBe(`<${uri}>`);
    const [lat, lon] = r.body.features[0].geometry.coordinates[0][0][0];
    expect(lat).toBeGreaterThan(42.3);
    expect(lon).toBeLessThan(-71);
    const e = await get('/map/ogc/collections/parcels/items?crs=EPSG:9999');
    expect(e.status).toBe(400);
    expect(e.body.detail.error.field).toBe('crs');
  });

  test('datetime is the valid time: before any map nothing, today what is in force now', async () => {
    const now = await get('/map/ogc/collections/parcels/items?limit=1');
    const past = await get('/map/ogc/collections/parcels/items?limit=1&datetime=1900-01-01');
    expect(past.status).toBe(200);
    expect(past.body.features).toEqual([]);
    expect(past.body.numberMatched).toBe(0);
    const instant = new Date().toISOString().slice(0, 19) + 'Z';
    const today = await get(`/map/ogc/collections/parcels/items?limit=1&datetime=${instant}`);
    expect(today.body.numberMatched).toBe(now.body.numberMatched);
    const interval = await get(`/map/ogc/collections/parcels/items?limit=1&datetime=${encodeURIComponent('1900-01-01/..')}`);
    expect(interval.body.numberMatched).toBe(now.body.numberMatched);
    const bad = await get('/map/ogc/collections/parcels/items?datetime=yesterday');
    expect(bad.status).toBe(400);
    expect(bad.body.detail.error).toMatchObject({ code: 'ogc_parameter_invalid', field: 'datetime' });
  });

  test('limit is 1 to 10000; unknown query parameters are accepted; a key in the query string is not', async () => {
    for (const l of ['0', '10001', 'x']) {
      const e = await get(`/map/ogc/collections/parcels/items?limit=${l}`);
      expect(e.status, l).toBe(400);
      expect(e.body.detail.error.field).toBe('limit');
    }
    const extra = await get('/map/ogc/collections/parcels/items?limit=2&f=json&SERVICE=WFS&foo=bar');
    expect(extra.status).toBe(200);
    expect(extra.body.features).toHaveLength(2);
    const leaked = await get('/map/ogc/collections/parcels/items?api_key=llk_nothing', { key: false });
    expect(leaked.status).toBe(401);
  });

  test('a cursor belongs to its walk: another filter or an altered cursor is 400', async () => {
    const r = await get('/map/ogc/collections/districts/items?limit=2');
    const next = new URL(r.body.links.find((l: { rel: string }) => l.rel === 'next').href);
    const cursor = next.searchParams.get('cursor')!;
    const other = await get(`/map/ogc/collections/districts/items?limit=2&code=X&cursor=${cursor}`);
    expect(other.status).toBe(400);
    expect(other.body.detail.error.field).toBe('cursor');
    const altered = await get(`/map/ogc/collections/districts/items?limit=2&cursor=${cursor.slice(0, -2)}xx`);
    expect(altered.status).toBe(400);
    const elsewhere = await get(`/map/ogc/collections/overlays/items?limit=2&cursor=${cursor}`);
    expect(elsewhere.status).toBe(400);
  });
});

describe('GIS clients', () => {
  test("GDAL's OAPIF driver lists every collection with its feature count and fields (ogrinfo)", async () => {
    const { stdout } = await run('ogrinfo', [...gdalConfig(), '-ro', '-so', '-al', `OAPIF:${ogc}`], { timeout: 90_000 });
    const layers = stdout.split(/^Layer name: /m).slice(1);
    const byName = Object.fromEntries(layers.map((l) => [l.split('\n')[0].trim(), l]));
    expect(Object.keys(byName)).toEqual(['districts', 'overlays', 'parcels', 'jurisdictions']);
    const jurisdictions = (await server.services.pool.query('SELECT count(*)::int AS n FROM jurisdiction')).rows[0].n;
    const want: Record<string, number> = {
      districts: await storeCount('district_area', `t.kind = 'base'`),
      overlays: await storeCount('district_area', `t.kind = 'overlay'`),
      parcels: await storeCount('parcel'),
      jurisdictions,
    };
    for (const [name, text] of Object.entries(byName)) {
      expect(text, name).toContain(`Feature Count: ${want[name]}`);
      expect(text, name).toMatch(/Geometry: Multi Polygon/);
      expect(text, name).toMatch(/^Extent: \(-71\.\d+, 42\.\d+\) - \(-71\.\d+, 42\.\d+\)$/m);
    }
    expect(byName.districts).toMatch(/^code: String/m);
    expect(byName.parcels).toMatch(/^parcel_key: String/m);
    expect(byName.jurisdictions).toMatch(/^population: Integer/m);
  }, 120_000);

  test('ogr2ogr pages through every parcel: as many features as the store holds, each once', async () => {
    const out = join(work, 'parcels.geojson');
    await run('ogr2ogr', [...gdalConfig(), '-f', 'GeoJSON', out, `OAPIF:${ogc}/collections/parcels`, '-oo', 'PAGE_SIZE=1000'], { timeout: 170_000 });
    const written = JSON.parse(await readFile(out, 'utf8'));
    const want = await storeCount('parcel');
    expect(want).toBeGreaterThan(1000); // so the driver had to follow next links
    expect(written.features.length).toBe(want);
    expect(new Set(written.features.map((f: { properties: { id: string } }) => f.properties.id)).size).toBe(want);
  }, 180_000);

  test('ogr2ogr with a WHERE on a queryable: the driver filters on the server with property=value', async () => {
    const { rows } = await server.services.pool.query(`SELECT code_raw AS code FROM district_area WHERE kind = 'base' ORDER BY id LIMIT 1`);
    const code: string = rows[0].code;
    const out = join(work, 'districts.geojson');
    const { stderr } = await run('ogr2ogr', ['--config', 'GDAL_HTTP_HEADERS', `X-API-Key: ${key}`, '--debug', 'ON', '-f', 'GeoJSON', out, `OAPIF:${ogc}/collections/districts`, '-where', `code = '${code}'`], { timeout: 60_000 });
    const fetched = stderr.split('\n').filter((l) => l.includes('/collections/districts/items'));
    expect(fetched.length).toBeGreaterThan(0);
    expect(fetched.some((l) => l.includes(`code=${encodeURIComponent(code)}`))).toBe(true);
    const written = JSON.parse(await readFile(out, 'utf8'));
    expect(written.features.length).toBe(await storeCount('district_area', `t.kind = 'base' AND t.code_raw = $1`, [code]));
    for (const f of written.features) expect(f.properties.code).toBe(code);
  }, 90_000);

  test('OWSLib reads the collections and pages of items', async () => {
    const script = `
import json, sys
from owslib.ogcapi.features import Features
w = Features(sys.argv[1], headers={'X-API-Key': sys.argv[2]})
out = {
  'collections': [c['id'] for c in w.collections()['collections']],
  'feature_collections': w.feature_collections(),
  'conformance': w.conformance()['conformsTo'],
  'api': w.api()['openapi'],
}
items = w.collection_items('parcels', limit=5)
out['parcel_ids'] = [f['id'] for f in items['features']]
out['matched'] = items.get('numberMatched')
items = w.collection_items('districts', bbox=[-71.2, 42.3, -71.0, 42.45], limit=3)
out['districts'] = [f['properties']['code'] for f in items['features']]
one = w.collection_item('parcels', out['parcel_ids'][0])
out['one'] = one['id']
print(json.dumps(out))
`;
    const { stdout } = await run('/usr/bin/python3', ['-c', script, ogc, key], { timeout: 60_000 });
    const out = JSON.parse(stdout);
    expect(out.collections).toEqual(['districts', 'overlays', 'parcels', 'jurisdictions']);
    expect(out.feature_collections).toEqual(out.collections);
    expect(out.conformance).toContain('http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/core');
    expect(out.api).toMatch(/^3\.0\./);
    expect(out.parcel_ids).toHaveLength(5);
    for (const id of out.parcel_ids) expect(id).toMatch(/^prc_/);
    expect(out.matched).toBe(await storeCount('parcel'));
    expect(out.districts).toHaveLength(3);
    expect(out.one).toBe(out.parcel_ids[0]);
  });
});
