// Geobuf (application/vnd.geobuf) on real Cambridge data over loopback: OGC items and features
// (f=geobuf or Accept), /v1/zoning and /parcel (Accept), each decoded with the geobuf package back to
// the GeoJSON the same request serves, coordinates exact; a walk of Geobuf pages by the Link header;
// the same charge as GeoJSON; declared in both OpenAPI documents and the collections' links.
import { decode } from 'geobuf';
import Pbf from 'pbf4';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RunningServer } from '../../api/server.ts';
import { cambridgeApi, createTestOrg } from '../helpers/server.ts';

const GEOBUF = 'application/vnd.geobuf';
const GEOJSON = 'application/geo+json';

let close = async () => {};
let server: RunningServer;
let key: string;

beforeAll(async () => {
  ({ server, key, close } = await cambridgeApi(100_000));
}, 300_000);
afterAll(async () => {
  await close();
});

interface Got {
  status: number;
  type: string;
  headers: Headers;
  body: any;
}

/** GET with a key and headers; a Geobuf body is decoded with the geobuf package, JSON parsed. */
async function get(pathOrUrl: string, headers: Record<string, string> = {}, apiKey = key): Promise<Got> {
  const url = pathOrUrl.startsWith('http') ? pathOrUrl : `${server.url}${pathOrUrl}`;
  const res = await fetch(url, { headers: { 'X-API-Key': apiKey, ...headers } });
  const type = res.headers.get('content-type') ?? '';
  const bytes = new Uint8Array(await res.arrayBuffer());
  const body = type.startsWith(GEOBUF) ? decode(new Pbf(bytes)) : JSON.parse(new TextDecoder().decode(bytes));
  return { status: res.status, type, headers: res.headers, body };
}

/** Every coordinate of a GeoJSON object. */
function coordinates(obj: any): number[] {
  if (!obj) return [];
  if (obj.type === 'FeatureCollection') return obj.features.flatMap(coordinates);
  if (obj.type === 'Feature') return coordinates(obj.geometry);
  return (obj.coordinates as unknown[]).flat(4) as number[];
}

/** Served with 7 decimals: some coordinate needs all 7 (so 6, geobuf's own most, would not do). */
const needsSeven = (obj: unknown) => coordinates(obj).some((v) => Math.round(v * 1e6) / 1e6 !== v);

const without = (obj: Record<string, unknown>, ...names: string[]) => Object.fromEntries(Object.entries(obj).filter(([k]) => !names.includes(k)));

const balanceOf = async (org: string) => {
  await server.services.meter.flush();
  const { rows } = await server.services.pool.query('SELECT balance FROM credit_account WHERE organization_id = $1', [org]);
  return Number(rows[0].balance);
};

