// The CLI as an operator runs it: `landlex ingest … --json` and `landlex sample`, each twice
// against a database of the test's own; the second run changes nothing.
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { MANIFEST_DIR } from '../../activities/ingest.ts';
import { freshDatabase } from '../helpers/databases.ts';

let db: Awaited<ReturnType<typeof freshDatabase>>;
let dir: string;
const landlex = (...args: string[]) =>
  spawnSync('./bin/landlex.js', args, { env: { ...process.env, DATABASE_URL: db.url, BLOB_DIR: join(dir, 'blobs'), LOG_LEVEL: 'error' }, encoding: 'utf8', timeout: 400_000 });

beforeAll(async () => {
  db = await freshDatabase('cli_ingest');
  dir = await mkdtemp(join(tmpdir(), 'landlex-cli-'));
});
afterAll(async () => {
  await db.drop();
  await rm(dir, { recursive: true, force: true });
});

describe('landlex ingest --json', () => {
  test('prints counts a script can check; a second run finds nothing new', () => {
    const first = landlex('ingest', 'somerville-ma', '--json');
    expect(first.status).toBe(0);
    const a = JSON.parse(first.stdout);
    expect(a.totals).toMatchObject({ sources: 1, loaded: 1, failed: 0, new_versions: 1, new_events: 0, counts: { sections: 886 } });
    expect(a.totals.counts.permissions).toBeGreaterThan(2000);
    const second = JSON.parse(landlex('ingest', 'somerville-ma', '--json').stdout);
    expect(second.totals).toMatchObject({ sources: 1, unchanged: 1, new_versions: 0, new_events: 0 });
  });

  test('an unknown jurisdiction fails with its reason: one line, exit 2', () => {
    const r = landlex('ingest', 'atlantis-xx', '--json');
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^landlex ingest: no manifest for atlantis-xx in .*\n$/);
    expect(r.stdout).toBe('');
  });

  test('an invalid manifest: one line naming the file and the field, exit 2, no stack trace', async () => {
    const manifests = join(dir, 'manifests');
    await mkdir(manifests, { recursive: true });
    const m = JSON.parse(await readFile(join(MANIFEST_DIR, 'somerville-ma.json'), 'utf8'));
    m.sources[0].format = 'docx';
    await writeFile(join(manifests, 'somerville-ma.json'), JSON.stringify(m));
    const r = landlex('ingest', 'somerville-ma', '--manifests', manifests);
    expect(r.status).toBe(2);
    expect(r.stderr).toBe('landlex ingest: manifest somerville-ma.json: /sources/0/format must be one of markdown, html, pdf, text, csv, json, geojson, topojson, shapefile_zip, gpkg\n');
  });
});

describe('landlex sample', () => {
  test('ingests the real towns and both versions of the synthetic one, then prints a key and examples', () => {
    const r = landlex('sample');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/millbrook-ma\s+zoning-code\s+code_text\s+loaded/);
    expect(r.stdout).toMatch(/cambridge-ma\s+parcels-fy2014\s+parcel_layer\s+loaded/);
    expect(r.stdout).toMatch(/chicago-il\s+zoning-map\s+district_map\s+loaded/);
    expect(r.stdout).toMatch(/new events 5/);
    expect(r.stdout).toMatch(/API key: llk_\S+/);
    expect(r.stdout.match(/curl -s -H "X-API-Key: llk_/g)).toHaveLength(3);
    const again = landlex('sample');
    expect(again.status).toBe(0);
    expect(again.stdout).toMatch(/new versions 0; new events 0/);
  }, 480_000); // every shipped town twice, Chicago's 14,592 polygons among them
});
