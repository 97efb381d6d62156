// GET /coverage as a paged collection over the real Cambridge load (with its state and county):
// one row per jurisdiction per layer, every layer named held or not (with why), in a scope or
// across every jurisdiction held; cursors, total, filters with indeterminate rows, sorts.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { LAYERS } from '../../api/routes/coverage.ts';
import type { RunningServer } from '../../api/server.ts';
import { ingestedDatabase } from '../helpers/pipeline.ts';
import { call, createTestOrg, startTestServer } from '../helpers/server.ts';

type Row = { jurisdiction: { id: string; slug: string; name: string }; layer: string; held: boolean; tier: string; reason?: string; last_retrieved_at?: string | null; source?: unknown[]; filter_outcome?: string };

let db: { url: string; drop: () => Promise<void> };
let server: RunningServer;
let key: string;
const get = (path: string) => call(server, 'GET', path, { key });
const sql = async (text: string, params: unknown[] = []) => (await server.services.pool.query(text, params)).rows;

beforeAll(async () => {
  db = await ingestedDatabase('cambridge', ['cambridge-ma']);
  server = await startTestServer({ DATABASE_URL: db.url, RATE_LIMIT_PER_SECOND: '100000' });
  key = (await createTestOrg(server, 1000)).apiKey;
}, 600_000);
afterAll(async () => {
  await server?.close();
  await db?.drop();
});

