// GET /permission over Chicago: Chapter 17-2 (the residential districts' use table) and the
// citywide map, whose other districts (business, manufacturing, planned developments …) no use
// table held covers: they are counted as undecided, never dropped, and listed when asked.
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { RunningServer } from '../../api/server.ts';
import { ingestedDatabase } from '../helpers/pipeline.ts';
import { call, createTestOrg, startTestServer } from '../helpers/server.ts';

// biome-ignore lint/suspicious/noExplicitAny: answers and rows as JSON
type Item = Record<string, any>;

let db: { url: string; drop: () => Promise<void> };
let server: RunningServer;
let key: string;
const get = (path: string) => call(server, 'GET', path, { key });
const sql = async (text: string, params?: unknown[]): Promise<Item[]> => (await server.services.pool.query(text, params)).rows;
const J = 'jurisdiction=chicago-il';

beforeAll(async () => {
  db = await ingestedDatabase('chicago', ['chicago-il']);
  server = await startTestServer({ DATABASE_URL: db.url, RATE_LIMIT_PER_SECOND: '100000' });
  key = (await createTestOrg(server, 100_000)).apiKey;
}, 600_000);
afterAll(async () => {
  await server?.close();
  await db?.drop();
});

/** Base districts in force: those with a cell of the use (and its most permissive level), and those without. */
async function held(slug: string) {
  const rows = await sql(
    `SELECT d.code_normalized AS code,
            min(array_position(ARRAY['by_right','permitted_with_standards','administrative_approval','conditional_use','prohibited'], p.level)) FILTER (WHERE p.status <> 'withheld') AS rank
       FROM (SELECT DISTINCT id, code_normalized FROM district WHERE kind = 'base' AND upper_inf(known) AND upper_inf(valid)) d
       LEFT JOIN permission p ON p.district_id = d.id AND upper_inf(p.known) AND upper_inf(p.valid) AND (p.use_slug = $1 OR p.use_slug LIKE $1 || '.%')
      GROUP BY 1 ORDER BY 1`,
    [slug],
  );
  return { stated: rows.filter((r) => r.rank !== null), silent: rows.filter((r) => r.rank === null) };
}

test('single-family dwellings: the RS, RT and RM districts whose cells allow them, as 17-2 says; the map districts no table covers counted', async () => {
  const slug = 'residential.dwelling.single_family';
  const { stated, silent } = await held(slug);
  expect(silent.length).toBeGreaterThan(1000);
  const r = await get(`/permission?use=${slug}&${J}&size=200&total=true`);
  expect(r.status).toBe(200);
  expect(r.body.item.map((i: Item) => [i.district_code, i.level_rank])).toEqual(stated.filter((x) => x.rank <= 4).map((x) => [x.code, x.rank]));
  expect(r.body.item.map((i: Item) => i.district_code)).toEqual(expect.arrayContaining(['RS1', 'RS2', 'RS3']));
  expect(r.body.page.indeterminate).toBe(silent.length);
  expect(r.body.page.total_indeterminate).toEqual({ value: silent.length, relation: 'eq' });
  expect(r.body.as_of).toMatchObject({ timezone: 'America/Chicago' });
  expect(r.body.coverage).toMatchObject({ answered: 1, not_answered: 0, jurisdiction: [{ name: 'Chicago', layer: { zoning_text: { held: true } } }] });
  const { rows } = await server.services.pool.query(
    `SELECT bool_and(substr(t.text, (c.locator->>'start')::int + 1, (c.locator->>'end')::int - (c.locator->>'start')::int) = c.quote) AS ok, count(*)::int AS n
       FROM citation c JOIN version_text t ON t.version_id = c.version_id WHERE c.id = ANY($1)`,
    [r.body.item.flatMap((i: Item) => i.cell.map((c: Item) => c.citation.id))],
  );
  expect(rows[0]).toMatchObject({ ok: true });
  expect(rows[0].n).toBeGreaterThan(0);
});

test('the undecided districts, asked for, are listed with why, and walk in pages like the rest', async () => {
  const slug = 'residential.dwelling.single_family';
  const { silent } = await held(slug);
  const first = await get(`/permission?use=${slug}&${J}&filter_indeterminate=only&size=50&total=true`);
  expect(first.status).toBe(200);
  expect(first.body.page.total).toEqual({ value: silent.length, relation: 'eq' });
  expect(first.body.item.map((i: Item) => i.district_code)).toEqual(silent.slice(0, 50).map((x) => x.code));
  for (const i of first.body.item) expect(i).toMatchObject({ filter_outcome: 'indeterminate', level: null, indeterminate: { reason: 'no_use_table' } });
  const second = await get(`/permission?use=${slug}&${J}&filter_indeterminate=only&size=50&cursor=${encodeURIComponent(first.body.page.next_cursor)}`);
  expect(second.body.item.map((i: Item) => i.district_code)).toEqual(silent.slice(50, 100).map((x) => x.code));
});