describe('OGC API Features', () => {
  const items = '/map/ogc/collections/parcels/items';
  const bbox = 'bbox=-71.1200,42.3600,-71.1050,42.3700';

  test('items with f=geobuf or Accept decode to the GeoJSON page of the same request, coordinates exact', async () => {
    const json = await get(`${items}?${bbox}&limit=300`);
    expect(json.type).toMatch(/^application\/geo\+json/);
    expect(json.body.features).toHaveLength(300);
    expect(needsSeven(json.body)).toBe(true);
    for (const [path, headers] of [[`${items}?${bbox}&limit=300&f=geobuf`, {}], [`${items}?${bbox}&limit=300`, { Accept: GEOBUF }]] as const) {
      const buf = await get(path, headers);
      expect(buf.status, path).toBe(200);
      expect(buf.type).toBe(GEOBUF);
      expect(buf.headers.get('content-crs')).toBe('<http://www.opengis.net/def/crs/OGC/1.3/CRS84>');
      expect(buf.headers.get('vary')).toMatch(/Accept/);
      // everything but the links (self and alternate swap their types) and the time of the answer
      expect(without(buf.body, 'links', 'timeStamp')).toEqual(without(json.body, 'links', 'timeStamp'));
      const rel = Object.fromEntries(buf.body.links.map((l: { rel: string }) => [l.rel, l]));
      expect(rel.self).toMatchObject({ href: `${server.url}${path}`, type: GEOBUF });
      expect(rel.alternate).toMatchObject({ type: GEOJSON, href: expect.stringContaining('f=geojson') });
      expect(rel.next).toMatchObject({ type: GEOBUF, href: expect.stringContaining('f=geobuf') });
      expect(buf.headers.get('link')).toBe(`<${rel.next.href}>; rel="next"; type="${GEOBUF}"`);
    }
    const jsonRel = Object.fromEntries(json.body.links.map((l: { rel: string }) => [l.rel, l]));
    expect(jsonRel.alternate).toMatchObject({ type: GEOBUF, href: expect.stringContaining('f=geobuf') });
    expect(jsonRel.next.type).toBe(GEOJSON);
    expect(json.headers.get('link')).toBe(`<${jsonRel.next.href}>; rel="next"; type="${GEOJSON}"`);
  });

  test('a walk of Geobuf pages by the Link header serves the features of the GeoJSON walk, and costs the same', async () => {
    const walk = async (first: string, headers: Record<string, string>, next: (r: Got) => string | undefined, apiKey: string) => {
      const pages: any[] = [];
      for (let url: string | undefined = first; url; url = next(pages[pages.length - 1])) {
        const r = await get(url, headers, apiKey);
        expect(r.status).toBe(200);
        pages.push(r);
        expect(pages.length).toBeLessThan(50);
      }
      return pages;
    };
    const a = await createTestOrg(server, 1000);
    const b = await createTestOrg(server, 1000);
    const [beforeA, beforeB] = [await balanceOf(a.organizationId), await balanceOf(b.organizationId)];
    // Geobuf asked by Accept on the first page only: the Link header's next link names f=geobuf
    const fromHeader = (r: Got) => r.headers.get('link')?.match(/^<([^>]+)>; rel="next"/)?.[1];
    const wide = 'bbox=-71.1250,42.3550,-71.1000,42.3750&limit=200';
    const geobuf = await walk(`${items}?${wide}`, { Accept: GEOBUF }, fromHeader, a.apiKey);
    const geojson = await walk(`${items}?${wide}`, {}, (r) => r.body.links.find((l: { rel: string }) => l.rel === 'next')?.href, b.apiKey);
    expect(geobuf.length).toBeGreaterThan(2);
    expect(geobuf.length).toBe(geojson.length);
    geobuf.forEach((page, i) => {
      expect(page.type).toBe(GEOBUF);
      expect(page.body.features).toEqual(geojson[i].body.features);
      expect(page.body.numberReturned).toBe(geojson[i].body.numberReturned);
    });
    const served = geojson.reduce((n, p) => n + p.body.features.length, 0);
    const { rows } = await server.services.pool.query(
      `SELECT count(*)::int AS n FROM parcel t JOIN jurisdiction j ON j.id = t.jurisdiction_id
        WHERE t.geom IS NOT NULL AND t.valid @> (now() AT TIME ZONE j.timezone)::date AND t.known @> now()
          AND ST_Intersects(t.geom, ST_MakeEnvelope(-71.125, 42.355, -71.1, 42.375, 4326))`,
    );
    expect(served).toBe(rows[0].n);
    const spentA = beforeA - (await balanceOf(a.organizationId));
    const spentB = beforeB - (await balanceOf(b.organizationId));
    expect(spentA).toBe(Math.ceil(served / 1000));
    expect(spentA).toBe(spentB);
  });

  test('one feature in Geobuf decodes to its GeoJSON; unsupported or lower-weighted Accept keeps GeoJSON', async () => {
    const first = (await get(`${items}?${bbox}&limit=1`)).body.features[0];
    const path = `${items}/${first.id}`;
    const json = await get(path);
    const buf = await get(path, { Accept: GEOBUF });
    expect(buf.type).toBe(GEOBUF);
    expect(needsSeven(json.body)).toBe(true);
    expect(without(buf.body, 'links')).toEqual(without(json.body, 'links'));
    expect(buf.body.links.find((l: { rel: string }) => l.rel === 'self').type).toBe(GEOBUF);
    expect((await get(`${path}?f=geobuf`)).body).toEqual({ ...buf.body, links: expect.any(Array) });
    for (const accept of ['application/x-protobuf', 'text/csv', `${GEOJSON}, ${GEOBUF};q=0.5`, `${GEOBUF};q=0`, '*/*']) {
      const r = await get(path, { Accept: accept });
      expect(r.type, accept).toMatch(/^application\/geo\+json/);
      expect(r.body).toEqual(json.body);
    }
    // f wins over Accept
    expect((await get(`${path}?f=json`, { Accept: GEOBUF })).type).toMatch(/^application\/geo\+json/);
  });

  test('collections link Geobuf items; both OpenAPI documents declare the media type', async () => {
    const c = (await get('/map/ogc/collections/districts')).body;
    const link = c.links.find((l: { rel: string; type: string }) => l.rel === 'items' && l.type === GEOBUF);
    expect(link.href).toBe(`${server.url}/map/ogc/collections/districts/items?f=geobuf`);
    // GDAL picks the GeoJSON items link: it comes first
    expect(c.links.find((l: { rel: string }) => l.rel === 'items').type).toBe(GEOJSON);
    const districts = await get(link.href);
    expect(districts.type).toBe(GEOBUF);
    expect(districts.body.features.length).toBeGreaterThan(0);
    for (const x of (await get('/map/ogc/collections')).body.collections) expect(x.links.map((l: { type: string }) => l.type)).toContain(GEOBUF);

    const ogc = (await get('/map/ogc/api')).body;
    const op = ogc.paths['/collections/parcels/items'].get;
    expect(Object.keys(op.responses['200'].content)).toEqual([GEOJSON, GEOBUF]);
    expect(op.responses['200'].headers.Link).toBeDefined();
    expect(op.parameters.find((p: { name: string }) => p.name === 'f').schema.enum).toContain('geobuf');
    expect(Object.keys(ogc.paths['/collections/parcels/items/{featureId}'].get.responses['200'].content)).toContain(GEOBUF);
    expect(ogc.paths['/collections'].get.parameters.find((p: { name: string }) => p.name === 'f').schema.enum).not.toContain('geobuf');

    const api = (await get('/openapi.json')).body;
    for (const [path, ok] of [['/map/ogc/collections/{collectionId}/items', '200'], ['/map/ogc/collections/{collectionId}/items/{featureId}', '200'], ['/v1/zoning', '200'], ['/v1/zoning/{zoning_id}', '200'], ['/parcel', '200'], ['/parcel/{parcel}', '200']]) {
      expect(api.paths[path].get.responses[ok].content[GEOBUF], path).toEqual({ schema: { type: 'string', format: 'binary' } });
    }
  });
});

