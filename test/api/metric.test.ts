// GET /metric over the real Cambridge data (districts, parcels and two assessor rolls) and the
// synthetic town (its use table, parcels, permits and cases): every value checked against SQL
// written here independently of the route's, each derivation stating what was counted and when,
// metrics withheld (not zero) where their layers are not held, paging and bad input.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RunningServer } from '../../api/server.ts';
import { ingestedDatabase, type PipelineHarness, pipelineHarness, syntheticManifests } from '../helpers/pipeline.ts';
import { call, createTestOrg, startTestServer } from '../helpers/server.ts';
import { type SyntheticSite, startSyntheticSite } from '../helpers/synthetic-site.ts';

type Item = { metric: string; status: string; value: number | null; group: Array<{ key: string | number | null; value: number | null; count?: number }>; derivation: Record<string, any>; reason?: string; as_of: string; known_as_of: string };

const byMetric = (items: Item[]) => Object.fromEntries(items.map((i) => [i.metric, i]));
const groups = (i: Item) => Object.fromEntries(i.group.map((g) => [String(g.key), g.value]));

describe('Cambridge: districts, parcels and assessor rolls', () => {
  let db: { url: string; drop: () => Promise<void> };
  let server: RunningServer;
  let key: string;
  const get = (path: string) => call(server, 'GET', path, { key });
  const sql = async (text: string, params: unknown[] = []) => (await server.services.pool.query(text, params)).rows;
  let m: Record<string, Item>;
  let jid: string;

  beforeAll(async () => {
    db = await ingestedDatabase('cambridge', ['cambridge-ma']);
    server = await startTestServer({ DATABASE_URL: db.url, RATE_LIMIT_PER_SECOND: '100000' });
    key = (await createTestOrg(server, 100_000)).apiKey;
    const r = await get('/metric?jurisdiction=cambridge-ma&size=200');
    expect(r.status).toBe(200);
    m = byMetric(r.body.item);
    jid = r.body.item[0].jurisdiction.id;
  }, 600_000);
  afterAll(async () => {
    await server?.close();
    await db?.drop();
  });

  /** The date and instant every metric of the page was counted at. */
  const at = () => [m.district_count.as_of, m.district_count.known_as_of];

  test('every metric but district_allowing_use (no use asked), each with its derivation, all on one date and instant', () => {
    expect(Object.keys(m).sort()).toEqual(['assessed_value_median', 'case_count', 'district_count', 'parcel_by_district', 'parcel_count', 'permit_count', 'property_count']);
    for (const i of Object.values(m)) {
      expect([i.as_of, i.known_as_of]).toEqual(at());
      expect(i.derivation).toMatchObject({ as_of: i.as_of, known_as_of: i.known_as_of, tables: expect.any(Array), counted: expect.any(String), statement: expect.stringContaining('Cambridge') });
    }
  });

  test('district_count: the districts in force, base and overlay, as SQL counts them', async () => {
    const [d, k] = at();
    const rows = await sql(`SELECT kind, count(DISTINCT id)::int AS n FROM district WHERE jurisdiction_id = $1 AND valid @> $2::date AND known @> $3::timestamptz GROUP BY kind`, [jid, d, k]);
    expect(groups(m.district_count)).toEqual(Object.fromEntries(rows.map((r) => [r.kind, r.n])));
    expect(m.district_count.value).toBe(rows.reduce((s, r) => s + r.n, 0));
    expect(m.district_count.value).toBeGreaterThan(50);
  });

  test('parcel_count and parcel_by_district: each parcel in the base district containing its point on surface', async () => {
    const [d, k] = at();
    const [{ n }] = await sql(`SELECT count(DISTINCT id)::int AS n FROM parcel WHERE jurisdiction_id = $1 AND valid @> $2::date AND known @> $3::timestamptz`, [jid, d, k]);
    expect(m.parcel_count).toMatchObject({ status: 'stated', value: n, unit: 'parcels' });
    // the same question without the subdivided pieces: the mapped areas themselves
    const rows = await sql(
      `SELECT dd.code_normalized AS code, count(DISTINCT p.id)::int AS n
         FROM parcel p JOIN district_area a ON a.kind = 'base' AND a.jurisdiction_id = p.jurisdiction_id AND a.valid @> $2::date AND a.known @> $3::timestamptz
              AND ST_Contains(a.geom, ST_PointOnSurface(p.geom))
         JOIN LATERAL (SELECT code_normalized FROM district WHERE id = a.district_id ORDER BY fact_id DESC LIMIT 1) dd ON true
        WHERE p.jurisdiction_id = $1 AND p.valid @> $2::date AND p.known @> $3::timestamptz AND p.geom IS NOT NULL GROUP BY 1`,
      [jid, d, k],
    );
    expect(groups(m.parcel_by_district)).toEqual(Object.fromEntries(rows.map((r) => [r.code, r.n])));
    const placed = m.parcel_by_district.value!;
    const ex = m.parcel_by_district.derivation.excluded;
    expect(placed + ex.parcels_without_polygon + ex.parcels_in_no_base_district).toBe(n);
    expect(m.parcel_by_district.group.reduce((s, g) => s + g.value!, 0)).toBe(placed + ex.parcels_in_two_or_more);
  });

  test('property_count and assessed_value_median per roll fiscal year; the median is a value a property states', async () => {
    const [d, k] = at();
    const rows = await sql(
      `SELECT fiscal_year AS fy, count(DISTINCT id)::int AS n, array_agg((assessment->>'total_value_cents')::bigint ORDER BY (assessment->>'total_value_cents')::bigint) FILTER (WHERE assessment->>'total_value_cents' IS NOT NULL) AS v
         FROM property WHERE jurisdiction_id = $1 AND valid @> $2::date AND known @> $3::timestamptz GROUP BY fiscal_year ORDER BY fiscal_year DESC`,
      [jid, d, k],
    );
    expect(rows.map((r) => r.fy)).toEqual([2025, 2014]);
    expect(groups(m.property_count)).toEqual(Object.fromEntries(rows.map((r) => [String(r.fy), r.n])));
    // the lower middle of the sorted stated values
    const median = (v: string[]) => Number(v[Math.ceil(v.length / 2) - 1]);
    expect(m.assessed_value_median).toMatchObject({ status: 'stated', unit: 'cents', value: median(rows[0].v) });
    expect(m.assessed_value_median.group).toEqual(rows.map((r) => ({ key: r.fy, value: median(r.v), count: r.v.length })));
    const unstated = rows.reduce((s, r) => s + r.n - r.v.length, 0);
    expect(m.assessed_value_median.derivation.excluded).toEqual({ properties_stating_no_total_value: unstated });
    expect(unstated).toBeGreaterThan(0);
  });

  test('permits, cases and the use table are not held in Cambridge: withheld with the reason, never zero', async () => {
    for (const x of [m.permit_count, m.case_count]) expect(x).toMatchObject({ status: 'withheld', value: null, reason: expect.stringMatching(/layer is not held for Cambridge/) });
    const r = await get('/metric?jurisdiction=cambridge-ma&metric=district_allowing_use&use=residential.dwelling.single_family');
    expect(r.body.item).toEqual([expect.objectContaining({ status: 'withheld', value: null, reason: expect.stringMatching(/zoning_text layer is not held/) })]);
  });

  test('a state scope pages jurisdiction by metric; the state and county hold nothing and say so', async () => {
    const first = await get('/metric?state=MA&size=5&total=true');
    expect(first.body.page.total).toEqual({ value: 21, relation: 'eq' });
    const all: Item[] = [...first.body.item];
    let cursor = first.body.page.next_cursor;
    while (cursor) {
      const r = await get(`/metric?state=MA&size=5&cursor=${encodeURIComponent(cursor)}`);
      all.push(...r.body.item);
      cursor = r.body.page.next_cursor;
    }
    expect(all).toHaveLength(21);
    const county = all.filter((i: Item & { jurisdiction?: { slug: string } }) => (i as { jurisdiction: { slug: string } }).jurisdiction.slug === 'middlesex-county-ma');
    expect(county.every((i) => i.status === 'withheld')).toBe(true);
    const cambridge = all.filter((i) => (i as unknown as { jurisdiction: { slug: string } }).jurisdiction.slug === 'cambridge-ma');
    expect(cambridge.map((i) => [i.metric, i.value])).toEqual(Object.values(m).map((i) => [i.metric, i.value]));
  });

  test('bad input: an unknown use, district_allowing_use without one, an interval, no scope', async () => {
    const code = (r: { status: number; body: any }) => [r.status, r.body.detail.error.code, r.body.detail.error.field];
    expect(code(await get('/metric?jurisdiction=cambridge-ma&use=not.a.use'))).toEqual([422, 'vocabulary_value_unknown', 'use']);
    expect(code(await get('/metric?jurisdiction=cambridge-ma&metric=district_allowing_use'))).toEqual([422, 'parameter_invalid', 'use']);
    expect(code(await get(`/metric?jurisdiction=cambridge-ma&as_of=${encodeURIComponent('from:2025-01-01 to:2025-12-31')}`))).toEqual([422, 'parameter_invalid', 'as_of']);
    expect(code(await get('/metric'))).toEqual([422, 'parameter_invalid', 'jurisdiction']);
  });
});

