// Extracts over HTTP on real Cambridge data: dry runs price without starting anything, a
// created extract is charged once (Idempotency-Key replays it), runs in-process to succeeded,
// and its file downloads with the caller's key only (Geobuf decoded with the geobuf package);
// bad filters are 422 and charge nothing.
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decode } from 'geobuf';
import Pbf from 'pbf4';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RunningServer } from '../../api/server.ts';
import { drainExtracts } from '../../workflows/extract-inprocess.ts';
import { ingestedDatabase } from '../helpers/pipeline.ts';
import { call, createTestOrg, startTestServer } from '../helpers/server.ts';

let db: { url: string; drop: () => Promise<void> };
let server: RunningServer;
let dir: string;
let key: string;
let org: string;
let other: string;

beforeAll(async () => {
  db = await ingestedDatabase('cambridge', ['cambridge-ma']);
  dir = await mkdtemp(join(tmpdir(), 'landlex-extracts-'));
  server = await startTestServer({ DATABASE_URL: db.url, EXTRACT_DIR: dir, RATE_LIMIT_PER_SECOND: '100000' });
  ({ apiKey: key, organizationId: org } = await createTestOrg(server, 1000));
  other = (await createTestOrg(server, 10)).apiKey;
}, 600_000);
afterAll(async () => {
  await drainExtracts();
  await server.close();
  await db.drop();
  await rm(dir, { recursive: true, force: true });
});

const balance = async () => {
  await server.services.meter.flush();
  return Number((await server.services.pool.query('SELECT balance FROM credit_account WHERE organization_id = $1', [org])).rows[0].balance);
};
const extractCount = async () => Number((await server.services.pool.query('SELECT count(*) AS n FROM extract')).rows[0].n);

async function settled(id: string, as = key) {
  for (let i = 0; i < 200; i++) {
    const r = await call(server, 'GET', `/extract/${id}`, { key: as });
    if (r.body.item.state === 'succeeded' || r.body.item.state === 'failed') return r.body.item;
    await new Promise((res) => setTimeout(res, 50));
  }
  throw new Error(`extract ${id} did not finish`);
}

const PARCELS = { resource: 'parcel', format: 'parquet', scope: { jurisdiction: ['cambridge-ma'] } };

