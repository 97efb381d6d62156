// GDAL against a low rate limit, as a GIS user would run it: ogr2ogr through OAPIF with the key as
// the HTTP Basic password (QGIS's and GDAL's way), GDAL_HTTP_MAX_RETRY set. The server answers 429
// with Retry-After and RateLimit-* headers; GDAL waits and retries, and the copy finishes whole.
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { RunningServer } from '../../api/server.ts';
import { cambridgeApi, createTestOrg, startTestServer } from '../helpers/server.ts';

const run = promisify(execFile);

let close = async () => {};
let server: RunningServer;
let work: string;

beforeAll(async () => {
  const api = await cambridgeApi(0);
  // priced calls (OGC items among them): 2 a second, 3 at once
  server = await startTestServer({ DATABASE_URL: api.server.services.config.databaseUrl, RATE_LIMIT_PER_SECOND: '2', RATE_LIMIT_BURST: '3' });
  close = async () => {
    await server.close();
    await api.close();
  };
  work = await mkdtemp(join(tmpdir(), 'landlex-gdal-retry-'));
}, 180_000);
afterAll(async () => {
  await close();
  if (work) await rm(work, { recursive: true, force: true });
});

const IN_FORCE = 't.valid @> (now() AT TIME ZONE j.timezone)::date AND t.known @> now()';

test('ogr2ogr with HTTP Basic and GDAL_HTTP_MAX_RETRY copies every collection through 429s', async () => {
  const q = async (sql: string) => Number((await server.services.pool.query(sql)).rows[0].n);
  const want: Record<string, number> = {
    districts: await q(`SELECT count(*) AS n FROM district_area t JOIN jurisdiction j ON j.id = t.jurisdiction_id WHERE t.kind = 'base' AND ${IN_FORCE}`),
    parcels: await q(`SELECT count(*) AS n FROM parcel t JOIN jurisdiction j ON j.id = t.jurisdiction_id WHERE t.geom IS NOT NULL AND ${IN_FORCE}`),
  };
  expect(want.parcels).toBeGreaterThan(10_000);
  const org = await createTestOrg(server, 1000);
  const file = join(work, 'copy.gpkg');
  const gdal = [
    '--config', 'GDAL_HTTP_AUTH', 'BASIC', '--config', 'GDAL_HTTP_USERPWD', `qgis-user:${org.apiKey}`,
    '--config', 'GDAL_HTTP_MAX_RETRY', '10', '--config', 'GDAL_HTTP_RETRY_DELAY', '1', '--debug', 'ON',
  ];
  const started = Date.now();
  const copy = await run('ogr2ogr', [...gdal, '-f', 'GPKG', file, `OAPIF:${server.url}/map/ogc`, 'districts', 'parcels'], { timeout: 120_000, maxBuffer: 64 * 1024 * 1024 });
  const seconds = (Date.now() - started) / 1000;
  // GDAL met the limit and retried
  const limited = copy.stderr.split('\n').filter((l) => /HTTP error code ?: ?429/.test(l));
  expect(limited.length).toBeGreaterThan(0);
  expect(limited.every((l) => /Retrying again in/.test(l))).toBe(true);
  expect(copy.stderr).not.toMatch(/ERROR \d/);
  for (const [name, n] of Object.entries(want)) {
    const { stdout } = await run('ogrinfo', ['-ro', '-q', file, '-sql', `SELECT count(*) AS n, count(DISTINCT id) AS ids FROM "${name}"`]);
    expect(stdout, name).toMatch(new RegExp(`n \\(Integer\\S*\\) = ${n}\\b[\\s\\S]*ids \\(Integer\\S*\\) = ${n}\\b`));
  }
  // the server counted those 429s, and charged none of them
  await server.services.meter.flush();
  const { rows } = await server.services.pool.query(`SELECT count(*) FILTER (WHERE status = 429)::int AS refused, sum(credits) FILTER (WHERE status = 429)::int AS charged FROM usage_event WHERE organization_id = $1`, [org.organizationId]);
  expect(rows[0].refused).toBe(limited.length);
  expect(rows[0].charged).toBe(0);
  console.log(`ogr2ogr through a limit of 2/s (burst 3): ${seconds.toFixed(1)} s, ${limited.length} answers 429 retried`);
}, 180_000);
