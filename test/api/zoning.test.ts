// /v1/zoning on real Cambridge data: at a place (base first, then overlays), a legend, one
// classification, GeoJSON forms, per-place charges, 501 where no zoning is held.
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { RunningServer } from '../../api/server.ts';
import { ingestedDatabase } from '../helpers/pipeline.ts';
import { call, createTestOrg, startTestServer } from '../helpers/server.ts';

let db: { url: string; drop: () => Promise<void> };
let server: RunningServer;
let key: string;
let org: string;

beforeAll(async () => {
  db = await ingestedDatabase('cambridge', ['cambridge-ma']);
  server = await startTestServer({ DATABASE_URL: db.url, RATE_LIMIT_PER_SECOND: '100000' });
  const o = await createTestOrg(server, 1000);
  key = o.apiKey;
  org = o.organizationId;
}, 120_000);
afterAll(async () => {
  await server.close();
  await db.drop();
});

const balance = async () => {
  await server.services.meter.flush();
  return (await server.services.pool.query('SELECT balance FROM credit_account WHERE organization_id = $1', [org])).rows[0].balance as number;
};

test('at a place: the base classification first, then overlays; one credit per place, free again for a day', async () => {
  const before = await balance();
  const r = await call(server, 'GET', '/v1/zoning?lat=42.3629&lon=-71.1113', { key });
  expect(r.status).toBe(200);
  expect(r.body).toMatchObject({ object: 'list', has_more: false });
  expect(r.body.data[0]).toMatchObject({ object: 'zoning', code: 'BA-3', kind: 'base', id: expect.stringMatching(/^zon_/), legal_status: 'adopted' });
  expect(r.body.data[0].allowances).toBeUndefined();
  await call(server, 'GET', '/v1/zoning?lat=42.3629&lon=-71.1113', { key });
  expect(await balance()).toBe(before - 1);
  const kinds = (await call(server, 'GET', '/v1/zoning?lat=42.3600&lon=-71.0870', { key })).body.data.map((z: { kind: string }) => z.kind);
  expect(kinds).toEqual([...kinds].sort((a, b) => (a === b ? 0 : a === 'base' ? -1 : 1)));
});

test('a legend of the jurisdiction; one classification by id, as JSON and as a GeoJSON Feature', async () => {
  const legend = await call(server, 'GET', '/v1/zoning?jurisdiction=cambridge-ma&kind=base', { key });
  expect(legend.body.data.map((z: { code: string }) => z.code)).toContain('C-1');
  const id = legend.body.data.find((z: { code: string }) => z.code === 'C-1').id;
  const one = await call(server, 'GET', `/v1/zoning/${id}?include=geometry`, { key });
  expect(one.body).toMatchObject({ object: 'zoning', id, code: 'C-1', unlisted_uses: null });
  expect(one.body.geometry.type).toBe('MultiPolygon');
  expect(one.body.mapped_area_m2).toBeGreaterThan(0);
  const res = await fetch(`${server.url}/v1/zoning/${id}`, { headers: { 'X-API-Key': key, Accept: 'application/geo+json' } });
  expect(res.headers.get('content-type')).toMatch(/application\/geo\+json/);
  expect((await res.json()).type).toBe('Feature');
  const fc = await call(server, 'GET', '/v1/zoning?jurisdiction=cambridge-ma&format=geojson', { key });
  expect(fc.body.type).toBe('FeatureCollection');
  expect((await call(server, 'GET', '/v1/zoning/zon_00000000000000000000', { key })).status).toBe(404);
});

test('refusals: no zoning held is 501; result without use; lat without lon', async () => {
  const none = await call(server, 'GET', '/v1/zoning?jurisdiction=massachusetts', { key });
  expect(none.status).toBe(501);
  expect(none.body.code).toBe('not_available');
  expect((await call(server, 'GET', '/v1/zoning?jurisdiction=cambridge-ma&result=permitted', { key })).body.errors[0].field).toBe('result');
  expect((await call(server, 'GET', '/v1/zoning?lat=42.36', { key })).body.errors[0].field).toBe('lon');
});

test('every answer carries the coverage of the layers it is read from, as the store holds them (rule 1.2.4)', async () => {
  const rows = (await server.services.pool.query(`SELECT c.layer, c.held, c.tier FROM coverage c JOIN jurisdiction j ON j.id = c.jurisdiction_id WHERE j.slug = 'cambridge-ma'`)).rows;
  const held = (layer: string) => rows.find((r) => r.layer === layer);
  const expectLayers = (coverage: { layer: Record<string, { held: boolean; tier: string }> }) => {
    for (const layer of ['zoning_text', 'district_list', 'district_map', 'overlay']) {
      const r = held(layer);
      expect(coverage.layer[layer], layer).toMatchObject(r ? { held: r.held, tier: r.tier } : { held: false, tier: 'none' });
    }
  };
  const list = await call(server, 'GET', '/v1/zoning?lat=42.3629&lon=-71.1113', { key });
  expect(list.body.coverage.jurisdiction).toBe(list.body.data[0].jurisdiction.id);
  expectLayers(list.body.coverage);
  expect(list.body.coverage.layer.district_map.held).toBe(true); // Cambridge's map is held
  expect(list.body.coverage.layer.zoning_text).toMatchObject({ held: false }); // its text is not
  const one = await call(server, 'GET', `/v1/zoning/${list.body.data[0].id}`, { key });
  expectLayers(one.body.coverage);
  const legend = await call(server, 'GET', '/v1/zoning?jurisdiction=cambridge-ma', { key });
  expectLayers(legend.body.coverage);
});
