// The unscoped change feed reads along the seq index and stops at the page: PostgreSQL's plan
// for the feed's own statement (feedPage, as the route runs it), over 100,000 events in a
// database of the test's own, has no sort of the matching rows.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type FeedParams, feedPage } from '../../api/changes/feed.ts';
import { createPool, type Pool, type Queryable } from '../../store/db.ts';
import { freshDatabase } from '../helpers/databases.ts';

let db: { url: string; drop: () => Promise<void> };
let pool: Pool;
const secret = Buffer.from('plan-test-secret');

beforeAll(async () => {
  db = await freshDatabase('feed_plan');
  pool = createPool(db.url, { max: 2 });
  for (const k of [1, 2, 3, 4, 5]) {
    await pool.query(
      `INSERT INTO jurisdiction (id, slug, name, type, level, fips_state, fips_county, fips_cousub, fips_key, state_postal)
       VALUES ($1, $2, $3, 'town', 'cousub', '25', '017', $4, $5, 'MA')`,
      [`jur_plan${k}aaaaaaaaaaaaaaa`, `plan-${k}`, `Plan ${k}`, `7000${k}`, `us:cousub:250177000${k}`],
    );
  }
  await pool.query(
    `INSERT INTO change_event (id, seq, jurisdiction_id, kind, layer, subject, field_path, detected_at)
     SELECT 'chg_' || lpad(g::text, 20, '0'), nextval('change_event_seq'), 'jur_plan' || (g % 5 + 1) || 'aaaaaaaaaaaaaaa',
            'amendment', 'district', '{}', 'district.R-' || g, now() - interval '1 day'
       FROM generate_series(1, 100000) g`,
  );
  await pool.query('ANALYZE change_event');
});
afterAll(async () => {
  await pool?.end();
  await db?.drop();
});

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Relation Name'?: string;
  'Presorted Key'?: string[];
  'Actual Rows'?: number;
  Plans?: PlanNode[];
}
const nodes = (n: PlanNode): PlanNode[] => [n, ...(n.Plans ?? []).flatMap(nodes)];

/** The feed page, and the plan PostgreSQL ran its statement with. */
async function pageAndPlan(p: FeedParams) {
  const seen: Array<{ text: string; values: unknown[] }> = [];
  const recording = {
    query: (text: string, values: unknown[]) => {
      seen.push({ text, values });
      return pool.query(text, values);
    },
  } as unknown as Queryable;
  const page = await feedPage(recording, secret, null, { size: 25, ...p }, new Date().toISOString());
  const statement = seen.find((s) => /FROM change_event e/.test(s.text))!;
  const { rows } = await pool.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${statement.text}`, statement.values);
  return { page, plan: nodes(rows[0]['QUERY PLAN'][0].Plan) };
}

function expectIndexOrdered(plan: PlanNode[]) {
  const scan = plan.find((n) => n['Relation Name'] === 'change_event')!;
  expect(scan['Node Type']).toBe('Index Scan');
  expect(scan['Index Name']).toBe('change_event_seq_key');
  // no sort of every matching row: at most an incremental sort on the id tiebreak within one seq
  expect(plan.filter((n) => n['Node Type'] === 'Sort')).toEqual([]);
  for (const n of plan.filter((x) => x['Node Type'] === 'Incremental Sort')) expect(n['Presorted Key']).toEqual(['e.seq']);
  // the scan stops at the page: 25 rows, one to know there is more, one that ends the sort's last group
  expect(scan['Actual Rows']).toBeLessThanOrEqual(27);
}

test('the first page and a page by cursor read the seq index in order and stop at the page', async () => {
  const first = await pageAndPlan({ since: 0 });
  expect(first.page.items.map((e) => e.seq)).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
  expectIndexOrdered(first.plan);
  const next = await pageAndPlan({ since: 0, cursor: first.page.page.next_cursor ?? undefined });
  expect(next.page.items[0].seq).toBe(26);
  expectIndexOrdered(next.plan);
  const late = await pageAndPlan({ since: 90_000 });
  expect(late.page.items[0].seq).toBe(90_001);
  expectIndexOrdered(late.plan);
});