describe('/v1/zoning', () => {
  test('at a place: the Geobuf FeatureCollection is the GeoJSON one, geometry exact; charged the same', async () => {
    const path = '/v1/zoning?lat=42.3629&lon=-71.1113&include=geometry,standard';
    const a = await createTestOrg(server, 1000);
    const b = await createTestOrg(server, 1000);
    const [beforeA, beforeB] = [await balanceOf(a.organizationId), await balanceOf(b.organizationId)];
    const buf = await get(path, { Accept: GEOBUF }, a.apiKey);
    const json = await get(path, { Accept: GEOJSON }, b.apiKey);
    expect(buf.status).toBe(200);
    expect(buf.type).toBe(GEOBUF);
    expect(json.type).toMatch(/^application\/geo\+json/);
    expect(json.body.features.length).toBeGreaterThan(0);
    expect(needsSeven(json.body)).toBe(true);
    expect(buf.body).toEqual(json.body);
    expect(beforeA - (await balanceOf(a.organizationId))).toBe(1);
    expect(beforeB - (await balanceOf(b.organizationId))).toBe(1);
    // format=geojson as before, and an unsupported Accept is the JSON list
    expect((await get('/v1/zoning?lat=42.3629&lon=-71.1113&include=geometry,standard&format=geojson')).body).toEqual(json.body);
    const plain = await get(path, { Accept: 'text/csv' });
    expect(plain.type).toMatch(/^application\/json/);
    expect(plain.body.object).toBe('list');
  });

  test('a legend walks its Geobuf pages by next_cursor; one classification as a Geobuf Feature', async () => {
    const path = '/v1/zoning?jurisdiction=cambridge-ma&include=geometry&size=3';
    const buf = await get(path, { Accept: GEOBUF });
    const json = await get(path, { Accept: GEOJSON });
    expect(buf.body.has_more).toBe(true);
    expect(without(buf.body, 'next_cursor')).toEqual(without(json.body, 'next_cursor'));
    const second = await get(`${path}&cursor=${encodeURIComponent(buf.body.next_cursor)}`, { Accept: GEOBUF });
    expect(second.type).toBe(GEOBUF);
    const secondJson = await get(`${path}&cursor=${encodeURIComponent(json.body.next_cursor)}`, { Accept: GEOJSON });
    expect(second.body.features).toEqual(secondJson.body.features);
    expect(second.body.features[0].id).not.toBe(buf.body.features[0].id);

    const id = json.body.features.find((f: { geometry: unknown }) => f.geometry).id;
    const one = await get(`/v1/zoning/${id}?include=geometry`, { Accept: GEOBUF });
    const oneJson = await get(`/v1/zoning/${id}?include=geometry&format=geojson`);
    expect(one.type).toBe(GEOBUF);
    expect(needsSeven(oneJson.body)).toBe(true);
    expect(one.body).toEqual(oneJson.body);
  });
});

