// The real Somerville Zoning Ordinance: the parser's facts checked against the text itself, and
// the same file through the pipeline into PostGIS, twice (the second run changes nothing).
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { sharedDir } from '../../activities/fetch.ts';
import { parseOrdinance } from '../../ingest/ordinance/index.ts';
import type { OrdinanceParse } from '../../ingest/types.ts';
import type { JurisdictionOutcome } from '../../workflows/logic.ts';
import { type PipelineHarness, pipelineHarness } from '../helpers/pipeline.ts';

const FILE = resolve(sharedDir(), 'real/somerville_ma/somerville-zoning.md');
let parsed: OrdinanceParse;
beforeAll(async () => {
  parsed = await parseOrdinance(readFileSync(FILE), { mediaType: 'text/markdown' });
});

/** The cells of a pipe-table line, as printed. */
const cells = (line: string) => line.trim().replace(/^\||\|$/g, '').split('|').map((c) => c.trim());

describe('the parser on the real ordinance', () => {
  test('886 sections; the districts of Articles 3 to 8, overlays from Article 8', () => {
    expect(parsed.sections).toHaveLength(886);
    const codes = parsed.districts.map((d) => `${d.kind}:${d.code_normalized}`);
    expect(codes).toEqual(expect.arrayContaining(['base:NR', 'base:UR', 'base:MR3', 'base:MR6', 'base:HR', 'base:FAB', 'base:R&D', 'base:CIV', 'base:ASMD', 'overlay:AH', 'overlay:SB', 'overlay:FP', 'overlay:MPD']));
    const nr = parsed.districts.find((d) => d.code_normalized === 'NR');
    expect(nr).toMatchObject({ local_label: 'Neighborhood Residence', section_ref: '3.1', type: 'residential' });
    expect(nr?.purpose).toMatch(/^1\. a\. To permit the development of one-, two-, and three-unit detached/);
  });

  test('Table 9.1.1: every cell read through the printed legend, checked against its own row in the text', () => {
    const rows = parsed.permissions.filter((p) => p.table_ref === 'Table 9.1.1');
    const header = cells(parsed.text.split('\n').find((l) => l.startsWith('| Use Category Specific Use | NR | UR | MR3')) as string);
    const legend: Record<string, string> = { P: 'by_right', SP: 'conditional_use', N: 'prohibited' };
    expect(rows.length).toBeGreaterThan(900);
    for (const p of rows) {
      const printed = cells(p.citation.quote);
      expect(printed[0]).toBe(p.use_label_raw);
      expect(printed[header.indexOf(p.district_code)]).toBe(p.symbol);
      expect(p.level).toBe(legend[p.symbol]);
      expect(parsed.text.slice(p.citation.locator.start, p.citation.locator.end)).toBe(p.citation.quote);
    }
    const alcohol = rows.find((p) => p.use_label_raw === 'Alcohol Sales' && p.district_code === 'MR3');
    expect(alcohol).toMatchObject({ symbol: 'SP', level: 'conditional_use', process: 'Special Permit Required' });
    // "Farming (as noted below)" prints dashes: it states nothing, so no fact
    expect(rows.some((p) => /^Farming/.test(p.use_label_raw))).toBe(false);
    // "Commercial Farming" is printed twice (a principal and an accessory use): two distinct facts
    expect(new Set(rows.filter((p) => p.use_label_raw === 'Commercial Farming' && p.district_code === 'NR').map((p) => p.use_label_normalized)).size).toBe(2);
  });

  test('Table 3.1.16: its numbered columns belong to the NR district; the second is kept apart with its meaning', () => {
    const rows = parsed.permissions.filter((p) => p.table_ref?.startsWith('Table 3.1.16'));
    const vet = rows.filter((p) => p.use_label_raw === 'Veterinarian');
    expect(vet.map((p) => [p.district_code, p.symbol, p.table_ref, p.conditions])).toEqual([
      ['NR', 'N', 'Table 3.1.16', null],
      ['NR', 'SP', 'Table 3.1.16, column 2', 'column 2 of Table 3.1.16'],
    ]);
  });

  test('the rule for unlisted uses is the one tied to Table 9.1.1, quoted exactly', () => {
    expect(parsed.unlisted_uses).toMatchObject({ result: 'prohibited', citation: { quote: 'Use categories not identified on Table 9.1.1 are prohibited.', section_ref: '9.1.1' } });
  });

  test('dimensional panes by building type: min/max pairs, sub-rows by driveway access, bounds and units', () => {
    const cottage = parsed.controls.filter((c) => c.district_code === 'NR' && c.building_type === 'Cottage');
    const get = (type: string, qualifier: string | null = null) => cottage.find((c) => c.control_type === type && c.qualifier === qualifier);
    expect(get('dimensional.setback_front')).toMatchObject({ min: 10, max: 20, unit: 'ft', conditions: '1 See §3.1.14.a Contextual Front Setbacks' });
    expect(get('dimensional.lot_width', 'No Driveway Access')).toMatchObject({ min: 32, max: null, unit: 'ft' });
    expect(get('dimensional.lot_width', 'Front Driveway Access')).toMatchObject({ min: 34, unit: 'ft' });
    expect(get('dimensional.setback_side', 'Front Driveway Access')).toMatchObject({ min: 3, unit: 'ft' });
    expect(get('dimensional.setback_side_sum', 'Front Driveway Access')).toMatchObject({ min: 12, unit: 'ft' });
    expect(get('dimensional.green_score', 'Minimum')).toMatchObject({ min: 0.35 });
    expect(get('dimensional.coverage')).toMatchObject({ max: 60, unit: 'percent' });
    expect(get('dimensional.stories')).toMatchObject({ max: 2, unit: 'stories' });
    expect(get('dimensional.parking_setback_front')).toMatchObject({ min: 20, unit: 'ft' });
    expect(get('dimensional.roof_type')).toMatchObject({ min: null, max: null, value_text: 'Flat, Gable, Mansard' });
    const house = parsed.controls.find((c) => c.district_code === 'NR' && c.building_type === 'Detached House' && c.control_type === 'dimensional.stories');
    expect(house).toMatchObject({ max: 2.5 });
    for (const c of parsed.controls) {
      expect(parsed.text.slice(c.citation.locator.start, c.citation.locator.end)).toBe(c.citation.quote);
      if (c.min !== null) expect(c.citation.quote.replace(/,/g, '')).toContain(String(c.min));
    }
    expect(new Set(parsed.controls.map((c) => c.district_code))).toEqual(expect.objectContaining({ size: expect.any(Number) }));
    expect(new Set(parsed.controls.filter((c) => c.building_type).map((c) => `${c.district_code}/${c.building_type}`)).size).toBeGreaterThan(30);
  });

  test('what it could not read is reported, not dropped silently', () => {
    const codes = new Set(parsed.issues.map((i) => i.code));
    expect(codes.has('legend_inherited')).toBe(true); // Table 7.1.6 prints no legend of its own
    expect(parsed.issues.every((i) => i.detail.length > 0)).toBe(true);
  });
});

