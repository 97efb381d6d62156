// The real Cambridge rolls through their mappings: counts, rows checked against the CSV text,
// placeholders withheld, unreadable values reported, the stream form equal to the whole-file form.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { sharedDir } from '../../../activities/fetch.ts';
import { parseAssessorRoll, streamAssessorRoll, type RollItem, type RollResult } from '../../../ingest/records/assessor.ts';
import { assessorMapping } from '../../../ingest/records/mappings.ts';
import type { PropertyRow } from '../../../ingest/records/types.ts';

const file = (f: string) => readFileSync(join(sharedDir(), 'real', 'cambridge_ma', f));
/** A line of the file split on commas (only for lines without quoted commas). */
const splitter = (text: string) => {
  const lines = text.split(/\r?\n/);
  return (line: number) => lines[line - 1].split(',').map((c) => c.replace(/^"|"$/g, ''));
};

describe('TaxFY14.csv (27,528 rows, no account column)', () => {
  const bytes = file('TaxFY14.csv');
  const line = splitter(bytes.toString('utf8'));
  let r: RollResult;
  beforeAll(() => {
    r = parseAssessorRoll(bytes, assessorMapping('cambridge_taxfy14'));
  });

  test('every line becomes a row; none rejected; 13,021 map-lot parcel keys plus one blank', () => {
    expect(r.header).toHaveLength(15);
    expect(r.rows).toHaveLength(27_528);
    expect(r.rejected).toEqual([]);
    const keys = new Set(r.rows.map((x) => x.parcel_key));
    expect(keys.size).toBe(13_022);
    expect(keys.has(null)).toBe(true);
    expect(new Set(r.rows.map((x) => x.account_key)).size).toBe(27_528);
    expect(r.rows.every((x) => x.fiscal_year === 2014 && x.account_key_basis === 'derived')).toBe(true);
  });

  test('ML 7-19, 221 MONSIGNOR OBRIEN HWY, field by field against its line', () => {
    const row = r.rows.find((x) => x.parcel_key === '7-19') as PropertyRow;
    const c = line(row.line);
    expect(c[0]).toBe('7-19');
    expect(row.label).toBe(c[1]);
    expect(row.address_keys).toEqual(['221 MONSIGNOR OBRIEN HWY']);
    expect(row.current_use).toEqual({ code: c[2], description: c[3] });
    expect(row.land_area).toEqual({ value: Number(c[4]), unit: 'sq_ft' });
    expect(row.assessment.land_value_cents).toBe(142_680_000);
    expect(row.assessment.land_value_cents).toBe(Number(c[5]) * 100);
    expect(row.assessment.building_value_cents).toBe(Number(c[6]) * 100);
    expect(row.assessment.total_value_cents).toBe(Number(c[7]) * 100);
    const [s] = row.structures;
    expect(s.year_built).toBe(1910);
    expect(s.stories).toBe('3');
    expect(s.style).toBe(c[10]);
    expect(s.gross_area_sq_ft).toBe(Number(c[11]));
    expect(row.sales).toEqual([{ kind: 'transfer', consideration_cents: null, sale_date: '2005-07-05', book: null, page: null, reference_raw: '1379267' }]);
    expect(row.withheld).toEqual([]);
    expect(r.issues.some((i) => i.code === 'book_page_unparsed' && i.locator?.line === row.line)).toBe(true);
  });

  test('"  1377/ 128" splits into book and page; 0 values are withheld, never zero', () => {
    const row = r.rows.find((x) => x.parcel_key === '7-29') as PropertyRow;
    expect(row.sales[0]).toMatchObject({ book: '1377', page: '128', sale_date: '2009-11-24' });
    const lot = r.rows.find((x) => x.parcel_key === '7-18') as PropertyRow; // parking lot, AYBYrBuilt 0
    expect(line(lot.line)[13]).toBe('0');
    expect(lot.assessment.building_value_cents).toBeNull();
    expect(lot.withheld).toContain('assessment.building_value_cents');
    expect(lot.structures).toEqual([]);
    expect(lot.withheld).toContain('structures');
  });

  test('AYBYrBuilt 0 on a row with a building: year_built null and listed as withheld', () => {
    const withZero = r.rows.filter((x) => line(x.line).length === 15 && line(x.line)[13] === '0' && x.structures.length > 0);
    expect(withZero.length).toBeGreaterThan(100);
    for (const x of withZero) {
      expect(x.structures[0].year_built).toBeNull();
      expect(x.withheld).toContain('structures[0].year_built');
    }
  });

  test('1/1/1900 and "/" are placeholders; a negative value and year 1389 are reported, the row kept', () => {
    const none = r.rows.filter((x) => x.withheld.includes('sales'));
    expect(none.length).toBeGreaterThan(1000);
    expect(none.every((x) => x.sales.length === 0)).toBe(true);
    const neg = r.rows.find((x) => x.line === 652) as PropertyRow;
    expect(neg.parcel_key).toBe('17-3');
    expect(neg.assessment.building_value_cents).toBeNull();
    expect(neg.invalid).toEqual(['assessment.building_value_cents', 'assessment.total_value_cents']);
    expect(neg.assessment.land_value_cents).toBe(27_420_000);
    expect(r.issues).toContainEqual(expect.objectContaining({ code: 'value_invalid', locator: { line: 652, column: 'TotalAppraisedImprovements' } }));
    const y = r.issues.find((i) => i.detail.includes('"1389"'));
    expect(y?.locator?.line).toBe(6382);
  });

  test('condominium units sharing map-lot and address get a numbered derived key', () => {
    const units = r.rows.filter((x) => x.account_key.startsWith('21-21|30-32 SCIARAPPA ST|102'));
    expect(units.map((x) => x.account_key)).toEqual([
      '21-21|30-32 SCIARAPPA ST|102',
      '21-21|30-32 SCIARAPPA ST|102#2',
      '21-21|30-32 SCIARAPPA ST|102#3',
      '21-21|30-32 SCIARAPPA ST|102#4',
      '21-21|30-32 SCIARAPPA ST|102#5',
    ]);
    expect(r.issues.filter((i) => i.code === 'account_key_repeated')).toHaveLength(19);
  });
});

