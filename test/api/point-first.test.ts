// A point's own district first (issue 14): 150 points drawn across Cambridge and Chicago (streets
// and water included), the base district containing each worked out by PostGIS here, and the first
// base district of /v1/zoning and /rule must be it, for every point. A point in a right-of-way
// polygon is answered at the point; a parcel split by a district line lists each share.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RunningServer } from '../../api/server.ts';
import { ingestedDatabase } from '../helpers/pipeline.ts';
import { createPool, type Pool } from '../../store/db.ts';
import { call, createTestOrg, startTestServer } from '../helpers/server.ts';

interface Town {
  server: RunningServer;
  /** the test's own working out, without the service's statement time limit */
  pool: Pool;
  key: string;
  drop: () => Promise<void>;
}
interface Point {
  lat: number;
  lon: number;
  district: string;
}

const towns: Record<string, Town> = {};
const get = (t: Town, path: string) => call(t.server, 'GET', path, { key: t.key });
const zon = (districtId: string) => `zon_${districtId.slice(4)}`;

async function open(label: string, slug: string): Promise<Town> {
  const db = await ingestedDatabase(label, [slug]);
  const server = await startTestServer({ DATABASE_URL: db.url, RATE_LIMIT_PER_SECOND: '100000' });
  return { server, pool: createPool(db.url), key: (await createTestOrg(server, 100_000)).apiKey, drop: db.drop };
}

/**
 * `n` points spread over the town's base-district map (a fixed seed), each with the one base
 * district whose current polygon covers it; points on a line between two districts are skipped.
 */
async function sample(t: Town, n: number, seed: number): Promise<Point[]> {
  const { rows } = await t.pool.query(
    `WITH extent AS (SELECT ST_Union(ST_Envelope(geom)) AS g FROM district_area WHERE kind = 'base' AND upper_inf(known) AND upper_inf(valid)),
          pts AS (SELECT (ST_Dump(ST_GeneratePoints(g, $1 * 3, $2))).geom AS p FROM extent)
     SELECT ST_Y(p) AS lat, ST_X(p) AS lon, min(a.district_id) AS district
       FROM pts JOIN district_area a ON a.kind = 'base' AND upper_inf(a.known) AND upper_inf(a.valid) AND ST_Covers(a.geom, p)
      GROUP BY p HAVING count(DISTINCT a.district_id) = 1 ORDER BY ST_X(p), ST_Y(p) LIMIT $1`,
    [n, seed],
  );
  return rows;
}

beforeAll(async () => {
  towns.cambridge = await open('cambridge', 'cambridge-ma');
  towns.chicago = await open('chicago', 'chicago-il');
}, 600_000);
afterAll(async () => {
  for (const t of Object.values(towns)) {
    await t.server.close();
    await t.pool.end();
    await t.drop();
  }
});

describe('the district containing the point comes first', () => {
  for (const [town, n] of [
    ['cambridge', 100],
    ['chicago', 50],
  ] as const) {
    test(`${n} points in ${town}: /v1/zoning and /rule answer the containing base district first`, async () => {
      const t = towns[town];
      const points = await sample(t, n, 14);
      expect(points.length).toBe(n);
      const wrong: string[] = [];
      for (const p of points) {
        const z = await get(t, `/v1/zoning?lat=${p.lat}&lon=${p.lon}`);
        const r = await get(t, `/rule?point=${p.lat},${p.lon}`);
        expect(z.status).toBe(200);
        expect(r.status).toBe(200);
        const firstBase = z.body.data.find((d: { kind: string }) => d.kind === 'base');
        if (firstBase.id !== zon(p.district) || firstBase.contains_point !== true) wrong.push(`/v1/zoning ${p.lat},${p.lon}: ${firstBase.code}`);
        const share = r.body.item.share[0];
        if (share.district.id !== p.district || share.contains_point !== true) wrong.push(`/rule ${p.lat},${p.lon}: ${share.district.code}`);
        // no point turns into dozens of districts
        expect(r.body.item.share.length).toBeLessThanOrEqual(5);
      }
      expect(wrong).toEqual([]);
    }, 240_000);
  }
});

