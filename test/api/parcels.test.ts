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

describe('batch: jurisdiction and fips narrow every locator; ambiguous entries rank their candidates', () => {
  const POINT = { lat: 42.3629, lon: -71.1113 };
  const batch = async (item: Array<Record<string, unknown>>) => {
    const r = await call(server, 'POST', '/v1/parcel/batch', { key, body: { item } });
    expect(r.status).toBe(200);
    return r.body.item as Array<{ status: string; detail?: string; parcel?: { id: string; parcel_key: string }; match?: { precision: string }; candidate?: Array<{ parcel: string; parcel_key: string; score: number; basis: string }> }>;
  };
  const uniqueAddress = async () =>
    (await server.services.pool.query(`SELECT normalized FROM address_point WHERE parcel_id IS NOT NULL GROUP BY normalized HAVING count(DISTINCT parcel_id) = 1 ORDER BY normalized LIMIT 1`)).rows[0].normalized as string;

  test('a point or an address outside the county or state named is unmatched, saying so; inside, matched', async () => {
    const address = await uniqueAddress();
    const before = await balance();
    const r = await batch([
      { ...POINT, fips: '25025' },
      { address, fips: '25025' },
      { ...POINT, fips: '25' },
      { ...POINT, jurisdiction: 'middlesex-county-ma' },
      { address, jurisdiction: 'massachusetts' },
      { ...POINT, fips: '2501' },
    ]);
    // before, fips and jurisdiction were read only with apn: the first two matched
    expect(r.map((i) => i.status)).toEqual(['unmatched', 'unmatched', 'matched', 'matched', 'matched', 'invalid']);
    expect(r[0].detail).toMatch(/lies in Cambridge, outside county 25025/);
    expect(r[1].detail).toMatch(/held in Cambridge, outside county 25025/);
    expect(r[5].detail).toMatch(/not a Census GEOID/);
    // unmatched entries cost nothing; the two parcels matched cost one each (unless fetched within the day)
    const charged = new Set(r.flatMap((i) => (i.parcel ? [i.parcel.id] : [])));
    expect(before - (await balance())).toBeLessThanOrEqual(charged.size);
  });

  test('apn with a state GEOID searches the state’s held counties; a jurisdiction narrows it the same way', async () => {
    const r = await batch([
      { apn: '127-123', fips: '25' },
      { apn: '127-123', jurisdiction: 'massachusetts' },
      { apn: '127-123', fips: '17' },
    ]);
    // before: a 2-digit fips was refused (invalid), and the state jurisdiction gave one
    expect(r.map((i) => i.status)).toEqual(['matched', 'matched', 'unmatched']);
    expect(r[0].parcel!.parcel_key).toBe('127-123');
    expect(r[2].detail).toMatch(/No jurisdiction held lies in state 17/);
  });

  test('several parcels fit an APN written otherwise: best first, and the detail says why it ranks first', async () => {
    // parcel keys that read the same once separators are dropped, computed here
    const { rows } = await server.services.pool.query(
      `SELECT regexp_replace(parcel_key, '[^0-9A-Z]', '', 'g') AS plain, array_agg(DISTINCT parcel_key ORDER BY parcel_key) AS keys
         FROM parcel WHERE parcel_key ~ '^[0-9]+-[0-9]+$' GROUP BY 1 HAVING count(DISTINCT parcel_key) = 2 ORDER BY 1 LIMIT 1`,
    );
    const [a, b] = rows[0].keys as string[];
    const before = await balance();
    // "26 29" has the parts of 26-29 with a space: that one ranks first
    const spaced = a.replace('-', ' ');
    const r = await batch([{ apn: spaced, fips: '25017' }, { apn: b.replace('-', ' '), fips: '25' }, { apn: rows[0].plain, fips: '25017' }]);
    expect(r.map((i) => i.status)).toEqual(['ambiguous', 'ambiguous', 'ambiguous']);
    expect(r[0].candidate!.map((c) => c.parcel_key)).toEqual([a, b]);
    expect(r[1].candidate!.map((c) => c.parcel_key)).toEqual([b, a]);
    expect(r[0].candidate![0].basis).toMatch(/has the parts asked/);
    expect(r[0].candidate![1].basis).toMatch(/has the characters asked, split otherwise/);
    expect(r[0].detail).toContain(`${a} (Cambridge) ranks first`);
    // no separators at all: both only share the characters, ranked by similarity, best first
    const scores = r[2].candidate!.map((c) => c.score);
    expect(scores).toEqual([...scores].sort((x, y) => y - x));
    expect(await balance()).toBe(before);
    // the key as published is matched outright, however many other keys fold alike
    const exact = await batch([{ apn: a, fips: '25017' }]);
    expect(exact[0]).toMatchObject({ status: 'matched', parcel: { parcel_key: a }, match: { precision: 'exact' } });
  });

  test('an address several parcels carry: the candidates tie, listed by parcel key, and the detail says so', async () => {
    const { rows } = await server.services.pool.query(
      `SELECT a.normalized, array_agg(DISTINCT p.parcel_key ORDER BY p.parcel_key) AS keys FROM address_point a JOIN parcel p ON p.id = a.parcel_id
        GROUP BY a.normalized HAVING count(DISTINCT a.parcel_id) > 1 ORDER BY a.normalized LIMIT 1`,
    );
    const [r] = await batch([{ address: rows[0].normalized }]);
    expect(r.status).toBe('ambiguous');
    expect(r.candidate!.map((c) => c.parcel_key)).toEqual(rows[0].keys);
    expect(r.detail).toMatch(/all \d+ tie \(its address, normalized, is the address asked\) and are listed by parcel key/);
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
