// The synthetic town's website: both versions served, conditional requests, failure modes, and
// the fixture itself (valid tiling districts, exactly the v1→v2 differences EXPECTED.md names).
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import gdal from 'gdal-async';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { checkManifest } from '../../../ingest/manifest.ts';
import { parseAssessorRoll } from '../../../ingest/records/assessor.ts';
import { assessorMapping } from '../../../ingest/records/mappings.ts';
import { SITE_ROOT, type SyntheticSite, siteFile, startSyntheticSite } from '../../helpers/synthetic-site.ts';

let site: SyntheticSite;
beforeAll(async () => {
  site = await startSyntheticSite({ version: 1 });
});
afterAll(async () => {
  await site.close();
});
const get = (path: string, headers: Record<string, string> = {}, signal?: AbortSignal) => fetch(site.url + path, { headers, signal });

describe('serving', () => {
  test('v1 then v2 of the code; content types; HEAD; 404 for an unknown path', async () => {
    site.setVersion(1);
    const v1 = await get('/code/zoning.html');
    expect(v1.status).toBe(200);
    expect(v1.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await v1.text()).toContain('<tr><td>R-1</td><td>40,000</td><td>150</td><td>25</td>');
    site.setVersion(2);
    const v2 = await (await get('/code/zoning.html')).text();
    expect(v2).toContain('<tr><td>R-1</td><td>40,000</td><td>150</td><td>20</td>');
    expect(v2).not.toContain('6.2 Outdoor Wood-Fired Hydronic Heaters');
    expect((await get('/gis/zoning.geojson')).headers.get('content-type')).toBe('application/geo+json');
    expect((await get('/assessor/roll.csv')).headers.get('content-type')).toBe('text/csv; charset=utf-8');
    const head = await fetch(`${site.url}/permits/feed.json`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(Number(head.headers.get('content-length'))).toBe(siteFile(2, '/permits/feed.json')!.bytes.length);
    expect((await get('/no/such/page.html')).status).toBe(404);
    expect((await get('/../town.json')).status).not.toBe(500);
    const town = await (await get('/town.json')).json();
    expect(town.fips_key).toBe('us:cousub:2501799010');
    site.setVersion(1);
  });

  test('304 on a matching ETag or a not-older If-Modified-Since; 200 otherwise', async () => {
    site.setVersion(1);
    const first = await get('/clerk/ordinances.html');
    const etag = first.headers.get('etag')!;
    const lastModified = first.headers.get('last-modified')!;
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
    expect(lastModified).toBe('Sun, 01 Mar 2026 12:00:00 GMT');
    const again = await get('/clerk/ordinances.html', { 'If-None-Match': etag });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    expect((await get('/clerk/ordinances.html', { 'If-None-Match': '"other"' })).status).toBe(200);
    expect((await get('/clerk/ordinances.html', { 'If-Modified-Since': lastModified })).status).toBe(304);
    expect((await get('/clerk/ordinances.html', { 'If-Modified-Since': 'Sat, 28 Feb 2026 12:00:00 GMT' })).status).toBe(200);
    expect(site.requests.filter((r) => r.path === '/clerk/ordinances.html' && r.conditional && r.status === 304)).toHaveLength(2);

    // after the amendment: the changed page answers 200 with a new ETag, an unchanged one 304
    const roll = await get('/assessor/roll.csv');
    site.setVersion(2);
    const changed = await get('/clerk/ordinances.html', { 'If-None-Match': etag });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
    expect(changed.headers.get('last-modified')).toBe('Mon, 20 Apr 2026 12:00:00 GMT');
    expect((await get('/assessor/roll.csv', { 'If-None-Match': roll.headers.get('etag')! })).status).toBe(304);
    site.setVersion(1);
  });

  test('a path told to fail answers 404 or 500, or hangs until healed', async () => {
    site.fail('/gis/parcels.geojson', 500);
    expect((await get('/gis/parcels.geojson')).status).toBe(500);
    site.fail('/gis/parcels.geojson', 404);
    expect((await get('/gis/parcels.geojson')).status).toBe(404);
    site.fail('/registry/index.csv', 'hang');
    const t0 = Date.now();
    await expect(get('/registry/index.csv', {}, AbortSignal.timeout(300))).rejects.toThrow(/timeout|aborted/i);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(250);
    expect(site.requests.some((r) => r.path === '/registry/index.csv' && r.status === 'hung')).toBe(true);
    expect((await get('/code/zoning.html')).status).toBe(200); // other paths unaffected
    site.heal();
    expect((await get('/gis/parcels.geojson')).status).toBe(200);
    expect((await get('/registry/index.csv')).status).toBe(200);
  });

  test('close() ends even with a request hanging', async () => {
    const other = await startSyntheticSite({ version: 2 });
    other.fail('/permits/feed.json', 'hang');
    const pending = fetch(`${other.url}/permits/feed.json`).catch((e: Error) => e);
    await new Promise((r) => setTimeout(r, 50));
    await other.close();
    expect(await pending).toBeInstanceOf(Error);
  });
});

function files(root: string, dir = root): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? files(root, p) : [`/${relative(root, p)}`];
  });
}