describe('POST /extract', () => {
  test('dry_run returns the row estimate and the price, starts nothing and charges nothing', async () => {
    const before = await balance();
    const n = Number((await server.services.pool.query(`SELECT count(*) AS n FROM parcel WHERE known @> now() AND valid @> (now() AT TIME ZONE 'America/New_York')::date`)).rows[0].n);
    const r = await call(server, 'POST', '/extract?dry_run=true', { key, body: PARCELS });
    expect(r.status).toBe(200);
    expect(r.body.request.dry_run).toBe(true);
    expect(r.body.item).toMatchObject({ object: 'extract_estimate', resource: 'parcel', format: 'parquet', row_estimate: n, credit_estimate: Math.ceil(n / 1000) });
    expect(r.body.meta.cost_estimate).toBe(Math.ceil(n / 1000));
    expect(await extractCount()).toBe(0);
    expect(await balance()).toBe(before);
  });

  test('202 queued, charged once per Idempotency-Key, then succeeded with a downloadable file', async () => {
    const before = await balance();
    const headers = { 'Idempotency-Key': 'extract-parcels-1' };
    const r = await call(server, 'POST', '/extract', { key, body: PARCELS, headers });
    expect(r.status).toBe(202);
    const x = r.body.item;
    expect(x).toMatchObject({ object: 'extract', state: 'queued', resource: 'parcel', format: 'parquet', derived: false, file: [], href: `/extract/${x.id}` });
    expect(x.id).toMatch(/^ext_/);
    expect(Date.parse(x.expires_at)).toBeGreaterThan(Date.parse(x.created_at));
    expect(r.headers.get('location')).toBe(`/extract/${x.id}`);
    expect(await balance()).toBe(before - x.credit_estimate);

    const replay = await call(server, 'POST', '/extract', { key, body: PARCELS, headers });
    expect(replay.status).toBe(202);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.item.id).toBe(x.id);
    expect(await balance()).toBe(before - x.credit_estimate);
    const reused = await call(server, 'POST', '/extract', { key, body: { ...PARCELS, format: 'jsonl' }, headers });
    expect(reused.status).toBe(422);

    const done = await settled(x.id);
    expect(done).toMatchObject({ state: 'succeeded', row_count: x.row_estimate, refunded: false });
    expect(done.file).toEqual([{ name: 'parcel.parquet', format: 'parquet', media_type: 'application/vnd.apache.parquet', size: expect.any(Number), rows: x.row_estimate, sha256: expect.stringMatching(/^[0-9a-f]{64}$/), href: `/extract/${x.id}/file/parcel.parquet` }]);

    const f = done.file[0];
    const res = await fetch(server.url + f.href, { headers: { 'X-API-Key': key } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/vnd.apache.parquet');
    expect(res.headers.get('content-length')).toBe(String(f.size));
    expect(res.headers.get('etag')).toBe(`"${f.sha256}"`);
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(bytes.length).toBe(f.size);
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(f.sha256);
    expect(bytes.subarray(0, 4).toString()).toBe('PAR1');
    const cached = await fetch(server.url + f.href, { headers: { 'X-API-Key': key, 'If-None-Match': `"${f.sha256}"` } });
    expect(cached.status).toBe(304);

    // other organizations do not see it; no key, no file
    expect((await call(server, 'GET', `/extract/${x.id}`, { key: other })).status).toBe(404);
    expect((await call(server, 'GET', f.href, { key: other })).status).toBe(404);
    expect((await call(server, 'GET', f.href)).status).toBe(401);
    expect((await call(server, 'GET', `/extract/${x.id}/file/parcel.jsonl`, { key })).status).toBe(404);
  });

  test('GET /extract lists the caller’s extracts, newest first, by state, a page at a time', async () => {
    const r = await call(server, 'POST', '/extract', { key, body: { resource: 'district', format: 'jsonl', scope: { jurisdiction: 'cambridge-ma' }, field: ['code_normalized'] } });
    expect(r.status).toBe(202);
    await settled(r.body.item.id);
    const all = await call(server, 'GET', '/extract?size=1', { key });
    expect(all.status).toBe(200);
    expect(all.body.item.map((x: { id: string }) => x.id)).toEqual([r.body.item.id]);
    const next = await call(server, 'GET', `/extract?size=1&cursor=${all.body.page.next_cursor}`, { key });
    expect(next.body.item).toHaveLength(1);
    expect(next.body.item[0].resource).toBe('parcel');
    const failed = await call(server, 'GET', '/extract?state=failed', { key });
    expect(failed.body.item).toEqual([]);
    expect((await call(server, 'GET', '/extract', { key: other })).body.item).toEqual([]);
    expect((await call(server, 'GET', '/extract?state=done', { key })).status).toBe(422);
  });

  test('GeoJSONSeq, GeoPackage and FlatGeobuf: created, priced per row like the others, downloaded with their media types', async () => {
    const kinds = [
      ['geojsonseq', 'district_area.geojsons', 'application/geo+json-seq', Buffer.from([0x1e, 0x7b])],
      ['gpkg', 'district_area.gpkg', 'application/geopackage+sqlite3', Buffer.from('SQLite format 3\0')],
      ['flatgeobuf', 'district_area.fgb', 'application/vnd.flatgeobuf', Buffer.from([0x66, 0x67, 0x62, 0x03])],
    ] as const;
    const body = { resource: 'district_area', scope: { jurisdiction: ['cambridge-ma'] } };
    const jsonl = (await call(server, 'POST', '/extract?dry_run=true', { key, body: { ...body, format: 'jsonl' } })).body.item;
    for (const [format, name, media, magic] of kinds) {
      const dry = (await call(server, 'POST', '/extract?dry_run=true', { key, body: { ...body, format } })).body.item;
      expect(dry, format).toMatchObject({ format, row_estimate: jsonl.row_estimate, credit_estimate: jsonl.credit_estimate, left_out: null });
      const before = await balance();
      const r = await call(server, 'POST', '/extract', { key, body: { ...body, format } });
      expect(r.status, format).toBe(202);
      expect(await balance()).toBe(before - r.body.item.credit_estimate);
      const done = await settled(r.body.item.id);
      expect(done, format).toMatchObject({ state: 'succeeded', format, row_count: jsonl.row_estimate });
      expect(done.file, format).toEqual([expect.objectContaining({ name, format, media_type: media, rows: jsonl.row_estimate })]);
      const res = await fetch(server.url + done.file[0].href, { headers: { 'X-API-Key': key } });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type'), format).toBe(media);
      const bytes = Buffer.from(await res.arrayBuffer());
      expect(createHash('sha256').update(bytes).digest('hex')).toBe(done.file[0].sha256);
      expect(bytes.subarray(0, magic.length).equals(magic), format).toBe(true);
    }

    // FlatGeobuf holds features with a geometry: a parcel without a polygon is left out, counted and not charged
    const pool = server.services.pool;
    const t = `known @> now() AND valid @> (now() AT TIME ZONE 'America/New_York')::date`;
    const located = Number((await pool.query(`SELECT count(*) AS n FROM parcel WHERE ${t} AND geom IS NOT NULL`)).rows[0].n);
    const unlocated = Number((await pool.query(`SELECT count(*) AS n FROM parcel WHERE ${t} AND geom IS NULL`)).rows[0].n);
    expect(unlocated).toBeGreaterThan(0);
    const fgb = (await call(server, 'POST', '/extract?dry_run=true', { key, body: { ...PARCELS, format: 'flatgeobuf' } })).body.item;
    expect(fgb).toMatchObject({ row_estimate: located, credit_estimate: Math.ceil(located / 1000), left_out: { rows: unlocated } });

    const doc = (await call(server, 'GET', '/openapi.json')).body;
    const post = doc.paths['/extract'].post;
    expect(post.requestBody.content['application/json'].schema.properties.format.enum).toEqual(['jsonl', 'parquet', 'geojsonseq', 'gpkg', 'flatgeobuf', 'geobuf']);
    const file = doc.paths['/extract/{extract}/file/{name}'].get.responses['200'].content;
    for (const media of [...kinds.map((k) => k[2]), 'application/vnd.geobuf']) expect(Object.keys(file)).toContain(media);
  });

  test('Geobuf: priced like the others, downloaded as application/vnd.geobuf, one feature per row', async () => {
    const body = { resource: 'district_area', scope: { jurisdiction: ['cambridge-ma'] }, field: ['code_raw', 'geometry'] };
    const jsonl = (await call(server, 'POST', '/extract?dry_run=true', { key, body: { ...body, format: 'jsonl' } })).body.item;
    const dry = await call(server, 'POST', '/extract?dry_run=true', { key, body: { ...body, format: 'geobuf' } });
    expect(dry.status).toBe(200);
    expect(dry.body.item).toMatchObject({ format: 'geobuf', row_estimate: jsonl.row_estimate, credit_estimate: jsonl.credit_estimate, left_out: null });
    const before = await balance();
    const r = await call(server, 'POST', '/extract', { key, body: { ...body, format: 'geobuf' } });
    expect(r.status).toBe(202);
    expect(await balance()).toBe(before - jsonl.credit_estimate);
    const done = await settled(r.body.item.id);
    expect(done).toMatchObject({ state: 'succeeded', format: 'geobuf', row_count: jsonl.row_estimate });
    expect(done.file).toEqual([expect.objectContaining({ name: 'district_area.pbf', format: 'geobuf', media_type: 'application/vnd.geobuf', rows: jsonl.row_estimate })]);
    const res = await fetch(server.url + done.file[0].href, { headers: { 'X-API-Key': key } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/vnd.geobuf');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="${done.id}-district_area.pbf"`);
    const fc = decode(new Pbf(new Uint8Array(await res.arrayBuffer()))) as { type: string; features: Array<{ properties: object }> };
    expect(fc.type).toBe('FeatureCollection');
    expect(fc.features).toHaveLength(jsonl.row_estimate);
    expect(Object.keys(fc.features[0].properties).sort()).toEqual(['code_raw', 'effective_from']);
  });

  test('bad requests: 422 naming the field, nothing created, nothing charged', async () => {
    const before = await balance();
    const n = await extractCount();
    const cases: Array<[unknown, string, string]> = [
      [{ ...PARCELS, filter: { owner: { eq: 'x' } } }, 'field_unknown', 'filter.owner'],
      [{ ...PARCELS, filter: { area_sq_ft: { gte: 'large' } } }, 'parameter_invalid', 'filter.area_sq_ft.gte'],
      [{ ...PARCELS, format: 'flatgeobuf', resource: 'permission' }, 'parameter_invalid', 'format'],
      [{ ...PARCELS, field: ['owner'] }, 'field_unknown', 'field'],
      [{ ...PARCELS, resource: 'deed' }, 'vocabulary_value_unknown', 'resource'],
      [{ ...PARCELS, format: 'csv' }, 'vocabulary_value_unknown', 'format'],
      [{ ...PARCELS, scope: {} }, 'parameter_invalid', 'scope'],
      [{ ...PARCELS, scope: { jurisdiction: ['atlantis'] } }, 'parameter_invalid', 'scope.jurisdiction'],
      [{ ...PARCELS, as_of: 'yesterday' }, 'parameter_invalid', 'as_of'],
    ];
    for (const [body, code, field] of cases) {
      const r = await call(server, 'POST', '/extract', { key, body });
      expect(r.status, JSON.stringify(body)).toBe(422);
      expect(r.body.detail.error, JSON.stringify(body)).toMatchObject({ code, field });
      const dry = await call(server, 'POST', '/extract?dry_run=true', { key, body });
      expect(dry.status).toBe(422);
    }
    expect(await extractCount()).toBe(n);
    expect(await balance()).toBe(before);
    expect((await call(server, 'GET', '/extract/ext_nope', { key })).body.detail.error.code).toBe('id_malformed');
  });

  test('a balance that cannot cover the estimate is 402: nothing created, nothing charged', async () => {
    const poor = await createTestOrg(server, 2);
    const n = await extractCount();
    const r = await call(server, 'POST', '/extract', { key: poor.apiKey, body: PARCELS });
    expect(r.status).toBe(402);
    expect(r.body.detail.error.code).toBe('quota_exhausted');
    expect(await extractCount()).toBe(n);
  });
});
