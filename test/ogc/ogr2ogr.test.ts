// GDAL's OAPIF driver with its default settings (no open options, only the key in a header)
// against a server with its default rate limit, on the real Cambridge data: ogr2ogr copies every
// collection to a GeoPackage with the store's counts, each feature once; the copy costs what
// extracts of the same features cost, opening the service costs no more than that, and a second
// copy the same day is free.
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { creditsFor } from '../../activities/extract/plan.ts';
import type { RunningServer } from '../../api/server.ts';
import { cambridgeApi, createTestOrg, startTestServer } from '../helpers/server.ts';

const run = promisify(execFile);

let close = async () => {};
let server: RunningServer;
let work: string;
let ogc: string;

beforeAll(async () => {
  const api = await cambridgeApi(0);
  // the same database behind a server with the default configuration (rate limit included)
  server = await startTestServer({ DATABASE_URL: api.server.services.config.databaseUrl });
  close = async () => {
    await server.close();
    await api.close();
  };
  work = await mkdtemp(join(tmpdir(), 'landlex-ogr2ogr-'));
  ogc = `${server.url}/map/ogc`;
}, 180_000);
afterAll(async () => {
  await close();
  if (work) await rm(work, { recursive: true, force: true });
});

const IN_FORCE = 't.valid @> (now() AT TIME ZONE j.timezone)::date AND t.known @> now()';

/** Features of each collection in force now, counted in SQL independently of the OGC code. */
async function storeCounts(): Promise<Record<string, number>> {
  const q = async (sql: string) => (await server.services.pool.query(sql)).rows[0].n as number;
  const area = (kind: string) => q(`SELECT count(*)::int AS n FROM district_area t JOIN jurisdiction j ON j.id = t.jurisdiction_id WHERE t.kind = '${kind}' AND ${IN_FORCE}`);
  return {
    districts: await area('base'),
    overlays: await area('overlay'),
    parcels: await q(`SELECT count(*)::int AS n FROM parcel t JOIN jurisdiction j ON j.id = t.jurisdiction_id WHERE t.geom IS NOT NULL AND ${IN_FORCE}`),
    jurisdictions: await q('SELECT count(*)::int AS n FROM jurisdiction'),
  };
}

async function balance(org: string): Promise<number> {
  await server.services.meter.flush();
  const { rows } = await server.services.pool.query('SELECT balance FROM credit_account WHERE organization_id = $1', [org]);
  return Number(rows[0].balance);
}

const gdal = (key: string) => ['--config', 'GDAL_HTTP_HEADERS', `X-API-Key: ${key}`, '--debug', 'ON'];

/** Each layer of a GeoPackage: features and distinct feature ids, read back with ogrinfo. */
async function gpkgLayers(file: string, names: string[]): Promise<Record<string, { count: number; ids: number }>> {
  const out: Record<string, { count: number; ids: number }> = {};
  for (const name of names) {
    const { stdout } = await run('ogrinfo', ['-ro', '-q', file, '-sql', `SELECT count(*) AS n, count(DISTINCT id) AS ids FROM "${name}"`]);
    out[name] = { count: Number(/n \(Integer\S*\) = (\d+)/.exec(stdout)?.[1]), ids: Number(/ids \(Integer\S*\) = (\d+)/.exec(stdout)?.[1]) };
  }
  return out;
}

test('ogr2ogr with no options copies every collection to a GeoPackage, priced as extracts of it', async () => {
  const want = await storeCounts();
  expect(want.parcels).toBeGreaterThan(10_000); // the whole of Cambridge, many pages of any size
  const org = await createTestOrg(server, 1000);
  const before = await balance(org.organizationId);

  // opening the service and reading every layer's schema and count
  const opened = await run('ogrinfo', [...gdal(org.apiKey), '-ro', '-so', '-al', `OAPIF:${ogc}`], { timeout: 60_000 });
  for (const [name, n] of Object.entries(want)) expect(opened.stdout, name).toContain(`Feature Count: ${n}`);
  const afterOpen = await balance(org.organizationId);
  const layers = Object.keys(want).filter((name) => want[name] > 0);
  // each layer's first block of 1,000 features, which the copy will not pay again
  expect(before - afterOpen).toBe(layers.length);

  const file = join(work, 'all.gpkg');
  const started = Date.now();
  const copy = await run('ogr2ogr', [...gdal(org.apiKey), '-f', 'GPKG', file, `OAPIF:${ogc}`], { timeout: 60_000, maxBuffer: 64 * 1024 * 1024 });
  const seconds = (Date.now() - started) / 1000;
  expect(copy.stderr).not.toMatch(/HTTP error code : 429|ERROR \d/);
  const got = await gpkgLayers(file, Object.keys(want));
  for (const [name, n] of Object.entries(want)) expect(got[name], name).toEqual({ count: n, ids: n });

  // GDAL 3.6 asks limit=10; the next links continue at 1,000 a page
  const parcelPages = copy.stderr.split('\n').filter((l) => /HTTP: Fetch\(.*\/collections\/parcels\/items/.test(l));
  expect(parcelPages.length).toBeLessThanOrEqual(2 + Math.ceil(want.parcels / 1000));
  expect(seconds).toBeLessThan(30);

  // the open and the copy together: one credit per 1,000 features of each collection, as extracts
  const extracts = layers.reduce((sum, name) => sum + creditsFor(want[name]), 0);
  expect(before - (await balance(org.organizationId))).toBe(extracts);

  // the same copy again the same day is free
  const again = join(work, 'again.gpkg');
  await run('ogr2ogr', [...gdal(org.apiKey), '-f', 'GPKG', again, `OAPIF:${ogc}`, 'parcels'], { timeout: 60_000, maxBuffer: 64 * 1024 * 1024 });
  expect((await gpkgLayers(again, ['parcels'])).parcels.count).toBe(want.parcels);
  expect(before - (await balance(org.organizationId))).toBe(extracts);
}, 150_000);

test('a walk of pages costs one credit per 1,000 features whatever the page size; empty pages are free', async () => {
  const org = await createTestOrg(server, 1000);
  const before = await balance(org.organizationId);
  const headers = { 'X-API-Key': org.apiKey };
  // a walk at 300 a page: blocks 0..n of 1,000 features, each charged by the first page touching it
  const filter = encodeURIComponent("parcel_key LIKE '1%'");
  let url: string | undefined = `${ogc}/collections/parcels/items?limit=300&filter=${filter}`;
  let served = 0;
  const limits: number[] = [];
  while (url) {
    const res: Response = await fetch(url, { headers });
    expect(res.status).toBe(200);
    limits.push(Number(new URL(url).searchParams.get('limit')));
    const body: { features: unknown[]; links: Array<{ rel: string; href: string }> } = await res.json();
    served += body.features.length;
    url = body.links.find((l) => l.rel === 'next')?.href;
  }
  expect(served).toBeGreaterThan(1000);
  expect(limits.slice(0, 2)).toEqual([300, 1000]); // a next link asks for 1,000 at least
  expect(before - (await balance(org.organizationId))).toBe(Math.ceil(served / 1000));
  const empty = await fetch(`${ogc}/collections/parcels/items?datetime=1900-01-01`, { headers });
  expect((await empty.json()).features).toEqual([]);
  expect(before - (await balance(org.organizationId))).toBe(Math.ceil(served / 1000));
});
