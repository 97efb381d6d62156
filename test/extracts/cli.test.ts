// `landlex extract` runs the same extract from the command line: a file in --out, its summary on
// stdout, and exit code 2 with the field named for a bad request.
import { spawnSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decode } from 'geobuf';
import Pbf from 'pbf4';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { sha256Hex } from '../../core/ids.ts';
import { createPool } from '../../store/db.ts';
import { ingestedDatabase } from '../helpers/pipeline.ts';

let db: { url: string; drop: () => Promise<void> };
let out: string;

beforeAll(async () => {
  db = await ingestedDatabase('cambridge', ['cambridge-ma']);
  out = await mkdtemp(join(tmpdir(), 'landlex-cli-extract-'));
}, 600_000);
afterAll(async () => {
  await db.drop();
  await rm(out, { recursive: true, force: true });
});

const landlex = (...args: string[]) => spawnSync('./bin/landlex.js', args, { env: { ...process.env, DATABASE_URL: db.url, LOG_LEVEL: 'error' }, encoding: 'utf8' });

test('landlex extract writes the file to --out and reports rows and sha256', async () => {
  const r = landlex('extract', 'district_area', '--jurisdiction', 'cambridge-ma', '--format', 'parquet', '--field', 'code_raw,kind', '--out', out, '--json');
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  const summary = JSON.parse(r.stdout);
  const pool = createPool(db.url, { max: 1 });
  const n = Number((await pool.query(`SELECT count(*) AS n FROM district_area WHERE known @> now() AND valid @> (now() AT TIME ZONE 'America/New_York')::date`)).rows[0].n);
  const row = (await pool.query('SELECT state, organization_id, credits_charged FROM extract WHERE id = $1', [summary.extract])).rows[0];
  await pool.end();
  expect(summary).toMatchObject({ state: 'succeeded', rows: n, files: [{ name: 'district_area.parquet', rows: n }] });
  expect(row).toEqual({ state: 'succeeded', organization_id: null, credits_charged: 0 });
  expect(await readdir(out)).toEqual(['district_area.parquet']);
  expect(sha256Hex(await readFile(join(out, 'district_area.parquet')))).toBe(summary.files[0].sha256);
});

test('landlex extract --format gpkg writes a GeoPackage ogrinfo opens with every row', async () => {
  const dir = join(out, 'gpkg');
  const r = landlex('extract', 'parcel', '--jurisdiction', 'cambridge-ma', '--format', 'gpkg', '--field', 'parcel_key,area_sq_ft,geometry', '--out', dir, '--json');
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  const summary = JSON.parse(r.stdout);
  expect(summary).toMatchObject({ state: 'succeeded', files: [{ name: 'parcel.gpkg', media_type: 'application/geopackage+sqlite3', rows: summary.rows }] });
  expect(summary.rows).toBeGreaterThan(13_000);
  const info = spawnSync('ogrinfo', ['-ro', '-so', '-al', join(dir, 'parcel.gpkg')], { encoding: 'utf8' });
  expect(info.status).toBe(0);
  expect(info.stdout).toContain(`Feature Count: ${summary.rows}\n`);
  expect(info.stdout).toMatch(/^area_sq_ft: Real/m);
});

test('landlex extract --format geobuf writes a .pbf the geobuf package decodes, one feature per row', async () => {
  const dir = join(out, 'geobuf');
  const r = landlex('extract', 'parcel', '--jurisdiction', 'cambridge-ma', '--format', 'geobuf', '--field', 'parcel_key,geometry', '--out', dir, '--json');
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  const summary = JSON.parse(r.stdout);
  expect(summary).toMatchObject({ state: 'succeeded', files: [{ name: 'parcel.pbf', format: 'geobuf', media_type: 'application/vnd.geobuf', rows: summary.rows }] });
  expect(summary.rows).toBeGreaterThan(13_000);
  const fc = decode(new Pbf(new Uint8Array(await readFile(join(dir, 'parcel.pbf'))))) as { type: string; features: Array<{ properties: object }> };
  expect(fc.features).toHaveLength(summary.rows);
  expect(fc.features[0]).toMatchObject({ type: 'Feature', id: expect.stringMatching(/^prc_/), properties: { parcel_key: expect.any(String) } });
});

test('a bad request exits 2 naming the field', () => {
  const r = landlex('extract', 'parcel', '--jurisdiction', 'cambridge-ma', '--format', 'jsonl', '--filter', '{"owner": {"eq": "x"}}');
  expect(r.status).toBe(2);
  expect(r.stderr).toMatch(/^filter\.owner: "owner" is not a field/);
  const bad = landlex('extract', 'parcel', '--jurisdiction', 'cambridge-ma', '--format', 'csv');
  expect(bad.status).toBe(2);
  expect(bad.stderr).toMatch(/^format: "csv" is not one of: jsonl, parquet, geojsonseq, gpkg, flatgeobuf, geobuf/);
});