describe('ASSESSING_PropertyDatabase_FY2025.csv (1,000 lines, BOM, 61 columns)', () => {
  const bytes = file('ASSESSING_PropertyDatabase_FY2025.csv');
  let r: RollResult;
  beforeAll(() => {
    r = parseAssessorRoll(bytes, assessorMapping('cambridge_fy2025'));
  });

  test('1,000 lines become 966 accounts (buildings folded), 543 parcels, nothing rejected', () => {
    expect(r.header[0]).toBe('PID'); // the BOM is not part of the first column's name
    expect(r.header).toHaveLength(61); // SOURCES.md says 60; the header names 61 (PropertyTaxAmount among them)
    expect(r.rows).toHaveLength(966);
    expect(r.rows.reduce((n, x) => n + x.lines.length, 0)).toBe(1000);
    expect(r.rejected).toEqual([]);
    expect(new Set(r.rows.map((x) => x.parcel_key)).size).toBe(543);
    const multi = r.rows.filter((x) => x.structures.length > 1);
    expect(multi).toHaveLength(31);
    expect(multi.every((x) => x.structures.map((s) => s.building_number).join() === x.lines.map((_, i) => String(i + 1)).join())).toBe(true);
  });

  test('the first row: owner, sale, book/page, tax, condominium keys; blank zoning is null', () => {
    const row = r.rows[0];
    expect(row).toMatchObject({ line: 2, account_key: '189186', parcel_key: '145-29', map_lot: '145-29-4', fiscal_year: 2025, label: '4-6 Kirkland Pl #4' });
    expect(row.address_keys).toEqual(['4 KIRKLAND PL', '6 KIRKLAND PL']);
    expect(row.addresses[0]).toMatchObject({ street_number: '4-6', street_name: 'Kirkland Pl', unit: '4', locality: 'Cambridge', region: 'MA' });
    expect(row.ownership.owners).toEqual(['KAIYUAN WANG AND LIANNAN JIN']);
    expect(row.ownership.mailing_address).toMatchObject({ street_line_1: '4 KIRKLAND PL', locality: 'CAMBRIDGE', region: 'MA', postal_code: '02138' });
    expect(row.sales).toEqual([{ kind: 'sale', consideration_cents: 288_000_000, sale_date: '2016-06-16', book: '140', page: '65', reference_raw: '140/65' }]);
    expect(row.tax).toEqual({ fiscal_year: 2025, amount_cents: 2_034_000 });
    expect(row.assessment).toMatchObject({ building_value_cents: 379_400_000, total_value_cents: 379_400_000, land_value_cents: null, residential_exemption: false, tax_district: 'R5' });
    expect(row.assessor_zoning).toBeNull();
    expect(row.withheld).toEqual(expect.arrayContaining(['assessor_zoning', 'land_area', 'assessment.land_value_cents']));
    expect(row.structures[0]).toMatchObject({ year_built: 1856, stories: '3', living_area_sq_ft: 3069, rooms: 11, bedrooms: 4 });
  });

  test('zoning: blank on 418 lines → null and withheld; stated codes kept as unofficial', () => {
    const blank = r.rows.filter((x) => x.assessor_zoning === null);
    const linesBlank = blank.reduce((n, x) => n + x.lines.length, 0);
    expect(linesBlank).toBe(418);
    expect(blank.every((x) => x.withheld.includes('assessor_zoning'))).toBe(true);
    const stated = r.rows.filter((x) => x.assessor_zoning !== null);
    expect(stated.every((x) => x.assessor_zoning!.official === false)).toBe(true);
    expect(new Set(stated.map((x) => x.assessor_zoning!.code))).toContain('C-1');
  });

  test('placeholders: tax -1.00 and 0.00, sale price 0, SaleDate 1900-01-01 are withheld', () => {
    expect(r.rows.filter((x) => x.tax.amount_cents === null).every((x) => x.withheld.includes('tax.amount_cents'))).toBe(true);
    expect(r.rows.filter((x) => x.tax.amount_cents === null).length).toBe(103);
    expect(r.rows.some((x) => x.sales.some((s) => s.sale_date === '1900-01-01'))).toBe(false);
    expect(r.rows.some((x) => x.sales.some((s) => s.consideration_cents === 0))).toBe(false);
    const nominal = r.rows.filter((x) => x.sales[0]?.consideration_cents === 100);
    expect(nominal.length).toBeGreaterThan(100);
    expect(nominal.every((x) => x.sales[0].kind === 'transfer')).toBe(true);
  });

  test('the stream form yields the same rows, rejections and issues', async () => {
    async function* chunks() {
      for (let i = 0; i < bytes.length; i += 4096) yield bytes.subarray(i, i + 4096);
    }
    const items: RollItem[] = [];
    for await (const it of streamAssessorRoll(chunks(), assessorMapping('cambridge_fy2025'))) items.push(it);
    const rows = items.flatMap((it) => ('row' in it ? [it.row] : []));
    expect(rows).toEqual(r.rows);
    expect(items.flatMap((it) => ('issue' in it ? [it.issue] : []))).toEqual(r.issues);
  });
});