/** Every row of a walk, page by page. */
async function walk(query: string, size: number) {
  const rows: Row[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const r = await get(`/coverage?${query}&size=${size}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(r.status).toBe(200);
    expect(r.body.item.length).toBeLessThanOrEqual(size);
    rows.push(...r.body.item);
    cursor = r.body.page.next_cursor;
    pages++;
  } while (cursor);
  return { rows, pages };
}

describe('GET /coverage', () => {
  test('one row per layer for a town, in the order of the layers, held ones as the coverage table says', async () => {
    const r = await get('/coverage?jurisdiction=cambridge-ma&size=200');
    const rows: Row[] = r.body.item;
    expect(rows.map((x) => x.layer)).toEqual([...LAYERS]);
    const held = await sql(`SELECT c.layer, c.tier FROM coverage c JOIN jurisdiction j ON j.id = c.jurisdiction_id WHERE j.slug = 'cambridge-ma' AND c.held ORDER BY 1`);
    expect(rows.filter((x) => x.held && x.layer !== 'authority').map((x) => [x.layer, x.tier]).sort()).toEqual(held.map((h) => [h.layer, h.tier]));
    for (const x of rows.filter((y) => !y.held)) expect(x, x.layer).toMatchObject({ tier: 'none', reason: `no public source of the ${x.layer} layer of Cambridge is held` });
    expect(rows.find((x) => x.layer === 'authority')).toMatchObject({ held: true, tier: 'partial', subjects: ['building_code', 'zoning'] });
    expect(rows.find((x) => x.layer === 'parcel')).toMatchObject({ held: true, source: [expect.objectContaining({ key: 'parcels-fy2014' })], last_retrieved_at: expect.any(String) });
    expect(r.body.scope).toEqual({ kind: 'jurisdiction', label: 'cambridge-ma', jurisdictions: 1 });
  });

  test('a state scope in pages of 7: every jurisdiction by every layer once, total counted, in order', async () => {
    const first = await get('/coverage?state=MA&size=7&total=true');
    const n = LAYERS.length * 3;
    expect(first.body.page.total).toEqual({ value: n, relation: 'eq' });
    const { rows, pages } = await walk('state=MA', 7);
    expect(pages).toBe(Math.ceil(n / 7));
    expect(new Set(rows.map((x) => `${x.jurisdiction.slug} ${x.layer}`)).size).toBe(n);
    expect([...new Set(rows.map((x) => x.jurisdiction.slug))]).toEqual(['cambridge-ma', 'massachusetts', 'middlesex-county-ma']);
    expect(rows.slice(0, LAYERS.length).map((x) => x.layer)).toEqual([...LAYERS]);
    // the state and the county hold nothing but what their manifests say of authority
    expect(rows.filter((x) => x.jurisdiction.slug !== 'cambridge-ma' && x.layer !== 'authority').every((x) => !x.held && x.reason)).toBe(true);
  });

  test('without a scope, every jurisdiction held, the same rows as the state', async () => {
    const all = await walk('layer=parcel&layer=assessor&layer=permit', 2);
    expect(all.rows.map((x) => [x.jurisdiction.slug, x.layer, x.held])).toEqual([
      ['cambridge-ma', 'parcel', true],
      ['cambridge-ma', 'assessor', true],
      ['cambridge-ma', 'permit', false],
      ['massachusetts', 'parcel', false],
      ['massachusetts', 'assessor', false],
      ['massachusetts', 'permit', false],
      ['middlesex-county-ma', 'parcel', false],
      ['middlesex-county-ma', 'assessor', false],
      ['middlesex-county-ma', 'permit', false],
    ]);
    const [{ n }] = await sql('SELECT count(*)::int AS n FROM jurisdiction');
    expect((await get('/coverage?total=true&size=1')).body.page.total).toEqual({ value: n * LAYERS.length, relation: 'eq' });
  });

  test('filters: held rows only; a freshness condition leaves rows never retrieved indeterminate', async () => {
    const held = (await walk('filter[held][eq]=true', 200)).rows;
    const [{ n }] = await sql(
      `SELECT (SELECT count(*) FROM coverage WHERE held)::int + (SELECT count(DISTINCT a.jurisdiction_id) FROM authority a JOIN jurisdiction j ON j.id = a.jurisdiction_id WHERE upper_inf(a.known) AND a.valid @> (now() AT TIME ZONE j.timezone)::date)::int AS n`,
    );
    expect(held.length).toBe(n);
    const fresh = await get('/coverage?jurisdiction=cambridge-ma&size=200&filter[last_retrieved_at][gte]=2000-01-01');
    const outcome = Object.fromEntries(fresh.body.item.map((x: Row) => [x.layer, x.filter_outcome]));
    expect(outcome.parcel).toBe('match');
    expect(outcome.permit).toBe('indeterminate');
    expect(fresh.body.page.indeterminate).toBe(fresh.body.item.filter((x: Row) => x.filter_outcome === 'indeterminate').length);
    const only = await get('/coverage?jurisdiction=cambridge-ma&size=200&filter[last_retrieved_at][gte]=2000-01-01&filter_indeterminate=exclude');
    expect(only.body.item.every((x: Row) => x.held && x.last_retrieved_at)).toBe(true);
  });

  test('sorted by layer then held, the cursor keeps the order', async () => {
    const one = (await get('/coverage?state=MA&sort=layer,-held&size=200')).body.item as Row[];
    const walked = (await walk('state=MA&sort=layer,-held', 5)).rows;
    expect(walked.map((x) => `${x.layer} ${x.jurisdiction.slug}`)).toEqual(one.map((x) => `${x.layer} ${x.jurisdiction.slug}`));
    expect(one.map((x) => x.layer)).toEqual([...one.map((x) => x.layer)].sort());
  });

  test('bad input: an unknown layer, two scopes, a cursor of another sort', async () => {
    const code = (r: { status: number; body: any }) => [r.status, r.body.detail.error.code, r.body.detail.error.field];
    expect(code(await get('/coverage?layer=zoning'))).toEqual([422, 'vocabulary_value_unknown', 'layer']);
    expect(code(await get('/coverage?state=MA&jurisdiction=cambridge-ma'))[0]).toBe(422);
    const c = (await get('/coverage?state=MA&size=2')).body.page.next_cursor;
    expect(code(await get(`/coverage?state=MA&size=2&sort=layer&cursor=${encodeURIComponent(c)}`))).toEqual([422, 'cursor_sort_mismatch', 'sort']);
  });
});
