// Parcels and places on real Cambridge data: find, fetch, batch with per-parcel charges, and a
// district assignment that equals an independent PostGIS computation.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
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

describe('parcels', () => {
  test('find by key, then fetch with its polygon', async () => {
    const list = await call(server, 'GET', '/parcel?jurisdiction=cambridge-ma&parcel_key=127-123', { key });
    expect(list.status).toBe(200);
    expect(list.body.item).toHaveLength(1);
    const p = list.body.item[0];
    expect(p).toMatchObject({ parcel_key: '127-123', area: { unit: 'sq_ft' }, object: 'parcel' });
    expect(p.geometry).toBeUndefined();
    const one = await call(server, 'GET', `/parcel/${p.id}`, { key });
    expect(one.body.item.geometry.type).toBe('MultiPolygon');
    expect(one.body.item.area.value).toBe(p.area.value);
  });

  test('a parcel the map gives no area keeps its record; its area is withheld', async () => {
    const r = await call(server, 'GET', '/parcel?jurisdiction=cambridge-ma&parcel_key=238-80', { key });
    expect(r.body.item[0].area).toMatchObject({ value: null, status: 'withheld' });
  });

  test('bad bounding boxes are refused naming bbox', async () => {
    for (const bbox of ['1,2,3', '-200,42,-71,43', '-71,43,-72,42']) {
      const r = await call(server, 'GET', `/parcel?jurisdiction=cambridge-ma&bbox=${bbox}`, { key });
      expect(r.status, bbox).toBe(422);
      expect(r.body.detail.error.field).toBe('bbox');
    }
    const ok = await call(server, 'GET', '/parcel?jurisdiction=cambridge-ma&bbox=-71.1116,42.3627,-71.1110,42.3631&size=200', { key });
    expect(ok.body.item.map((x: { parcel_key: string }) => x.parcel_key)).toContain('127-123');
  });

  test('batch: every locator answered with its status; one credit per parcel, repeats free for a day', async () => {
    const before = await balance();
    const item = [
      { apn: '127-123', fips: '25017' },
      { lat: 42.3629, lon: -71.1113 },
      { apn: '999-999', fips: '25017' },
      { lat: 42.3629 },
      { parcel: 'prc_00000000000000000000' },
      { lat: 40.7, lon: -74.0 },
    ];
    const r = await call(server, 'POST', '/v1/parcel/batch', { key, body: { item } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ object: 'parcel_batch', matched: 2, unmatched: 3, invalid: 1, ambiguous: 0 });
    expect(r.body.item.map((i: { status: string }) => i.status)).toEqual(['matched', 'matched', 'unmatched', 'invalid', 'unmatched', 'unmatched']);
    expect(r.body.item[0].parcel.id).toBe(r.body.item[1].parcel.id);
    expect(await balance()).toBe(before - 1);
    const again = await call(server, 'POST', '/v1/parcel/batch', { key, body: { item: item.slice(0, 2) } });
    expect(again.body.matched).toBe(2);
    expect(await balance()).toBe(before - 1);
    const tooMany = await call(server, 'POST', '/v1/parcel/batch', { key, body: { item: Array.from({ length: 501 }, () => ({ apn: '1', fips: '25017' })) } });
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.code).toBe('parameter_invalid');
  });
});

describe('district assignment', () => {
  test("a parcel's districts and shares equal an independent PostGIS computation", async () => {
    const pool = server.services.pool;
    const { rows: sample } = await pool.query(`SELECT id FROM parcel WHERE geom IS NOT NULL ORDER BY md5(id) LIMIT 25`);
    for (const { id } of sample) {
      const r = await call(server, 'GET', `/place?parcel=${id}&include=assignment`, { key });
      expect(r.status).toBe(200);
      const got = r.body.item.assignment.filter((a: { district: { kind: string } }) => a.district.kind === 'base').map((a: { district: { code_raw: string }; share: number }) => [a.district.code_raw, a.share]);
      const { rows } = await pool.query(
        // a part narrower on average (2 × area / perimeter) than the 6 m drawing tolerance and half the parcel's width is a sliver, not a share
        `SELECT code_raw, share FROM (
           SELECT a.code_raw, round((ST_Area(ST_Union(ST_Intersection(a.geom, p.geom))::geography) / ST_Area(p.geom::geography))::numeric, 4)::float8 AS share,
                  bool_or(ST_Covers(a.geom, p.geom)) AS whole,
                  2 * ST_Area(ST_Union(ST_Intersection(a.geom, p.geom))::geography) / ST_Perimeter(ST_Union(ST_Intersection(a.geom, p.geom))::geography) AS width,
                  2 * ST_Area(p.geom::geography) / ST_Perimeter(p.geom::geography) AS parcel_width
             FROM parcel p JOIN district_area a ON a.kind = 'base' AND ST_Intersects(a.geom, p.geom)
            WHERE p.id = $1 GROUP BY a.code_raw, p.geom) x
          WHERE share >= 0.0002 AND (whole OR width >= 6 OR width >= parcel_width / 2)
          ORDER BY share DESC, code_raw`,
        [id],
      );
      // the same districts; shares equal to the geodesic computation within rounding
      expect(got.map((g: [string, number]) => g[0]), id).toEqual(rows.map((x) => x.code_raw));
      for (const [i, [, share]] of got.entries()) expect(Math.abs(share - rows[i].share), id).toBeLessThan(0.0005);
    }
  });
});
