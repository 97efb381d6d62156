// Dimensional tables read from the grid (issue 13, part 4): districts as rows or as columns,
// two-column tables, ranges and designations of districts, several labelled values in one cell,
// footnote marks, units from labels, sub-tables per use, NA/None as no number, and a number that
// is no standard (a circle's diameter) kept as its own measure. On Chicago 17-2 (text), Worcester's
// Table 4.2 (PDF, four pages), Ray County's 70.1 and district tables (HTML) and small tables written
// for one behaviour each. Expected values are read from the documents (the Chicago text, the
// Worcester pages 47–50, the Ray County HTML), not from the parser's output.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { beforeAll, describe, expect, test } from 'vitest';
import { sharedDir } from '../../activities/fetch.ts';
import { codeKey } from '../../ingest/district-codes.ts';
import { settlePrecedence } from '../../ingest/ordinance/dimension-precedence.ts';
import { readDimensionTable } from '../../ingest/ordinance/dimensions.ts';
import { readDocument } from '../../ingest/ordinance/document.ts';
import { parseOrdinance } from '../../ingest/ordinance/index.ts';
import { columnHeads, type DocLayout, type Grid } from '../../ingest/ordinance/model.ts';
import { buildSections, sectionAt } from '../../ingest/ordinance/sections.ts';
import { gridToTable } from '../../ingest/ordinance/tables.ts';
import { Citer, OffsetIndex } from '../../ingest/ordinance/text.ts';
import type { ControlRecord, ParseIssue } from '../../ingest/types.ts';
import { makeLayoutPdf } from '../helpers/pdf.ts';

const real = (p: string) => readFileSync(resolve(sharedDir(), 'real', p));
const md = (s: string) => new TextEncoder().encode(s);

interface Read {
  doc: DocLayout;
  controls: ControlRecord[];
  issues: ParseIssue[];
}

/**
 * Every table of a document through the dimension reader, with the district codes the
 * jurisdiction holds (as parseOrdinance passes them) and, where given, the district a section is in.
 */
async function readTables(b: Uint8Array, mediaType: string, known: string[], around: (ref: string | null) => string | null = () => null): Promise<Read> {
  const issues: ParseIssue[] = [];
  const doc = await readDocument(b, mediaType, issues);
  const citer = new Citer(doc.text, doc.pageStarts ? new OffsetIndex(doc.pageStarts) : null);
  const nodes = buildSections(doc.text, doc.headings, citer, issues);
  const controls: ControlRecord[] = [];
  for (const grid of doc.tables) {
    const node = sectionAt(nodes, grid.start);
    const section = node ? { ref: node.record.ref, heading: node.record.heading } : null;
    controls.push(...readDimensionTable({ table: gridToTable(grid), grid, hints: {}, citer, section, known: new Set(known), around: around(section?.ref ?? null), buildingType: null, issues }));
  }
  return { doc, controls, issues };
}

/** A district's controls of one type, its code compared however it is written (S&O = S & O). */
const pick = (cs: ControlRecord[], code: string, type: string, context: Partial<Pick<ControlRecord, 'building_type' | 'qualifier'>> = {}) =>
  cs.filter((c) => codeKey(c.district_code) === codeKey(code) && c.control_type === type && Object.entries(context).every(([k, v]) => c[k as keyof ControlRecord] === v));
const value = (c: ControlRecord | undefined) => c && { min: c.min, max: c.max, unit: c.unit, value_text: c.value_text };

/** Every fact quotes the retained text at its citation, and names its table. */
function citesVerbatim(text: string, cs: ControlRecord[]) {
  expect(cs.length).toBeGreaterThan(0);
  for (const c of cs) {
    expect(text.slice(c.citation.locator.start, c.citation.locator.end)).toBe(c.citation.quote);
    expect(c.citation.quote.length).toBeGreaterThan(0);
    expect(c.table_ref).toBeTruthy();
  }
}

// Chapter 17-2 lists its districts in this order (17-2-0102 … 17-2-0104, and the columns of the 17-2-0207 use table)
const CHICAGO = ['RS1', 'RS2', 'RS3', 'RT3.5', 'RT4', 'RM4.5', 'RM5', 'RM5.5', 'RM6', 'RM6.5'];

