// The ordinance parser on small inputs made to show one behaviour each: a PDF's text layer and a
// PDF without one, a table whose rows do not match its header, marks its legend does not explain,
// and a legend printed after the table.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, test } from 'vitest';
import { parseOrdinance } from '../../ingest/ordinance/index.ts';
import { makePdf } from '../helpers/pdf.ts';

const md = (s: string) => new TextEncoder().encode(s);
const FIXTURE = resolve(import.meta.dirname, '../fixtures/synthetic-town');

describe('formats', () => {
  test('a PDF text layer: numbered headings become sections, quotes carry their page', async () => {
    const bytes = makePdf([
      ['Section 1. General', '1.1 Title', 'This ordinance is the Zoning Ordinance of the Town.'],
      ['Section 2. Districts', '2.1 Zoning Map', 'The Town is divided into districts as shown on the Zoning Map.'],
    ]);
    const natives = [JSON.stringify, JSON.parse, Array.prototype.push];
    const r = await parseOrdinance(bytes, { mediaType: 'application/pdf' });
    // reading a PDF leaves the process's own JSON and push in place (pdf.js polyfills them)
    expect([JSON.stringify, JSON.parse, Array.prototype.push]).toEqual(natives);
    expect(r.issues.filter((i) => i.severity === 'error')).toEqual([]);
    expect(r.sections.map((s) => [s.ref, s.heading])).toEqual([
      ['1', 'General'],
      ['1.1', 'Title'],
      ['2', 'Districts'],
      ['2.1', 'Zoning Map'],
    ]);
    const s12 = r.sections[3];
    expect(s12.body).toBe('The Town is divided into districts as shown on the Zoning Map.');
    expect(s12.citation.locator.page).toBe(2);
    expect(r.text.slice(s12.citation.locator.start, s12.citation.locator.end)).toBe(s12.citation.quote);
  });

  test('a PDF with no text layer is reported as an error, with nothing read from it', async () => {
    const r = await parseOrdinance(makePdf([null, null]), { mediaType: 'application/pdf' });
    expect(r.issues).toEqual([expect.objectContaining({ severity: 'error', code: 'pdf_no_text_layer' })]);
    expect(r.sections).toEqual([]);
    expect(r.permissions).toEqual([]);
  });

  test('bytes that are not a PDF are reported, not thrown', async () => {
    const r = await parseOrdinance(md('this is not a pdf'), { mediaType: 'application/pdf' });
    expect(r.issues.map((i) => i.code)).toEqual(['pdf_unreadable']);
  });

  test('the HTML town code reads as the same text it quotes', async () => {
    const r = await parseOrdinance(readFileSync(resolve(FIXTURE, 'v1/code/zoning.html')), { mediaType: 'text/html' });
    expect(r.districts.map((d) => d.code_raw)).toEqual(['R-1', 'R-2', 'VC', 'I-1']);
    expect(r.permissions).toHaveLength(48);
    expect(r.controls).toHaveLength(36);
    expect(r.text).toContain('| Single-family dwelling | P | P | SP | N |');
    for (const f of [...r.permissions, ...r.controls]) expect(r.text.slice(f.citation.locator.start, f.citation.locator.end)).toBe(f.citation.quote);
  });
});

const CODE = `# Zoning Code

## 1 Districts

### 1.1 Residential District (R)

Homes.

### 1.2 Business District (B)

Shops.

## 2 Uses

Table 2.1 Uses

| Use | R | B |
| --- | --- | --- |
| Dwelling | P | N |
| Shop | N | P | X |
| Kennel | Z | SP |
| Bakery | SP |

Legend: P = Permitted. SP = Special permit required. N = Not permitted.

Uses not listed in Table 2.1 are prohibited.
`;

describe('tables', () => {
  test('a legend printed after the table is used; a row with extra cells is reported and read for nothing', async () => {
    const r = await parseOrdinance(md(CODE), { mediaType: 'text/markdown' });
    expect(r.permissions.map((p) => [p.district_code, p.use_label_raw, p.symbol, p.level])).toEqual([
      ['R', 'Dwelling', 'P', 'by_right'],
      ['B', 'Dwelling', 'N', 'prohibited'],
      ['R', 'Kennel', 'Z', 'unknown'],
      ['B', 'Kennel', 'SP', 'conditional_use'],
      ['R', 'Bakery', 'SP', 'conditional_use'],
    ]);
    const codes = r.issues.map((i) => i.code);
    expect(codes.filter((c) => c === 'table_columns_mismatch')).toHaveLength(2);
    expect(r.issues.find((i) => i.code === 'symbol_unknown')?.detail).toMatch(/"Z" for Kennel in R/);
    expect(r.unlisted_uses).toMatchObject({ result: 'prohibited', citation: { quote: 'Uses not listed in Table 2.1 are prohibited.' } });
  });

  test('a dimensional grid keyed by district, with a value kept as text when it is not a number, and a dash as no number', async () => {
    const code = `${CODE}\n## 3 Dimensions\n\nTable 3.1 Dimensional Standards\n\n| District | Min. Lot Area (sq ft) | Max. Height (ft) |\n| --- | --- | --- |\n| R | 10,000 | 35 |\n| B | – | 3 or 40 ft |\n`;
    const r = await parseOrdinance(md(code), { mediaType: 'text/markdown' });
    expect(r.controls.map((c) => [c.district_code, c.control_type, c.min, c.max, c.unit, c.value_text])).toEqual([
      ['R', 'dimensional.lot_area', 10000, null, 'sq_ft', '10,000'],
      ['R', 'dimensional.height', null, 35, 'ft', '35'],
      ['B', 'dimensional.lot_area', null, null, null, '–'],
      ['B', 'dimensional.height', null, null, 'ft', '3 or 40 ft'],
    ]);
    expect(r.issues.some((i) => i.code === 'value_unparsed' && /3 or 40 ft/.test(i.detail))).toBe(true);
  });
});
