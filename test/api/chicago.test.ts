// Chicago as a whole real city (issue 13, part 7): its citywide map and Chapter 17-2 loaded
// through the pipeline from the shipped manifest, then /rule at real points. The test points are
// taken from the map (a point inside the largest RS-3 polygon, and inside a planned development);
// what the answer must say is read from Chapter 17-2 by hand (test/fixtures/ordinance-gold).
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RunningServer } from '../../api/server.ts';
import { ingestedDatabase } from '../helpers/pipeline.ts';
import { call, createTestOrg, startTestServer } from '../helpers/server.ts';

let db: { url: string; drop: () => Promise<void> };
let server: RunningServer;
let key: string;
const points: Record<string, string> = {};
const get = (path: string) => call(server, 'GET', path, { key });

beforeAll(async () => {
  db = await ingestedDatabase('chicago', ['chicago-il']);
  server = await startTestServer({ DATABASE_URL: db.url, RATE_LIMIT_PER_SECOND: '100000' });
  key = (await createTestOrg(server, 100_000)).apiKey;
  // a point well inside a district's largest polygon: lat,lon
  for (const code of ['RS-3', 'PD 991']) {
    const { rows } = await server.services.pool.query(
      `SELECT ST_Y(p) AS lat, ST_X(p) AS lon FROM (
         SELECT ST_PointOnSurface(geom) AS p FROM district_area WHERE code_raw = $1 AND upper_inf(known) ORDER BY ST_Area(geom) DESC LIMIT 1) x`,
      [code],
    );
    points[code] = `${rows[0].lat},${rows[0].lon}`;
  }
}, 600_000);
afterAll(async () => {
  await server?.close();
  await db?.drop();
});

describe('/rule in Chicago', () => {
  test('at an RS-3 point: the district containing the point first, with 17-2 permissions and controls quoted verbatim', async () => {
    const r = await get(`/rule?point=${points['RS-3']}`);
    expect(r.status).toBe(200);
    const share = r.body.item.share;
    expect(share[0].district.code.replace(/[\s-]/g, '')).toBe('RS3');
    const permission = share[0].permission as Array<{ use: { label_raw: string; slug: string | null }; level: string; symbol: string; citation: { id: string; quote: string } }>;
    const control = share[0].control as Array<{ control_type: string; value: { min: number | null; max: number | null; unit: string | null }; citation: { id: string; quote: string } }>;
    // Table 17-2-0207, row 1: Detached House is P (permitted by right) in RS 3
    const detached = permission.find((p) => p.use.label_raw === 'Detached House');
    expect(detached).toMatchObject({ level: 'by_right', symbol: 'P', use: { slug: 'residential.dwelling.single_family' } });
    // a '-' cell is a prohibition with its citation: Multi-Unit (3+ units) Residential in RS 3
    const multi = permission.find((p) => p.use.label_raw === 'Multi-Unit (3+ units) Residential');
    expect(multi).toMatchObject({ level: 'prohibited', symbol: '-' });
    // 17-2-0301-A: RS3's minimum lot area is 2,500 square feet; 17-2-0304-A: its FAR is 0.90
    expect(control.find((c) => c.control_type === 'dimensional.lot_area')?.value).toEqual({ min: 2500, max: null, unit: 'sq_ft' });
    expect(control.find((c) => c.control_type === 'dimensional.far')?.value).toMatchObject({ max: 0.9 });
    // every quote is found verbatim in the retained version of Chapter 17-2
    for (const f of [...permission, ...control]) {
      const src = await fetch(`${server.url}/citation/${f.citation.id}/source?format=text`, { headers: { 'X-API-Key': key } });
      const text = await src.text();
      expect(text.slice(Number(src.headers.get('x-passage-start')), Number(src.headers.get('x-passage-end')))).toBe(f.citation.quote);
    }
    // Chicago's dates are Chicago's
    expect(r.body.as_of.timezone).toBe('America/Chicago');
    expect(JSON.stringify(r.body)).not.toContain('file:');
  });

  test('at a planned development: the code text is named as silent there, and coverage is partial', async () => {
    const r = await get(`/rule?point=${points['PD 991']}`);
    expect(r.status).toBe(200);
    expect(r.body.item.share[0].district.code).toBe('PD 991');
    expect(r.body.item.not_consulted).toContainEqual(expect.objectContaining({ layer: 'zoning_text', district: 'PD 991' }));
    expect(r.body.coverage.layer.zoning_text).toMatchObject({ held: true, tier: 'partial' });
  });

  test("coverage names the map's districts the text says nothing of, and the text's the map does not draw", async () => {
    const r = await get('/coverage?jurisdiction=chicago-il');
    expect(r.status).toBe(200);
    const rows = JSON.stringify(r.body);
    const { rows: cov } = await server.services.pool.query(`SELECT detail FROM coverage WHERE layer = 'zoning_text'`);
    const entry = cov[0].detail.sources['zoning-ordinance-17-2'];
    // Chapter 17-2 regulates RS, RT and RM only: the map's business, downtown and PD classes have no facts
    expect(entry.districts_without_facts).toEqual(expect.arrayContaining(['PD 991', 'B3-2']));
    // of the residential classes only RT-4A, the 'A' designation 17-2-0105 lays on RT4, is not read
    expect(entry.districts_without_facts.filter((c: string) => /^R[STM]/.test(c))).toEqual(['RT-4A']);
    // every district 17-2 establishes is drawn on the map
    expect(entry.districts_not_on_map).toEqual([]);
    expect(rows).not.toContain('file:');
  });
});