describe('Chicago 17-2 (text captured from the publisher): district tables', () => {
  const file = real('chicago_il/chapter_17-02.txt');
  let held: Read;
  let bare: Read;
  let withMap: Read;
  beforeAll(async () => {
    held = await readTables(file, 'text/plain', CHICAGO);
    bare = await readTables(file, 'text/plain', []);
    // the jurisdiction's map holds the business and commercial classes the townhouse tables name by designation
    const map = JSON.parse(gunzipSync(real('chicago_il/chicago-zoning-2024-10-21-simple.geojson.gz')).toString('utf8')) as { features: Array<{ properties: { zone_class: string } }> };
    const classes = [...new Set(map.features.map((f) => f.properties.zone_class))].filter((c) => /^[BC]\d-/.test(c)).sort();
    withMap = await readTables(file, 'text/plain', [...CHICAGO, ...classes]);
  }, 120_000);

  test('two columns, District | measure: the unit from the header "(square feet)", a range "RT4 to RM6.5" over the known codes in order', () => {
    const area = held.controls.filter((c) => c.control_type === 'dimensional.lot_area');
    expect(area.map((c) => [c.district_code, c.min, c.max, c.unit])).toEqual([
      ['RS1', 6250, null, 'sq_ft'],
      ['RS2', 5000, null, 'sq_ft'],
      ['RS3', 2500, null, 'sq_ft'],
      ['RT3.5', 2500, null, 'sq_ft'],
      ...['RT4', 'RM4.5', 'RM5', 'RM5.5', 'RM6', 'RM6.5'].map((d) => [d, 1650, null, 'sq_ft']),
    ]);
    // the range's six facts cite the one cell that states them
    expect(new Set(area.slice(4).map((c) => c.citation.quote))).toEqual(new Set(['1,650']));
    expect(area[4].citation.locator).toMatchObject({ section: '17-2-0301-A', row: 'RT4 to RM6.5', column: 'Minimum Lot Area* (square feet)' });
  });

  test('codes read from the table itself when none are held; a range they cannot order is reported, not guessed', () => {
    const area = bare.controls.filter((c) => c.control_type === 'dimensional.lot_area');
    expect(area.map((c) => c.district_code)).toEqual(['RS1', 'RS2', 'RS3', 'RT3.5']);
    expect(bare.issues.find((i) => i.code === 'district_unresolved' && i.detail.includes('RT4 to RM6.5'))).toBeTruthy();
  });

  test('several labelled values in one cell, and labels over labels ("Principal residential buildings:" over "Lot Frontage of …")', () => {
    const perUnit = (q: string) => value(pick(held.controls, 'RM6', 'dimensional.lot_area_per_unit', { qualifier: q })[0]);
    expect(perUnit('Dwelling units')).toEqual({ min: 300, max: null, unit: 'sq_ft', value_text: 'Dwelling units: 300' });
    expect(perUnit('Efficiency units')).toMatchObject({ min: 135 });
    expect(perUnit('SRO units')).toMatchObject({ min: 135 });
    const height = (d: string) => pick(held.controls, d, 'dimensional.height').map((c) => [c.building_type, c.qualifier, c.max, c.unit]);
    expect(height('RM5.5')).toEqual([
      ['Principal residential buildings', 'Lot Frontage of 75 feet or less', 47, 'ft'],
      ['Principal residential buildings', 'Lot Frontage of more than 75 feet', 60, 'ft'],
      ['Principal nonresidential buildings', null, null, null],
    ]);
    expect(height('RT4')).toEqual([
      ['Principal residential buildings', null, 38, 'ft'],
      ['Principal nonresidential buildings', null, null, null],
    ]);
    // "None (…)": no limit stated, no number; what it says beside it is a condition
    const rm6 = pick(held.controls, 'RM6', 'dimensional.height', { building_type: 'Principal residential buildings' })[0];
    expect(rm6).toMatchObject({ min: null, max: null, value_text: expect.stringMatching(/^Principal residential buildings: None \(tall buildings/), conditions: expect.stringContaining('Planned Development approval') });
  });

  test('a circle’s diameter is its own measure, never a rear setback; two values in one cell take the two units the header lists', () => {
    const table = held.controls.filter((c) => c.citation.locator.section === '17-2-0307');
    expect(table.filter((c) => /setback/.test(c.control_type))).toEqual([]);
    expect(held.controls.filter((c) => c.control_type === 'dimensional.setback_rear')).toEqual([]);
    expect(pick(table, 'RS1', 'dimensional.rear_yard_open_space_diameter').map(value)).toEqual([{ min: 20, max: null, unit: 'ft', value_text: '20' }]);
    expect(pick(table, 'RM5', 'dimensional.rear_yard_open_space_diameter').map(value)).toEqual([{ min: 10, max: null, unit: 'ft', value_text: '10' }]);
    // "400/6.5" under "(square feet per dwelling unit/% of lot area, whichever is greater)"
    expect(pick(table, 'RS1', 'dimensional.rear_yard_open_space_per_unit')[0]).toMatchObject({ min: 400, unit: 'sq_ft', conditions: 'whichever is greater' });
    expect(pick(table, 'RS1', 'dimensional.rear_yard_open_space')[0]).toMatchObject({ min: 6.5, unit: 'percent' });
    expect(pick(table, 'RM5', 'dimensional.rear_yard_open_space')[0]).toMatchObject({ min: 5.25, unit: 'percent' });
    expect(table).toHaveLength(7 * 3);
  });

  test('a figure with words beside it keeps the figure and the words as conditions; the note under the table answers its mark', () => {
    expect(pick(held.controls, 'RT4', 'dimensional.far')[0]).toMatchObject({ max: 1.2, unit: 'ratio', conditions: expect.stringContaining('See accessible dwelling unit exceptions, Sec. 17-2-0304-B') });
    expect(pick(held.controls, 'RM6', 'dimensional.far')[0]).toMatchObject({ max: 4.4, conditions: expect.stringContaining('premium may apply - See Sec. 17-2-0304-C') });
    expect(pick(held.controls, 'RS3', 'dimensional.lot_area_per_unit')[0]).toMatchObject({ min: 2500, conditions: expect.stringContaining('except as expressly allowed in Sec. 17-2-0303-B') });
    // "Minimum Lot Area*" and, under the table, "(*See Sec. 17-17-0302 for rules governing the measurement of lot area.)"
    expect(pick(held.controls, 'RS1', 'dimensional.lot_area')[0].conditions).toBe('See Sec. 17-17-0302 for rules governing the measurement of lot area');
    expect(pick(held.controls, 'RM6.5', 'dimensional.efficiency_units')[0]).toMatchObject({ max: 40, unit: 'percent' });
  });

  test('families and designations: "B/C dash 1" is every B and C class ending in -1; "All other R districts" the R districts not named', () => {
    const wall = withMap.controls.filter((c) => c.citation.locator.section === '17-2-0500-H' && c.control_type === 'dimensional.contiguous_area');
    const dash1 = wall.filter((c) => c.citation.locator.row === 'B/C dash 1').map((c) => c.district_code);
    expect(dash1).toEqual(['B1-1', 'B2-1', 'B3-1', 'C1-1', 'C2-1', 'C3-1']);
    expect(wall.filter((c) => c.citation.locator.row === 'B/C dash 1.5').map((c) => c.district_code)).toEqual(['B1-1.5', 'B2-1.5', 'B3-1.5', 'C1-1.5']);
    expect(pick(wall, 'C3-5', 'dimensional.contiguous_area')[0]).toMatchObject({ min: 175, unit: 'sq_ft', value_text: '175' });
    const separation = withMap.controls.filter((c) => c.citation.locator.section === '17-2-0310-C');
    expect(separation.map((c) => [c.district_code, c.min])).toEqual([
      ['RT3.5', 30],
      ['RT4', 30],
      ['RM4.5', 30],
      ...['RS1', 'RS2', 'RS3', 'RM5', 'RM5.5', 'RM6', 'RM6.5'].map((d) => [d, 26]),
    ]);
    expect(separation[0].control_type).toBe('dimensional.building_separation');
  });

  test('every fact cites its cell verbatim in the retained text', () => {
    citesVerbatim(held.doc.text, held.controls);
    expect(pick(held.controls, 'RT4', 'dimensional.lot_area_per_unit', { qualifier: 'SRO units' })[0].citation.quote).toBe('SRO units: 500');
  });
});

describe('Worcester (PDF): Table 4.2 read from the borders its pages draw', () => {
  let doc: DocLayout;
  let controls: ControlRecord[];
  let g: Grid;
  const row = (label: string) => g.rows.find((r) => r.cells[0].text === label);
  const texts = (label: string) => {
    const r = row(label);
    return r ? r.cells.filter((c, i) => r.cells.indexOf(c) === i).map((c) => c.text) : null;
  };
  beforeAll(async () => {
    const b = real('worcester_ma/worcester-zoning-ordinance.pdf');
    const parse = await parseOrdinance(b, { mediaType: 'application/pdf' });
    doc = await readDocument(b, 'application/pdf', []);
    g = doc.tables.find((t) => t.ref === 'TABLE 4. 2') as Grid;
    controls = parse.controls.filter((c) => c.table_ref === 'TABLE 4. 2');
  }, 240_000);

  test('one table over pages 47 to 50, its header whole, every value in its column', () => {
    expect(new Set(g.rows.map((r) => r.page))).toEqual(new Set([47, 48, 49, 50]));
    expect(g.width).toBe(10);
    expect(columnHeads(g).map((h) => h.join(' '))).toEqual([
      'DISTRICT',
      'USE',
      'LOT AREA (Minimum SF)',
      'LOT FRONTAGE (Minimum linear ft.)',
      'YARD SETBACKS FRONT Minimum depth (linear ft.)',
      'YARD SETBACKS SIDE1 Minimum depth (linear ft.)',
      'YARD SETBACKS REAR Minimum depth (linear ft.)',
      'HEIGHT Maximum in stories2',
      'HEIGHT Maximum in ft.',
      'FLOOR TO AREA RATIO (Maximum)',
    ]);
    expect(g.rows.filter((r) => r.header)).toHaveLength(3);
    // page 49: one use cell lists two uses, the lot cells one value for each; rear setbacks merged over BG-3.0 … BG-6.0
    expect(texts('BL-1.0')).toEqual(['BL-1.0', 'Residential 3 . Non-residential', '5,000 NA', '40 per du 4 NA', '10', '10', '20', '3+', '40', '1 to 1']);
    expect(row('BG-3.0')?.cells[6]).toBe(row('BG-6.0')?.cells[6]);
    expect(row('BG-6.0')?.cells[6].text).toBe('10');
    // page 50: ML-0.5 … ML-2.0 share their use, lot and side cells; front 25 / 10 / 10, rear 25 / 15 / 25
    expect(['ML-0.5', 'ML-1.0', 'ML-2.0'].map((d) => [row(d)?.cells[4].text, row(d)?.cells[6].text, row(d)?.cells[8].text, row(d)?.cells[9].text])).toEqual([
      ['25', '25', '50', '0.5 to 1'],
      ['10', '15', '50', '1 to 1'],
      ['10', '25', 'NA', '2 to 1'],
    ]);
    expect(row('ML-0.5')?.cells[5]).toBe(row('ML-2.0')?.cells[5]);
    // page 48: the district printed once as "RL-7 Cont.", its three last uses sharing one frontage cell
    expect(g.rows.filter((r) => r.cells[0].text === 'RL-7 Cont.').map((r) => r.cells[1].text)).toEqual([
      'Multi-family dwelling, low rise - first unit',
      'MFD, additional unit, low rise',
      'Limited Residential Hospice House',
      'Other residential permitted',
      'Other non-residential',
    ]);
  });

  test('a merged cell covers every row it spans: RS-10’s heights are printed once for its three uses', () => {
    const rs10 = g.rows.filter((r) => r.cells[0].text === 'RS-10');
    expect(rs10.map((r) => r.cells[1].text)).toEqual(['Single-family detached', 'Limited Residential Hospice House', 'Other permitted']);
    expect(rs10.map((r) => [r.cells[7].text, r.cells[8].text])).toEqual([
      ['2+', '35'],
      ['2+', '35'],
      ['2+', '35'],
    ]);
    expect(rs10[0].cells[4]).toBe(rs10[1].cells[4]);
    expect(rs10[2].cells.slice(2).map((c) => c.text)).toEqual(['10,000', '80', '25', '20', '50', '2+', '35', '0.3 to 1']);
  });

  test('facts per district and use: the use column is the building type; NA is no number; "per du" and "to 1" read', () => {
    const at = (d: string, type: string, bt: string | null) => value(pick(controls, d, type, { building_type: bt })[0]);
    for (const bt of ['Single-family detached', 'Limited Residential Hospice House', 'Other permitted']) expect(at('RS-10', 'dimensional.stories', bt)).toEqual({ min: null, max: 2, unit: 'stories', value_text: '2+' });
    expect(at('RS-10', 'dimensional.far', 'Other permitted')).toEqual({ min: null, max: 0.3, unit: 'ratio', value_text: '0.3 to 1' });
    expect(at('RS-10', 'dimensional.far', 'Single-family detached')).toEqual({ min: null, max: null, unit: null, value_text: 'NA' });
    expect(at('BG-2.0', 'dimensional.lot_area', 'Residential')).toEqual({ min: 5000, max: null, unit: 'sq_ft', value_text: '5,000' });
    expect(at('BG-2.0', 'dimensional.lot_area', 'Non-residential')).toEqual({ min: null, max: null, unit: null, value_text: 'NA' });
    expect(at('BG-4.0', 'dimensional.lot_width_per_unit', 'Residential')).toMatchObject({ min: 40, unit: 'ft' });
    expect(at('RL-7', 'dimensional.lot_area_per_unit', 'Single-family semi-detached')).toMatchObject({ min: 4000, unit: 'sq_ft' });
    // "All": one use, no building type; the page's footnotes answer the marks of SIDE¹ and stories²
    expect(at('ML-1.0', 'dimensional.setback_front', null)).toMatchObject({ min: 10, unit: 'ft' });
    expect(pick(controls, 'ML-1.0', 'dimensional.setback_side')[0]).toMatchObject({ value_text: 'NA', conditions: expect.stringMatching(/^Not applicable to that portion of a semi-detached/) });
    expect(pick(controls, 'BG-2.0', 'dimensional.lot_width_per_unit')[0].conditions).toContain('But not more than two hundred (200) feet');
    expect(pick(controls, 'A-1', 'dimensional.setback_rear')[0]).toMatchObject({ min: 10, unit: 'ft' });
    expect(new Set(controls.map((c) => c.district_code))).toEqual(
      new Set(['RS-10', 'RS-7', 'RL-7', 'RG-5', 'BO-1.0', 'BO-2.0', 'BL-1.0', 'BG-2.0', 'BG-3.0', 'BG-4.0', 'BG-6.0', 'IP-0.33', 'ML-0.5', 'ML-1.0', 'ML-2.0', 'MG-0.5', 'MG-1.0', 'MG-2.0', 'IN-S', 'IN-H', 'A-1']),
    );
    citesVerbatim(doc.text, controls);
    expect(pick(controls, 'BG-2.0', 'dimensional.lot_area', { building_type: 'Non-residential' })[0].citation.locator.page).toBe(49);
  });
});

describe('Ray County (HTML): the 70.1 table and the district sections’ own tables', () => {
  const file = real('ray_county_mo/ray-county-zoning-2005.html');
  let controls: ControlRecord[];
  let sections: Read;
  beforeAll(async () => {
    controls = (await parseOrdinance(file, { mediaType: 'text/html' })).controls;
    // 40.3 is the R-A district's section, 40.11 B-1's
    sections = await readTables(file, 'text/html', [], (ref) => (ref?.startsWith('40.3') ? 'R-A' : ref?.startsWith('40.11') ? 'B-1' : null));
  }, 120_000);

  test('districts as columns: group rows over their sub-rows, one value for two setbacks, two values for two kinds of building', () => {
    const t = controls.filter((c) => c.citation.locator.section === '70.1');
    expect(value(pick(t, 'R-A', 'dimensional.lot_area', { qualifier: 'House' })[0])).toEqual({ min: 19, max: null, unit: 'acres', value_text: '19 Ac.' });
    expect(value(pick(t, 'R-2', 'dimensional.lot_area', { qualifier: 'Duplex' })[0])).toEqual({ min: 12000, max: null, unit: 'sq_ft', value_text: '12,000' });
    expect(pick(t, 'R-3', 'dimensional.lot_area', { qualifier: 'Multi-Unit' })[0].conditions).toMatch(/^For first dwelling unit; plus 4,300 square feet for each additional unit/);
    expect(value(pick(t, 'B-1', 'dimensional.lot_area', { qualifier: 'House' })[0])).toEqual({ min: null, max: null, unit: null, value_text: 'N/A' });
    expect(pick(t, 'I-2', 'dimensional.setback_front')[0]).toMatchObject({ min: 50, unit: 'ft' });
    expect(pick(t, 'I-2', 'dimensional.setback_street_side')[0]).toMatchObject({ min: 50, unit: 'ft', citation: { quote: '50' } });
    expect(pick(t, 'R-1B', 'dimensional.setback_side')[0]).toMatchObject({ min: 10, qualifier: null });
    expect(pick(t, 'R-3', 'dimensional.height').map((c) => [c.qualifier, c.max])).toEqual([
      ['Principal', 40],
      ['Access', 20],
    ]);
    expect(pick(t, 'R-3', 'dimensional.height')[0].conditions).toBe('No height limit for farm structures unless regulated by airport height regulations');
    expect(value(pick(t, 'S&O', 'dimensional.living_area', { qualifier: '1-Story' })[0])).toEqual({ min: 1000, max: null, unit: 'sq_ft', value_text: '1,000' });
    expect(pick(t, 'S&O', 'dimensional.coverage')[0]).toMatchObject({ max: 60, unit: 'percent' });
    expect(pick(t, 'B-1', 'dimensional.floor_area')[0]).toMatchObject({ max: 30000, unit: 'sq_ft' });
    expect(new Set(t.map((c) => codeKey(c.district_code))).size).toBe(11);
  });

  test('70.1 says it controls over 40.3 … 40.15 in a conflict: where it states a measure for a district, the sections’ statement of it is left out, and reported', async () => {
    const parse = await parseOrdinance(file, { mediaType: 'text/html' });
    const settled = parse.controls; // the parser gives the controlling table precedence
    // 40.8 gives R-3 a rear setback of 35 feet, 70.1 one of 25: only 70.1's is held
    const rear = (cs: ControlRecord[]) => pick(cs, 'R-3', 'dimensional.setback_rear').map((c) => [c.citation.locator.section, c.min]);
    expect(rear(settled)).toEqual([['70.1', 25]]);
    expect(parse.issues.filter((i) => i.code === 'control_superseded')).toEqual([expect.objectContaining({ code: 'control_superseded', locator: expect.objectContaining({ table: '§ 70.1' }) })]);
    // what 70.1 does not state stays: B-1's density (40.11)
    expect(settled.filter((c) => c.citation.locator.section?.startsWith('40.')).every((c) => !pick(settled, c.district_code, c.control_type).some((x) => x.citation.locator.section === '70.1'))).toBe(true);
    // settling again changes nothing
    const issues: ParseIssue[] = [];
    expect(settlePrecedence(settled, parse.text, issues)).toEqual(settled);
    expect(issues).toEqual([]);
  });

  test('a label | value table inside a district’s section speaks for that district; a label with no value opens its sub-rows', () => {
    const ra = sections.controls.filter((c) => c.citation.locator.section?.startsWith('40.3'));
    expect(pick(ra, 'R-A', 'dimensional.lot_area')[0]).toMatchObject({ min: 19, unit: 'acres', value_text: '19 acres' });
    expect(pick(ra, 'R-A', 'dimensional.setback_front')[0]).toMatchObject({ min: 50, unit: 'ft' });
    expect(pick(ra, 'R-A', 'dimensional.setback_street_side')[0]).toMatchObject({ min: 50, unit: 'ft' });
    expect(pick(ra, 'R-A', 'dimensional.height').map((c) => [c.qualifier, c.max, c.value_text])).toEqual([
      ['Principal structures', 40, '40 feet'],
      ['Farm structures', null, 'No limit'],
      ['Non-farm accessory structures (e.g. garages)', 30, '30 feet'],
    ]);
    // B-1: "Maximum building height (principal/accessory) | 40/40 feet", "… density | 10 units per acre"
    const b1 = sections.controls.filter((c) => c.citation.locator.section?.startsWith('40.11'));
    expect(pick(b1, 'B-1', 'dimensional.height').map((c) => [c.qualifier, c.max, c.unit])).toEqual([
      ['principal', 40, 'ft'],
      ['accessory', 40, 'ft'],
    ]);
    expect(b1.find((c) => c.unit === 'units_per_acre')).toMatchObject({ max: 10, value_text: '10 units per acre' });
  });
});

describe('small tables, one behaviour each', () => {
  const code = (table: string) => `# Zoning\n\n## 1 Districts\n\nThe districts are set out below.\n\n## 2 Dimensions\n\n${table}\n`;

  test('districts as rows named by their shape under a "District" header; units from the labels; NA, None and a dash give no number; "35 ft / 3 stories" is two measures', async () => {
    const t = `Table 2.1 Dimensional Standards\n\n| District | Min. Lot Width (ft.) | Max. Height | Min. Lot Area (square feet) |\n| --- | --- | --- | --- |\n| RA-1 | 100 | 35 ft / 3 stories | 20,000 |\n| RB-2 | NA | None | – |\n`;
    const r = await parseOrdinance(md(code(t)), { mediaType: 'text/markdown' });
    expect(r.controls.map((c) => [c.district_code, c.control_type, c.min, c.max, c.unit, c.value_text])).toEqual([
      ['RA-1', 'dimensional.lot_width', 100, null, 'ft', '100'],
      ['RA-1', 'dimensional.height', null, 35, 'ft', '35 ft / 3 stories'],
      ['RA-1', 'dimensional.stories', null, 3, 'stories', '35 ft / 3 stories'],
      ['RA-1', 'dimensional.lot_area', 20000, null, 'sq_ft', '20,000'],
      ['RB-2', 'dimensional.lot_width', null, null, null, 'NA'],
      ['RB-2', 'dimensional.height', null, null, null, 'None'],
      ['RB-2', 'dimensional.lot_area', null, null, null, '–'],
    ]);
    expect(r.controls.every((c) => c.table_ref === 'Table 2.1')).toBe(true);
  });

  test('per-use sub-tables: a row naming uses gives the building type of the rows below it; footnote marks in brackets', async () => {
    const t =
      'Table 2.2 Lot and Yard Requirements\n\n| | R-1 | R-2 |\n| --- | --- | --- |\n| Residential uses | | |\n| Minimum lot area (sq. ft.) | 10,000 [1] | 6,000 |\n| Minimum front setback (ft.) | 25 | 20 |\n| Other uses | | |\n| Minimum lot area (sq. ft.) | 20,000 | 20,000 |\n\n[1] 8,000 where public sewer serves the lot.\n';
    const r = await parseOrdinance(md(code(t)), { mediaType: 'text/markdown' });
    expect(r.controls.map((c) => [c.district_code, c.control_type, c.building_type, c.min, c.unit])).toEqual([
      ['R-1', 'dimensional.lot_area', 'Residential uses', 10000, 'sq_ft'],
      ['R-2', 'dimensional.lot_area', 'Residential uses', 6000, 'sq_ft'],
      ['R-1', 'dimensional.setback_front', 'Residential uses', 25, 'ft'],
      ['R-2', 'dimensional.setback_front', 'Residential uses', 20, 'ft'],
      ['R-1', 'dimensional.lot_area', 'Other uses', 20000, 'sq_ft'],
      ['R-2', 'dimensional.lot_area', 'Other uses', 20000, 'sq_ft'],
    ]);
    expect(r.controls[0].conditions).toBe('8,000 where public sewer serves the lot');
  });

  test('a designation ("Dash 3") applies to every known district carrying it', async () => {
    const t = '| District | Maximum Height (feet) |\n| --- | --- |\n| Dash 3 | 65 |\n| B1-5 | 80 |\n';
    const r = await readTables(md(code(t)), 'text/markdown', ['B1-1', 'B1-3', 'B2-3', 'C1-3', 'B1-5']);
    expect(r.controls.map((c) => [c.district_code, c.max])).toEqual([
      ['B1-3', 65],
      ['B2-3', 65],
      ['C1-3', 65],
      ['B1-5', 80],
    ]);
  });

  test('a dimensional table that names no district is reported as table_unread, naming its section and table', async () => {
    const t = 'Table 2.3 Dimensional Requirements\n\n| Standard | Value |\n| --- | --- |\n| Minimum lot area | 5,000 sq ft |\n| Minimum front setback | 20 ft |\n';
    const r = await parseOrdinance(md(code(t)), { mediaType: 'text/markdown' });
    expect(r.controls).toEqual([]);
    expect(r.issues.filter((i) => i.code === 'table_unread')).toEqual([expect.objectContaining({ severity: 'warning', locator: { section: '2', table: 'Table 2.3' } })]);
  });
});

describe('a PDF table with drawn borders', () => {
  // columns at x 72 | 172 | 272 | 372; rows at y 500 | 480 | 460 | 440 | 420 | 400 (from the bottom);
  // the height column prints "35" once for R-1, R-2 and R-3, on R-2's line, where no border separates them:
  // text alignment alone would give it to R-2 only
  const texts: Array<[number, number, string]> = [
    [72, 740, '1 Dimensional Standards'],
    [80, 486, 'District'],
    [180, 486, 'Lot Area (sq ft)'],
    [280, 486, 'Height (ft)'],
    [80, 466, 'R-1'],
    [180, 466, '10,000'],
    [80, 446, 'R-2'],
    [180, 446, '8,000'],
    [300, 446, '35'],
    [80, 426, 'R-3'],
    [180, 426, '7,000'],
    [80, 406, 'R-4'],
    [180, 406, '6,000'],
    [300, 406, '40'],
  ];
  const across = (y: number, x0 = 72, x1 = 372) => `${x0} ${y - 0.25} ${x1 - x0} 0.5 re f`;
  const down = (x: number) => `${x - 0.25} 400 0.5 100 re f`;
  // borders as thin filled rectangles, as Word draws them; those under stop short of the height column
  const filled = ['0 0 0 rg', across(500), across(480), across(460, 72, 272), across(440, 72, 272), across(420), across(400), down(72), down(172), down(272), down(372)].join('\n');
  // the same borders stroked as lines
  const line = (x0: number, y0: number, x1: number, y1: number) => `${x0} ${y0} m ${x1} ${y1} l S`;
  const stroked = ['0 0 0 RG 0.5 w', line(72, 500, 372, 500), line(72, 480, 372, 480), line(72, 460, 272, 460), line(72, 440, 272, 440), line(72, 420, 372, 420), line(72, 400, 372, 400), ...[72, 172, 272, 372].map((x) => line(x, 400, x, 500))].join('\n');

  test.each([
    ['filled', filled],
    ['stroked', stroked],
  ])('a value printed once beside rows no border separates is a merged cell over them (borders %s)', async (_, drawing) => {
    const b = makeLayoutPdf([texts], 10, [drawing]);
    const doc = await readDocument(b, 'application/pdf', []);
    const g = doc.tables[0];
    expect(g.rows.map((r) => r.cells.map((c) => c.text))).toEqual([
      ['District', 'Lot Area (sq ft)', 'Height (ft)'],
      ['R-1', '10,000', '35'],
      ['R-2', '8,000', '35'],
      ['R-3', '7,000', '35'],
      ['R-4', '6,000', '40'],
    ]);
    expect(g.rows[1].cells[2]).toBe(g.rows[3].cells[2]);
    expect(g.rows[1].cells[2].rowspan).toBe(3);
    expect(g.rows[0].header).toBe(true);
    const r = await parseOrdinance(b, { mediaType: 'application/pdf' });
    expect(r.controls.filter((c) => c.control_type === 'dimensional.height').map((c) => [c.district_code, c.max, c.citation.quote])).toEqual([
      ['R-1', 35, '35'],
      ['R-2', 35, '35'],
      ['R-3', 35, '35'],
      ['R-4', 40, '40'],
    ]);
  });
});

describe('Somerville: a step-back is its own measure, the story it applies to its qualifier', () => {
  test('MR5 General Building: "Step-Back , 5 th Story (min) 10 ft"', async () => {
    const r = await parseOrdinance(real('somerville_ma/somerville-zoning.md'), { mediaType: 'text/markdown' });
    expect(pick(r.controls, 'MR5', 'dimensional.step_back', { building_type: 'General Building' }).map((c) => [c.qualifier, c.min, c.unit])).toEqual([['5 th Story', 10, 'ft']]);
    expect(r.controls.some((c) => /step_back_/.test(c.control_type))).toBe(false);
  }, 60_000);
});