describe('through the pipeline', () => {
  let h: PipelineHarness;
  let first: JurisdictionOutcome;
  beforeAll(async () => {
    h = await pipelineHarness('somerville');
    [first] = await h.ingest(['somerville-ma']);
  }, 120_000);
  afterAll(async () => {
    await h.close();
  });

  test('loads sections, districts, permissions and controls with every label mapped or flagged', async () => {
    const s = first.sources.find((x) => x.source === 'zoning-ordinance');
    expect(s).toMatchObject({ state: 'loaded', counts: { sections: 886, districts: parsed.districts.length, permissions: parsed.permissions.length, controls: parsed.controls.length } });
    const { rows } = await h.pool.query(
      `SELECT count(*) FILTER (WHERE use_slug IS NULL AND status = 'stated')::int AS raw, count(DISTINCT use_label_raw) FILTER (WHERE use_slug IS NULL)::int AS labels, count(*) FILTER (WHERE status = 'stated')::int AS n,
              count(*) FILTER (WHERE status = 'withheld' AND level = 'unknown')::int AS silent FROM permission WHERE upper_inf(known)`,
    );
    expect(rows[0].n).toBe(parsed.permissions.length);
    // cells that state nothing are held too (unknown, withheld), never dropped silently
    expect(parsed.indeterminate?.length).toBeGreaterThan(0);
    expect(rows[0].silent).toBe(s?.counts.cells_indeterminate);
    expect(rows[0].silent).toBe(parsed.indeterminate?.length);
    const dash = await h.pool.query(
      `SELECT p.level, p.status, p.symbol, p.conditions, q.quote FROM permission p JOIN citation q ON q.id = p.citation_id JOIN district d ON d.id = p.district_id AND upper_inf(d.known)
        WHERE d.code_normalized = 'NR' AND p.table_ref = 'Table 3.1.16' AND p.use_label_raw = 'Motor Vehicle Parking (as noted below)' AND upper_inf(p.known)`,
    );
    expect(dash.rows).toEqual([{ level: 'unknown', status: 'withheld', symbol: '–', conditions: '"–" is not in the legend', quote: '| Motor Vehicle Parking (as noted below) | – | – |' }]);
    // unmapped labels are kept raw, counted and flagged; most facts map onto the vocabulary
    expect(rows[0].labels).toBe(s?.counts.unmapped_labels);
    expect(rows[0].raw / rows[0].n).toBeLessThan(0.3);
    const c = await h.pool.query(
      `SELECT c.min_value::float AS min, c.max_value::float AS max, c.unit, q.quote FROM control c JOIN citation q ON q.id = c.citation_id
        WHERE c.building_type = 'Cottage' AND c.control_type = 'dimensional.setback_front' AND c.qualifier IS NULL`,
    );
    expect(c.rows).toEqual([{ min: 10, max: 20, unit: 'ft', quote: 'Primary Front Setback 1 (min/max) | 10 ft | 20 ft' }]);
    const unmapped = await h.pool.query(`SELECT detail->'sources'->'zoning-ordinance'->'issues_by_code'->>'label_unmapped' AS n FROM coverage WHERE layer = 'zoning_text'`);
    expect(Number(unmapped.rows[0].n ?? 0)).toBe(s?.counts.unmapped_labels);
  });

  test('a second run fetches the same bytes and writes nothing', async () => {
    const count = async () => (await h.pool.query(`SELECT (SELECT count(*) FROM permission) + (SELECT count(*) FROM control) + (SELECT count(*) FROM section) + (SELECT count(*) FROM change_event) AS n`)).rows[0].n;
    const before = await count();
    const [again] = await h.ingest(['somerville-ma']);
    expect(again.sources.find((x) => x.source === 'zoning-ordinance')).toMatchObject({ state: 'unchanged' });
    expect(await count()).toBe(before);
  });
});