describe('right-of-way and split parcels', () => {
  test('a point in a street polygon keyed without a parcel number is answered at the point', async () => {
    const t = towns.cambridge;
    const { rows } = await t.pool.query(
      `SELECT ST_Y(p) AS lat, ST_X(p) AS lon, p.parcel_key FROM (
         SELECT ST_PointOnSurface(geom) AS p, parcel_key FROM parcel WHERE attributes->>'key_status' = 'not_a_parcel_id' AND upper_inf(known) ORDER BY area_m2 DESC NULLS LAST LIMIT 1) p`,
    );
    const [pt] = rows;
    const r = await get(t, `/rule?point=${pt.lat},${pt.lon}`);
    expect(r.status).toBe(200);
    expect(r.body.resolution).toMatchObject({ grain: 'point', parcel: null });
    expect(r.body.resolution.detail).toContain(JSON.stringify(pt.parcel_key.split('#')[0]));
    expect(r.body.item.share).toHaveLength(1);
    expect(r.body.item.share[0]).toMatchObject({ contains_point: true });
  });

  test('a parcel split by a district line lists each share, the point’s own first, then the largest', async () => {
    const t = towns.cambridge;
    // a parcel two base districts each cover a fair part of, and a point inside its smaller part
    const { rows } = await t.pool.query(
      `WITH split AS (
         SELECT p.id, p.geom, a.district_id, ST_Area(ST_Intersection(p.geom, a.geom)) / ST_Area(p.geom) AS f
           FROM parcel p JOIN district_area a ON a.kind = 'base' AND upper_inf(a.known) AND ST_Intersects(a.geom, p.geom)
          WHERE upper_inf(p.known) AND p.area_m2 BETWEEN 500 AND 20000 AND NOT p.subdivided AND p.attributes->>'key_status' IS NULL),
       two AS (SELECT id FROM split GROUP BY id HAVING count(*) = 2 AND min(f) BETWEEN 0.2 AND 0.45 ORDER BY id LIMIT 1)
       SELECT s.id, s.district_id, s.f, ST_Y(ST_PointOnSurface(ST_Intersection(s.geom, a.geom))) AS lat, ST_X(ST_PointOnSurface(ST_Intersection(s.geom, a.geom))) AS lon
         FROM split s JOIN two USING (id) JOIN district_area a ON a.district_id = s.district_id AND a.kind = 'base' AND upper_inf(a.known) AND ST_Intersects(a.geom, s.geom)
        ORDER BY s.f`,
    );
    expect(rows.length).toBeGreaterThanOrEqual(2);
    const small = rows[0];
    const r = await get(t, `/rule?point=${small.lat},${small.lon}`);
    expect(r.body.resolution).toMatchObject({ grain: 'parcel', parcel: small.id });
    const share = r.body.item.share as Array<{ district: { id: string }; share: number; contains_point: boolean }>;
    expect(share.map((s) => s.district.id)).toEqual([small.district_id, rows[rows.length - 1].district_id]);
    expect(share[0]).toMatchObject({ contains_point: true });
    expect(share[0].share).toBeCloseTo(small.f, 3);
    expect(share[1].contains_point).toBe(false);
    const z = await get(t, `/v1/zoning?lat=${small.lat}&lon=${small.lon}`);
    expect(z.body.data.filter((d: { kind: string }) => d.kind === 'base').map((d: { id: string; share: number }) => [d.id, d.share > 0])).toEqual([
      [zon(small.district_id), true],
      [zon(rows[rows.length - 1].district_id), true],
    ]);
  });

  test('a strip where the zoning map and the parcel layer are drawn apart is a sliver, listed apart, not a district of the parcel', async () => {
    const t = towns.cambridge;
    // the numbered parcel that the most base districts touch
    const { rows } = await t.pool.query(
      `SELECT p.id, ST_Y(ST_PointOnSurface(p.geom)) AS lat, ST_X(ST_PointOnSurface(p.geom)) AS lon, count(DISTINCT a.district_id)::int AS n
         FROM parcel p JOIN district_area a ON a.kind = 'base' AND upper_inf(a.known) AND ST_Intersects(a.geom, p.geom)
        WHERE upper_inf(p.known) AND p.attributes->>'key_status' IS NULL GROUP BY p.id, p.geom ORDER BY n DESC, p.id LIMIT 1`,
    );
    const [most] = rows;
    expect(most.n).toBeGreaterThan(3);
    const r = await get(t, `/rule?parcel=${most.id}`);
    expect(r.status).toBe(200);
    const share = r.body.item.share as Array<{ district: { id: string } }>;
    const sliver = r.body.item.sliver as Array<{ district: { id: string }; width_m: number; share: number }>;
    expect(sliver.length).toBeGreaterThan(0);
    expect(share.length + sliver.length).toBe(most.n);
    for (const s of sliver) {
      expect(s.width_m).toBeLessThan(6);
      expect(share.map((x) => x.district.id)).not.toContain(s.district.id);
    }
  });
});