describe('the synthetic town: districts allowing a use, parcels by district, permits and cases', () => {
  let site: SyntheticSite;
  let h: PipelineHarness;
  let server: RunningServer;
  let key: string;
  const get = (path: string) => call(server, 'GET', path, { key });

  beforeAll(async () => {
    site = await startSyntheticSite({ version: 1 });
    h = await pipelineHarness('metrics', { manifestDir: await syntheticManifests(site.url) });
    await h.ingest(['millbrook-ma'], { now: new Date('2026-03-05T12:00:00Z') });
    server = await startTestServer({ DATABASE_URL: h.url, RATE_LIMIT_PER_SECOND: '100000' });
    key = (await createTestOrg(server, 100_000)).apiKey;
  }, 180_000);
  afterAll(async () => {
    await server?.close();
    await h?.close();
    await site?.close();
  });

  /** Base districts allowing one of the slugs (stated, at the levels), as SQL counts them. */
  async function allowing(slugs: string[], levels: string[], d: string, k: string) {
    const { rows } = await h.pool.query(
      `SELECT DISTINCT dd.code_normalized AS code FROM permission p JOIN district dd ON dd.id = p.district_id AND dd.kind = 'base' AND dd.valid @> $3::date AND dd.known @> $4::timestamptz
        WHERE p.use_slug = ANY($1) AND p.level = ANY($2) AND p.status = 'stated' AND p.valid @> $3::date AND p.known @> $4::timestamptz ORDER BY 1`,
      [slugs, levels, d, k],
    );
    return rows.map((r) => r.code as string);
  }

  test('single-family dwellings are allowed in R-1, R-2 and VC (Table 4.1: P, P, SP, N), by right in two', async () => {
    const r = await get('/metric?jurisdiction=millbrook-ma&use=residential.dwelling.single_family&metric=district_allowing_use');
    const [i] = r.body.item as Item[];
    expect(i).toMatchObject({ status: 'stated', value: 3 });
    expect(await allowing(['residential.dwelling.single_family'], ['by_right', 'permitted_with_standards', 'administrative_approval', 'conditional_use'], i.as_of, i.known_as_of)).toEqual(['R-1', 'R-2', 'VC']);
    expect(groups(i).by_right).toBe(2);
    expect(i.derivation.excluded).toEqual({ districts_in_force: 4, districts_not_naming_the_use: 0, districts_with_an_undecided_cell: 0 });
    const byRight = (await get('/metric?jurisdiction=millbrook-ma&use=residential.dwelling.single_family&metric=district_allowing_use&level=by_right')).body.item[0];
    expect(byRight.value).toBe((await allowing(['residential.dwelling.single_family'], ['by_right'], i.as_of, i.known_as_of)).length);
  });

  test('a parent use counts the districts allowing any narrower use', async () => {
    const [i] = (await get('/metric?jurisdiction=millbrook-ma&use=residential.dwelling&metric=district_allowing_use')).body.item as Item[];
    const { rows } = await h.pool.query(`SELECT slug FROM use_term WHERE slug LIKE 'residential.dwelling.%' OR slug = 'residential.dwelling'`);
    expect(i.value).toBe((await allowing(rows.map((r) => r.slug), ['by_right', 'permitted_with_standards', 'administrative_approval', 'conditional_use'], i.as_of, i.known_as_of)).length);
    expect(i.value).toBe(3);
  });

  test('parcels by district as EXPECTED.md draws them (v1), permits and cases by kind and state', async () => {
    const m = byMetric((await get('/metric?jurisdiction=millbrook-ma&metric=parcel_by_district,permit_count,case_count,property_count')).body.item);
    expect(groups(m.parcel_by_district)).toEqual({ 'I-1': 3, 'R-1': 8, 'R-2': 6, VC: 4 });
    expect(m.parcel_by_district.value).toBe(21);
    expect(groups(m.permit_count)).toEqual({ application: 2, permit: 4 });
    expect(groups(m.case_count)).toEqual({ decided: 2, pending: 1 });
    expect(m.property_count.value).toBe(22);
  });
});