describe('the fixture', () => {
  test('exactly the files EXPECTED.md names differ between v1 and v2', () => {
    const paths = new Set([...files(join(SITE_ROOT, 'common')), ...files(join(SITE_ROOT, 'v1')), ...files(join(SITE_ROOT, 'v2'))]);
    const differ = [...paths].filter((p) => siteFile(1, p)?.etag !== siteFile(2, p)?.etag).sort();
    expect(differ).toEqual([
      '/clerk/ord/2026-07.html',
      '/clerk/ord/2026-08.html',
      '/clerk/ord/2026-09.html',
      '/clerk/ord/2026-10.html',
      '/clerk/ordinances.html',
      '/code/zoning.html',
      '/gis/zoning.geojson',
      '/permits/feed.json',
      '/registry/index.csv',
    ]);
  });

  test('the code text changes in two places only: the R-1 front setback and Section 6.2', () => {
    const a = siteFile(1, '/code/zoning.html')!.bytes.toString('utf8').split('\n');
    const b = siteFile(2, '/code/zoning.html')!.bytes.toString('utf8').split('\n');
    const gone = a.filter((l) => !b.includes(l));
    const added = b.filter((l) => !a.includes(l));
    expect(added).toEqual(['<tr><td>R-1</td><td>40,000</td><td>150</td><td>20</td><td>15</td><td>30</td><td>35</td><td>2.5</td><td>20</td><td>0.3</td></tr>']);
    expect(gone).toHaveLength(3);
    expect(gone[0]).toContain('<td>R-1</td><td>40,000</td><td>150</td><td>25</td>');
    expect(gone[1]).toBe('<h3 id="s6.2">6.2 Outdoor Wood-Fired Hydronic Heaters</h3>');
  });

  test('districts tile the town in EPSG:26986 in both versions; only parcel 4-15 changes district', () => {
    const layer = (rel: string) => {
      const ds = gdal.open(join(SITE_ROOT, rel));
      const l = ds.layers.get(0);
      expect(l.srs?.getAuthorityCode(null)).toBe('26986');
      const out: Array<{ key: string; g: gdal.Geometry }> = [];
      l.features.forEach((f) => {
        const props = f.fields.toObject() as Record<string, unknown>;
        out.push({ key: String(props.ZONE_CODE ?? props.MAP_LOT), g: f.getGeometry()!.clone() });
      });
      return out;
    };
    const area = (g: gdal.Geometry) => ('getArea' in g ? (g as gdal.Polygon).getArea() : 0);
    const parcels = layer('common/gis/parcels.geojson');
    expect(parcels).toHaveLength(21);
    const districtOf: Record<string, Record<string, string>> = {};
    for (const v of ['v1', 'v2']) {
      const z = layer(`${v}/gis/zoning.geojson`);
      expect(z.map((d) => d.key)).toEqual(['R-1', 'R-2', 'VC', 'I-1']);
      for (const d of z) expect(d.g.isValid()).toBe(true);
      for (let i = 0; i < z.length; i++) for (let j = i + 1; j < z.length; j++) expect(area(z[i].g.intersection(z[j].g))).toBeLessThan(0.01);
      const union = z.slice(1).reduce((u, d) => u.union(d.g), z[0].g);
      expect(union.wkbType).toBe(gdal.wkbPolygon);
      expect(area(union)).toBeCloseTo(4_800_000, -1);
      districtOf[v] = Object.fromEntries(parcels.map((p) => [p.key, z.filter((d) => d.g.contains(p.g)).map((d) => d.key).join()]));
    }
    for (const p of parcels) expect(p.g.isValid()).toBe(true);
    expect(Object.values(districtOf.v1).every((d) => d.length > 0 && !d.includes(','))).toBe(true);
    const moved = parcels.filter((p) => districtOf.v1[p.key] !== districtOf.v2[p.key]).map((p) => [p.key, districtOf.v1[p.key], districtOf.v2[p.key]]);
    expect(moved).toEqual([['4-15', 'R-2', 'VC']]);
  });

  test('the roll, fetched from the site, parses with its mapping; the manifest is valid', async () => {
    const bytes = new Uint8Array(await (await get('/assessor/roll.csv')).arrayBuffer());
    const r = parseAssessorRoll(bytes, assessorMapping('millbrook_roll'));
    expect(r.rows).toHaveLength(22);
    expect(r.rejected).toEqual([]);
    expect(r.issues).toEqual([]);
    const parcels = layerKeys();
    expect(new Set(r.rows.map((x) => x.parcel_key))).toEqual(parcels);
    const vacant = r.rows.find((x) => x.account_key === '1001')!;
    expect(vacant).toMatchObject({ parcel_key: '1-7', land_area: { value: 9.88, unit: 'acre' }, structures: [], sales: [] });
    expect(vacant.withheld).toEqual(['assessment.building_value_cents', 'structures', 'sales']);
    const town = await (await get('/town.json')).json();
    const manifest = JSON.parse(JSON.stringify(town.manifest).replaceAll('{site}', site.url));
    expect(checkManifest(manifest, 'millbrook').sources).toHaveLength(9);
  });
});

function layerKeys(): Set<string> {
  const geo = JSON.parse(siteFile(1, '/gis/parcels.geojson')!.bytes.toString('utf8')) as { features: Array<{ properties: { MAP_LOT: string } }> };
  return new Set(geo.features.map((f) => f.properties.MAP_LOT));
}
