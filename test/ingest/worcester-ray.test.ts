// Worcester, MA (the city's PDF) and Ray County, MO (a Word document as HTML) from their shipped
// manifests through the pipeline into PostGIS (issue 13, part 8): districts, the use table and the
// dimensional table held as cited facts. Expected values are read from the documents by hand
// (test/fixtures/ordinance-gold).
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { JurisdictionOutcome } from '../../workflows/logic.ts';
import { type PipelineHarness, pipelineHarness } from '../helpers/pipeline.ts';

let h: PipelineHarness;
let runs: JurisdictionOutcome[];
const fold = (c: string) => c.toUpperCase().replace(/[\s-]/g, '');

/** The current permission of a use in a district, by the code's own label. */
async function permission(jurisdiction: string, label: string, district: string) {
  const { rows } = await h.pool.query(
    `SELECT p.symbol, p.level, c.quote FROM permission p JOIN jurisdiction j ON j.id = p.jurisdiction_id JOIN district d ON d.id = p.district_id
       JOIN citation c ON c.id = p.citation_id
      WHERE j.slug = $1 AND p.use_label_raw = $2 AND upper(replace(replace(d.code_normalized, '-', ''), ' ', '')) = $3
        AND upper_inf(p.known) AND upper_inf(p.valid)`,
    [jurisdiction, label, fold(district)],
  );
  return rows;
}

beforeAll(async () => {
  h = await pipelineHarness('worcester_ray');
  runs = await h.ingest(['worcester-ma', 'ray-county-mo'], { now: new Date('2026-06-01T15:00:00Z') });
}, 600_000);
afterAll(async () => {
  await h?.close();
});

describe.each([
  { slug: 'worcester-ma', districts: ['RS-10', 'RS-7', 'RL-7', 'RG-5', 'BO-1.0', 'BG-6.0', 'IP-0.33', 'ML-0.5', 'MG-2.0', 'IN-S', 'IN-H', 'A-1'] },
  { slug: 'ray-county-mo', districts: ['R-A', 'R-1', 'R-1A', 'R-1B', 'R-2', 'R-3', 'R-MHP', 'S & O', 'B-1', 'B-2', 'I-1', 'I-2'] },
])('$slug', ({ slug, districts }) => {
  test('the code loads with its districts and use table, and its coverage counts what was read', async () => {
    const run = runs.find((r) => r.jurisdiction === slug)!;
    const code = run.sources.find((s) => s.kind === 'code_text')!;
    expect(code.state).toBe('loaded');
    expect(code.counts.permissions).toBeGreaterThan(1000);
    const { rows } = await h.pool.query(
      `SELECT d.code_normalized FROM district d JOIN jurisdiction j ON j.id = d.jurisdiction_id WHERE j.slug = $1 AND upper_inf(d.known) AND upper_inf(d.valid)`,
      [slug],
    );
    const held = new Set(rows.map((r) => fold(r.code_normalized)));
    for (const d of districts) expect(held.has(fold(d)), d).toBe(true);
    const cov = await h.pool.query(`SELECT c.held, c.detail FROM coverage c JOIN jurisdiction j ON j.id = c.jurisdiction_id WHERE j.slug = $1 AND c.layer = 'zoning_text'`, [slug]);
    expect(cov.rows[0].held).toBe(true);
    expect(Object.values(cov.rows[0].detail.sources)[0]).toMatchObject({ permissions: code.counts.permissions });
  });
});

test("Worcester's Table 4.1: a bed and breakfast needs a special permit in RS-10, quoted from the PDF", async () => {
  const [p] = await permission('worcester-ma', 'Bed and Breakfast Establishment', 'RS-10');
  expect(p).toMatchObject({ symbol: 'SP', level: 'conditional_use' });
  expect(p.quote).toContain('SP');
});

test("Ray County's Article 60: a detached house is permitted in R-A; a blank cell is a prohibition under 60.1's rule, citing it", async () => {
  const [house] = await permission('ray-county-mo', 'House, Detached', 'R-A');
  expect(house).toMatchObject({ symbol: 'P', level: 'by_right' });
  // 60.1: "A blank cell indicates that a use type is not allowed in the respective zoning district ..."
  const [congregate] = await permission('ray-county-mo', 'Congregate Living', 'R-A');
  expect(congregate).toMatchObject({ level: 'prohibited' });
});
