// GET /permission over time, on the real Somerville ordinance published twice: version A, then a
// version amended by test/fixtures/somerville-b (Artisanal Production in MR3 goes from P to SP in
// Table 9.1.1) with one more edit made here, Apiculture's cell in the PS table (7.2.7) printed as a
// dash the legend does not define (a cell the reader cannot decide, as a blank one).
// An interval as_of gives each row its segments; the unreadable cell makes its district undecided; the
// knowledge axis answers as the service knew it between the two loads.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { RunningServer } from '../../api/server.ts';
import { type PipelineHarness, pipelineHarness } from '../helpers/pipeline.ts';
import { type PlacedSource, placedSource, SOMERVILLE_A, somervilleB } from '../helpers/placed.ts';
import { call, createTestOrg, startTestServer } from '../helpers/server.ts';

// biome-ignore lint/suspicious/noExplicitAny: answers as JSON
type Item = Record<string, any>;

const BLANK = { find: '| Tourist Home | P |\n| Urban Agriculture (as noted below) | -- |\n| Apiculture | P |\n', replace: '| Tourist Home | P |\n| Urban Agriculture (as noted below) | -- |\n| Apiculture | -- |\n' };

function versionB(): Buffer {
  const text = somervilleB().toString('utf8');
  expect(text.split(BLANK.find).length).toBe(2);
  return Buffer.from(text.replace(BLANK.find, BLANK.replace));
}

let placed: PlacedSource;
let h: PipelineHarness;
let server: RunningServer;
let key: string;
const get = (path: string) => call(server, 'GET', path, { key });
const J = 'jurisdiction=somerville-ma';

beforeAll(async () => {
  placed = await placedSource('somerville-ma', 'zoning-ordinance', readFileSync(SOMERVILLE_A));
  h = await pipelineHarness('permission_history', { manifestDir: placed.manifestDir });
  await h.ingest(['somerville-ma'], { now: new Date('2026-03-05T12:00:00Z') });
  await placed.publish(versionB());
  await h.ingest(['somerville-ma'], { now: new Date('2026-03-12T12:00:00Z') });
  server = await startTestServer({ DATABASE_URL: h.url, RATE_LIMIT_PER_SECOND: '100000' });
  key = (await createTestOrg(server, 10_000)).apiKey;
}, 900_000);
afterAll(async () => {
  await server?.close();
  await h?.close();
  await placed?.close();
});

/** The day the amended cell took effect, as held. */
async function amendedOn(): Promise<string> {
  const { rows } = await h.pool.query(
    `SELECT DISTINCT lower(p.valid)::text AS d FROM permission p JOIN district d ON d.id = p.district_id
      WHERE d.code_normalized = 'MR3' AND p.use_slug = 'commercial.arts.artisanal_production' AND p.symbol = 'SP' AND upper_inf(p.known)`,
  );
  expect(rows).toHaveLength(1);
  return rows[0].d;
}

test('an interval: the MR3 row has a segment before the amendment (all P) and one after (P and SP: conflicting), and the answer says it changed', async () => {
  const on = await amendedOn();
  expect(on > '2026-03-05' && on <= '2026-03-12').toBe(true);
  const r = await get(`/permission?use=commercial.arts.artisanal_production&${J}&as_of=from:2026-03-01%20to:2026-03-31&filter[district.code_normalized][eq]=MR3`);
  expect(r.status).toBe(200);
  expect(r.body.item).toHaveLength(1);
  const [row] = r.body.item;
  expect(row).toMatchObject({ district_code: 'MR3', level: 'by_right', constant: false, status: 'conflicting' });
  const dayBefore = new Date(Date.parse(`${on}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
  expect(row.segment.map((s: Item) => [s.from, s.to, s.permission?.level ?? null, s.permission?.status ?? null])).toEqual([
    ['2026-03-01', '2026-03-04', null, null],
    ['2026-03-05', dayBefore, 'by_right', 'stated'],
    [on, '2026-03-31', 'by_right', 'conflicting'],
  ]);
  const symbols = (s: Item) => s.permission.cell.map((c: Item) => `${c.table}:${c.symbol}`).sort();
  expect(symbols(row.segment[1]).filter((x: string) => x.startsWith('Table 9.1.1'))).toEqual(['Table 9.1.1:P']);
  expect(symbols(row.segment[2]).filter((x: string) => x.startsWith('Table 9.1.1'))).toEqual(['Table 9.1.1:SP']);
  expect(r.body.notice).toEqual([expect.objectContaining({ code: 'as_of_interval_spans_change', subject: [row.id] })]);
  expect(r.body.as_of).toMatchObject({ constant: false, segment_count: 3, resolved: { from: '2026-03-01', to: '2026-03-31' } });
  // on a date, the same row as one answer
  const after = await get(`/permission?use=commercial.arts.artisanal_production&${J}&as_of=2026-03-20&filter[district.code_normalized][eq]=MR3`);
  expect(after.body.item[0]).toMatchObject({ id: row.id, level: 'by_right', status: 'conflicting', constant: true });
  expect(after.body.item[0].segment).toBeUndefined();
});

test('a cell that cannot be read: PS is by right for Apiculture before, undecided (cell_unreadable) after, and the blank cell is shown, cited', async () => {
  const base = `/permission?use=agriculture.apiculture&${J}&filter[district.code_normalized][eq]=PS`;
  const before = await get(`${base}&as_of=2026-03-08`);
  expect(before.body.item.map((i: Item) => [i.district_code, i.level, i.filter_outcome])).toEqual([['PS', 'by_right', 'match']]);
  const after = await get(`${base}&as_of=2026-03-20`);
  expect(after.body.item).toEqual([]);
  expect(after.body.page.indeterminate).toBe(1);
  const shown = await get(`${base}&as_of=2026-03-20&filter_indeterminate=include`);
  expect(shown.body.item).toHaveLength(1);
  const [row] = shown.body.item;
  expect(row).toMatchObject({ district_code: 'PS', level: null, status: 'withheld', filter_outcome: 'indeterminate', indeterminate: { reason: 'cell_unreadable' } });
  expect(row.cell.map((c: Item) => [c.label, c.symbol, c.level, c.status])).toEqual([['Apiculture', '--', 'unknown', 'withheld']]);
  expect(row.cell[0].conditions).toContain('not in the legend');
  const { rows } = await h.pool.query(
    `SELECT substr(t.text, (c.locator->>'start')::int + 1, (c.locator->>'end')::int - (c.locator->>'start')::int) = c.quote AS at_offsets
       FROM citation c JOIN version_text t ON t.version_id = c.version_id WHERE c.id = $1`,
    [row.cell[0].citation.id],
  );
  expect(rows).toEqual([{ at_offsets: true }]);
  // as the service knew it between the two loads, the cell read P
  const known = await get(`${base}&as_of=2026-03-20&known_as_of=2026-03-08T00:00:00Z`);
  expect(known.body.item.map((i: Item) => [i.district_code, i.level])).toEqual([['PS', 'by_right']]);
  expect(known.body.as_of).toMatchObject({ known_as_of: '2026-03-08T00:00:00.000000Z', known_as_of_basis: 'requested' });
});