describe('/parcel', () => {
  const list = '/parcel?jurisdiction=cambridge-ma&bbox=-71.1130,42.3620,-71.1100,42.3640&size=20';

  test('found parcels as a Geobuf FeatureCollection: the GeoJSON one, polygons exact, properties the fields the JSON form shows', async () => {
    const buf = await get(list, { Accept: GEOBUF });
    const geo = await get(list, { Accept: GEOJSON });
    const plain = await get(list);
    expect(buf.type).toBe(GEOBUF);
    expect(geo.type).toMatch(/^application\/geo\+json/);
    expect(geo.body.features).toHaveLength(20);
    expect(needsSeven(geo.body)).toBe(true);
    expect(without(buf.body, 'page')).toEqual(without(geo.body, 'page'));
    expect(without(buf.body.page, 'next_cursor')).toEqual(without(geo.body.page, 'next_cursor'));
    expect(buf.body.page.next_cursor).toEqual(expect.any(String));
    expect(geo.body.features.map((f: { properties: unknown }) => f.properties)).toEqual(plain.body.item);
    // each polygon is the one /parcel/{id} serves
    const one = await get(`/parcel/${plain.body.item[0].id}`);
    expect(geo.body.features[0].geometry).toEqual(one.body.item.geometry);
    // the next page, in Geobuf, by the page's cursor
    const next = await get(`${list}&cursor=${encodeURIComponent(buf.body.page.next_cursor)}`, { Accept: GEOBUF });
    expect(next.type).toBe(GEOBUF);
    expect(next.body.features[0].id).not.toBe(buf.body.features[0].id);
    // field selection shapes the properties as it shapes the JSON items, never the geometry
    const narrow = await get(`${list}&field=id,apn`, { Accept: GEOBUF });
    expect(narrow.body.features.map((f: { properties: unknown }) => f.properties)).toEqual((await get(`${list}&field=id,apn`)).body.item);
    expect(Object.keys(narrow.body.features[0].properties)).toContain('apn');
    expect(Object.keys(narrow.body.features[0].properties)).not.toContain('area');
    expect(narrow.body.features[0].geometry).toEqual(buf.body.features[0].geometry);
  });

  test('one parcel as a Geobuf Feature equals its GeoJSON Feature and the JSON item; charged the same', async () => {
    const id = (await get(list)).body.item[0].id;
    const a = await createTestOrg(server, 1000);
    const b = await createTestOrg(server, 1000);
    const [beforeA, beforeB] = [await balanceOf(a.organizationId), await balanceOf(b.organizationId)];
    const buf = await get(`/parcel/${id}`, { Accept: GEOBUF }, a.apiKey);
    const plain = await get(`/parcel/${id}`, {}, b.apiKey);
    const geo = await get(`/parcel/${id}`, { Accept: GEOJSON });
    expect(buf.type).toBe(GEOBUF);
    expect(buf.body).toEqual(geo.body);
    expect(needsSeven(buf.body)).toBe(true);
    const { geometry, ...properties } = plain.body.item;
    expect(buf.body).toEqual({ type: 'Feature', id, geometry, properties });
    expect(beforeA - (await balanceOf(a.organizationId))).toBe(1);
    expect(beforeB - (await balanceOf(b.organizationId))).toBe(1);
    expect((await get(`/parcel/${id}`, { Accept: 'application/x-protobuf' })).body.item).toEqual(plain.body.item);
  });
});
