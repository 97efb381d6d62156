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