describe("Chicago's dates are Chicago's (America/Chicago), not another zone's", () => {
  // an instant on the map's first day in New York that is still the day before in Chicago
  let instant: string;
  let dayBefore: string;
  beforeAll(async () => {
    const { rows } = await server.services.pool.query(
      `SELECT to_char(((effective_from::timestamp + interval '30 minutes') AT TIME ZONE 'America/New_York') AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS instant,
              (effective_from - 1)::text AS day_before
         FROM map_version m JOIN jurisdiction j ON j.id = m.jurisdiction_id WHERE j.slug = 'chicago-il' AND m.layer = 'district'`,
    );
    ({ instant, day_before: dayBefore } = rows[0]);
  });

  test('/rule and /v1/zoning read the instant as a Chicago date, before the map took effect', async () => {
    const rule = await get(`/rule?point=${points['RS-3']}&as_of=${instant}`);
    // the day before Chicago's history begins: refused, naming the Chicago date
    expect(rule.status).toBe(422);
    expect(rule.body.detail.error).toMatchObject({ code: 'as_of_before_retention', field: 'as_of' });
    expect(rule.body.detail.error.detail).toContain(`${dayBefore} is before it`);
    const [lat, lon] = points['RS-3'].split(',');
    const before = await get(`/v1/zoning?lat=${lat}&lon=${lon}&as_of=${instant}`);
    expect(before.status).toBe(501);
    expect(before.body).toMatchObject({ code: 'not_available', detail: `No zoning map in force on ${dayBefore} (America/Chicago) is held for this place.` });
    const now = await get(`/v1/zoning?lat=${lat}&lon=${lon}`);
    expect(now.status).toBe(200);
    expect(now.body.data[0].code.replace(/[\s-]/g, '')).toBe('RS3');
  });

  test('a tile at that instant shows the map in force on the Chicago date: none yet', async () => {
    const [lat, lon] = points['RS-3'].split(',').map(Number);
    const n = 2 ** 14;
    const x = Math.floor(((lon + 180) / 360) * n);
    const y = Math.floor(((1 - Math.log(Math.tan((lat * Math.PI) / 180) + 1 / Math.cos((lat * Math.PI) / 180)) / Math.PI) / 2) * n);
    const tile = (q: string) => fetch(`${server.url}/map/district/14/${x}/${y}${q}`, { headers: { 'X-API-Key': key } });
    expect((await tile('')).status).toBe(200);
    expect((await tile(`?as_of=${instant}`)).status).toBe(204);
    // a calendar date names the same day in every zone
    expect((await tile(`?as_of=${dayBefore}`)).status).toBe(204);
  });
});
