// Districts from every evidence a code and its jurisdiction hold: headings that name districts (and
// families of them), lists and tables that establish them, the headers of use and dimensional
// tables (codes split over two lines, merged columns, ranges read against the code's own order),
// and the codes of the map and list, compared both ways. Expected values are read from the
// documents (the Chicago text, the Worcester PDF's Article III, Ray County's 40.1 and 50.1, the
// Somerville glossary) and from the fixtures written here, not from the parser's output.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { beforeAll, describe, expect, test } from 'vitest';
import { sharedDir } from '../../activities/fetch.ts';
import { foldCode } from '../../bench/ordinance-score.ts';
import { codeKey } from '../../ingest/district-codes.ts';
import { DistrictIndex, readCodes } from '../../ingest/ordinance/codes.ts';
import { parseOrdinance } from '../../ingest/ordinance/index.ts';
import type { OrdinanceParse } from '../../ingest/types.ts';

const real = (p: string) => readFileSync(resolve(sharedDir(), 'real', p));
const bytes = (s: string) => new TextEncoder().encode(s);
const gold = (f: string) => JSON.parse(readFileSync(resolve('test/fixtures/ordinance-gold', f), 'utf8')) as { districts: Array<{ code: string; kind: string }> };
const keys = (p: OrdinanceParse) => p.districts.map((d) => foldCode(d.code_normalized)).sort();
const codesOf = (p: OrdinanceParse) => p.districts.map((d) => d.code_normalized);

/** The zone classes of Chicago's map as published on 2024-10-21. */
function chicagoMapCodes(): string[] {
  const g = JSON.parse(gunzipSync(real('chicago_il/chicago-zoning-2024-10-21-simple.geojson.gz')).toString('utf8')) as { features: Array<{ properties: { zone_class: string } }> };
  return [...new Set(g.features.map((f) => f.properties.zone_class))];
}

describe('Chicago 17-2, read alone (no map): headings, families and the use table’s two-line header', () => {
  let p: OrdinanceParse;
  beforeAll(async () => {
    p = await parseOrdinance(real('chicago_il/chapter_17-02.txt'), { mediaType: 'text/plain' });
  });

  test('the ten R districts the chapter regulates, and nothing else: no "Density", no family RS/RT/RM as a district', () => {
    expect(keys(p)).toEqual(['RM4.5', 'RM5', 'RM5.5', 'RM6', 'RM6.5', 'RS1', 'RS2', 'RS3', 'RT3.5', 'RT4']);
  });

  test('RM4.5 … RM6.5 from their own headings under "RM, Residential Multi-Unit Districts"; RS1 … RT4 from the header "RS" over "1" of the RS and RT families', () => {
    const by = new Map(p.districts.map((d) => [d.code_normalized, d]));
    expect(by.get('RM4.5')).toMatchObject({ section_ref: '17-2-0104-B', citation: { quote: 'RM4.5' } });
    expect(by.get('RM5')?.section_ref).toBe('17-2-0104-C');
    expect(by.get('RM5.5')?.section_ref).toBe('17-2-0104-C');
    expect(p.district_report?.evidence.RM6).toContain('heading');
    expect(p.district_report?.evidence.RS1).toEqual(expect.arrayContaining(['use_table', 'dimension_table']));
    // a table-only district cites a cell that prints its code whole
    expect(by.get('RS1')?.citation.quote).toBe('RS1');
    for (const d of p.districts) expect(p.text.slice(d.citation.locator.start, d.citation.locator.end)).toBe(d.citation.quote);
    expect(p.district_report).toMatchObject({ compared: false, not_on_map: [], only_on_map: [] });
  });
});

describe('Chicago 17-2 with the codes of its map', () => {
  let p: OrdinanceParse;
  let map: string[];
  beforeAll(async () => {
    map = chicagoMapCodes();
    p = await parseOrdinance(real('chicago_il/chapter_17-02.txt'), { mediaType: 'text/plain', districtCodes: map });
  });

  test('every district of the text is on the map, held in the map’s form (RS-1 for the text’s RS1)', () => {
    expect(p.district_report?.not_on_map).toEqual([]);
    expect(p.issues.some((i) => i.code === 'district_not_on_map')).toBe(false);
    expect(codesOf(p)).toEqual(expect.arrayContaining(['RS-1', 'RS-3', 'RT-3.5', 'RM-5.5']));
    expect(p.districts.find((d) => d.code_normalized === 'RS-1')?.code_raw).toBe('RS1');
    expect(new Set(p.permissions.map((x) => x.district_code))).toEqual(new Set(codesOf(p)));
  });

  test('the map’s other classes are reported as named nowhere in the text: RT-4A, the business and downtown classes, planned developments', () => {
    const only = p.district_report?.only_on_map ?? [];
    expect(only).toEqual(expect.arrayContaining(['RT-4A', 'B3-2', 'C1-1', 'DX-12', 'PD 991']));
    // RM4-.5, a misprint on the map, folds to RM4.5, which the text names
    for (const c of ['RS-3', 'RM-4.5', 'RM4-.5', 'RM5.5']) expect(only).not.toContain(c);
    const issue = p.issues.find((i) => i.code === 'district_only_on_map');
    expect(issue?.detail).toMatch(/RT-4A/);
    expect(issue?.detail).toMatch(new RegExp(`^${only.length} codes`));
  });
});

describe('Worcester: the districts its Article III establishes ("RS-10: Residence, Single Family", overlays "as follows")', () => {
  let p: OrdinanceParse;
  beforeAll(async () => {
    p = await parseOrdinance(real('worcester_ma/worcester-zoning-ordinance.pdf'), { mediaType: 'application/pdf' });
  }, 120_000);

  test('all 31 codes of the list, base and overlay as the list groups them, and no legend letter (Y, N, SP) or glossary term', () => {
    const want = gold('worcester.json').districts;
    expect(keys(p)).toEqual(want.map((d) => foldCode(d.code)).sort());
    const kind = new Map(p.districts.map((d) => [foldCode(d.code_normalized), d.kind]));
    for (const d of want) expect(kind.get(foldCode(d.code)), d.code).toBe(d.kind);
  });

  test('each cites its line of the list, with its name; the use table’s "BO 1" is the list’s BO-1.0', () => {
    const rs10 = p.districts.find((d) => d.code_normalized === 'RS-10');
    expect(rs10).toMatchObject({ code_raw: 'RS-10', local_label: 'Residence, Single Family', section_ref: 'Article III, Section 1' });
    expect(rs10?.citation.quote).toMatch(/^RS-10: Residence, Single Family/);
    expect(p.districts.find((d) => d.code_normalized === 'AROD')).toMatchObject({ kind: 'overlay', local_label: 'Adaptive Re-use Overlay District' });
    expect(p.permissions.filter((x) => x.district_code === 'BO-1.0').length).toBeGreaterThan(100);
    expect(p.permissions.some((x) => x.district_code === 'BO 1')).toBe(false);
  });
});

describe('Ray County: the tables of 40.1 and 50.1 and the headings of Article 40', () => {
  let p: OrdinanceParse;
  beforeAll(async () => {
    p = await parseOrdinance(real('ray_county_mo/ray-county-zoning-2005.html'), { mediaType: 'text/html' });
  });

  test('its 14 districts, "S & O" and "S &O" and "S&O" one of them; not the retired C-1, C-2, C-3 of the sign tables, nor "Amateur" or "Commercial"', () => {
    expect(keys(p)).toEqual(gold('ray-county.json').districts.map((d) => foldCode(d.code)).sort());
    expect(p.districts.filter((d) => codeKey(d.code_normalized) === 'S&O')).toHaveLength(1);
    for (const c of ['C-1', 'C-2', 'C-3', 'AMATEUR', 'COMMERCIAL']) expect(keys(p)).not.toContain(foldCode(c));
  });

  test('a district section names its code first ("40.3 R-A Agricultural District"); PUD is an overlay as 50.1 lists it', () => {
    const ra = p.districts.find((d) => d.code_normalized === 'R-A');
    expect(ra).toMatchObject({ local_label: 'Agricultural District', section_ref: '40.3', citation: { quote: 'R-A Agricultural District' } });
    expect(ra?.purpose).toMatch(/agricultur/i);
    expect(p.districts.find((d) => d.code_normalized === 'PUD')?.kind).toBe('overlay');
    expect(p.districts.find((d) => d.code_normalized === 'OP')?.section_ref).toBe('40.15');
  });
});

describe('Somerville: glossary terms are not districts', () => {
  test('"Visible Light Reflectance (VLR)" and "(VLT)" are glossary headings, not districts; the 20 districts of Articles 3 to 8 stay', async () => {
    const p = await parseOrdinance(real('somerville_ma/somerville-zoning.md'), { mediaType: 'text/markdown' });
    expect(keys(p)).not.toContain('VLR');
    expect(keys(p)).not.toContain('VLT');
    expect(keys(p)).toEqual(expect.arrayContaining(gold('somerville.json').districts.map((d) => foldCode(d.code))));
  });
});

const HTML = `<html><body>
<h1>Zoning Code of Testville</h1>
<h2>Article 1 Definitions</h2>
<h3>1.1 Floor Area Ratio (FAR)</h3><p>The floor area of a building divided by the area of its lot.</p>
<h3>1.2 Lot Area per Unit (Density)</h3><p>The lot area for each dwelling unit.</p>
<h2>Article 2 Residential Districts</h2>
<h3>2.1 RS, Residential Single-Unit Districts</h3><p>The RS districts are for detached houses.</p>
<h3>2.2 RM, Residential Multi-Unit Districts</h3><p>The RM districts are for apartments.</p>
<h4>2.2.1 RM5 and RM5.5</h4><p>The RM5 and RM5.5 districts differ only in height.</p>
<h3>2.3 B-1 — Neighborhood Business District</h3><p>Small shops near homes.</p>
<h2>Article 3 Uses</h2>
<h3>3.1 Use Table</h3>
<table>
<thead>
<tr><th rowspan="2">Use</th><th>RS</th><th>RS</th><th>RM</th><th rowspan="2">B-1</th></tr>
<tr><th>1</th><th>2</th><th>5-5.5</th></tr>
</thead>
<tbody>
<tr><td>Detached house</td><td>P</td><td>P</td><td>P</td><td>N</td></tr>
<tr><td>Apartment building</td><td>N</td><td>N</td><td>P</td><td>N</td></tr>
<tr><td>Corner store</td><td>N</td><td>N</td><td>N</td><td>P</td></tr>
<tr><td colspan="5">P = Permitted by right; N = Not permitted</td></tr>
</tbody>
</table>
<h2>Article 4 Lots</h2>
<h3>4.1 Lot Area</h3>
<table>
<thead><tr><th>District</th><th>Minimum Lot Area (square feet)</th></tr></thead>
<tbody><tr><td>RS1</td><td>6,000</td></tr><tr><td>RS2 to RM5.5</td><td>3,000</td></tr><tr><td>B-1</td><td>2,000</td></tr></tbody>
</table>
</body></html>`;

describe('a code that names its districts by families, headings and a two-line header', () => {
  let p: OrdinanceParse;
  beforeAll(async () => {
    p = await parseOrdinance(bytes(HTML), { mediaType: 'text/html' });
  });

  test('RS1 and RS2 (family RS, header "RS" over "1"), RM5 and RM5.5 (their heading, and the merged column "RM 5-5.5"), B-1 ("CODE — Name District"); not FAR or Density', () => {
    expect(codesOf(p).sort()).toEqual(['B-1', 'RM5', 'RM5.5', 'RS1', 'RS2']);
    expect(p.districts.find((d) => d.code_normalized === 'B-1')).toMatchObject({ local_label: 'Neighborhood Business District', section_ref: '2.3', type: 'commercial' });
  });

  test('the merged column speaks for both districts; a range row ("RS2 to RM5.5") names no new district', () => {
    const apartment = p.permissions.filter((x) => x.use_label_raw === 'Apartment building');
    expect(apartment.map((x) => [x.district_code, x.symbol, x.level])).toEqual([
      ['RS1', 'N', 'prohibited'],
      ['RS2', 'N', 'prohibited'],
      ['RM5', 'P', 'by_right'],
      ['RM5.5', 'P', 'by_right'],
      ['B-1', 'N', 'prohibited'],
    ]);
    expect(p.district_report?.evidence.RS2).toEqual(expect.arrayContaining(['use_table', 'dimension_table']));
  });

  test('a range is read against the order the code gives its districts', () => {
    const index = new DistrictIndex();
    for (const c of ['RS1', 'RS2', 'RT4', 'RM5', 'RM5.5', 'RM6.5']) index.add(c, 'use_table');
    index.addSequence(['RS1', 'RS2', 'RT4', 'RM5', 'RM5.5', 'RM6.5']);
    const accept = (c: string) => index.has(c);
    expect(readCodes(['RT4 to RM6.5'], accept, index)).toMatchObject({ codes: ['RT4', 'RM5', 'RM5.5', 'RM6.5'], how: 'range' });
    expect(readCodes(['RM6.5 to RT4'], accept, index)).toBeNull(); // backwards: no order gives it
    expect(readCodes(['RS', '2'], accept, index)).toEqual({ codes: ['RS2'], how: 'split', at: 0 });
    expect(readCodes(['RM 5-5.5'], accept, index)).toEqual({ codes: ['RM5', 'RM5.5'], how: 'merged', at: 0 });
    expect(readCodes(['RS 1'], accept, index)).toEqual({ codes: ['RS 1'], how: 'one', at: 0 });
    expect(readCodes(['RS1*', 'Single-Unit'], accept, index)).toEqual({ codes: ['RS1'], how: 'one', at: 0 }); // a note mark, a name under the code
    expect(readCodes(['Zoning Districts'], accept, index)).toBeNull();
  });
});

const LISTED = `# Zoning Code

## 1 General

### 1.1 Districts

The following zoning districts are hereby established:

- R-1: Residence A
- R-2: Residence B
- C-1: Commerce

### 1.2 Glossary

Amateur Radio (AR) means a radio station licensed to an amateur.

## 2 Uses

### 2.1 Table of Uses

Table 2.1 Uses

| Use | RES-1 | R-2 | C-1 |
| --- | --- | --- | --- |
| Dwelling | P | P | N |
| Shop | N | N | P |

P = Permitted. N = Not permitted.

### 2.2 Older Table

Table 9 Former Uses

| Use | Z-7 | Z-8 |
| --- | --- | --- |
| Dwelling | P | N |
| Shop | N | P |
| Office | N | P |

P = Permitted. N = Not permitted.
`;

describe('a list that establishes districts, the map’s codes, aliases, and a table whose codes name no district', () => {
  let p: OrdinanceParse;
  beforeAll(async () => {
    p = await parseOrdinance(bytes(LISTED), { mediaType: 'text/markdown', districtCodes: ['R-1', 'R2', 'X-9'], hints: { code_aliases: { 'RES-1': 'R-1' } } });
  });

  test('the list’s three districts, each citing its line, held in the map’s form where the map has one (R2); AR of a glossary sentence is none', () => {
    expect(codesOf(p)).toEqual(['R-1', 'R2', 'C-1']);
    expect(p.districts[1].code_raw).toBe('R-2');
    expect(p.districts[0]).toMatchObject({ code_raw: 'R-1', local_label: 'Residence A', section_ref: '1.1', citation: { quote: '- R-1: Residence A' } });
  });

  test('in the text and not on the map (C-1), on the map and not in the text (X-9), each reported; R2 on the map is the text’s R-2', () => {
    expect(p.district_report).toMatchObject({ compared: true, not_on_map: ['C-1'], only_on_map: ['X-9'] });
    expect(p.issues.find((i) => i.code === 'district_not_on_map')?.detail).toMatch(/: C-1$/);
    expect(p.issues.find((i) => i.code === 'district_only_on_map')?.detail).toMatch(/: X-9$/);
  });

  test('the manifest’s alias reads the header "RES-1" as R-1', () => {
    expect(p.permissions.filter((x) => x.use_label_raw === 'Dwelling').map((x) => [x.district_code, x.symbol])).toEqual([
      ['R-1', 'P'],
      ['R2', 'P'],
      ['C-1', 'N'],
    ]);
  });

  test('a use table whose header codes name no district is reported by its table and section, and read for nothing', () => {
    const unread = p.issues.filter((i) => i.code === 'table_unread');
    expect(unread).toHaveLength(1);
    expect(unread[0]).toMatchObject({ locator: { section: '2.2', table: 'Table 9' } });
    expect(unread[0].detail).toMatch(/Z-7, Z-8/);
    expect(p.permissions.some((x) => x.table_ref === 'Table 9')).toBe(false);
  });
});

const ESTABLISHED = `# Town Code

## Sec. 27-3. Zoning districts established

- R-1, Single-Family Residential
- R-2 (Two-Family Residential)
- B-1 — General Business

## Sec. 27-4. Zoning map

The boundaries are shown on the zoning map.
`;

describe('a section that establishes districts by its heading, its lines written three ways', () => {
  test('"R-1, Name", "R-2 (Name)", "B-1 — Name"', async () => {
    const p = await parseOrdinance(bytes(ESTABLISHED), { mediaType: 'text/markdown' });
    expect(p.districts.map((d) => [d.code_normalized, d.local_label])).toEqual([
      ['R-1', 'Single-Family Residential'],
      ['R-2', 'Two-Family Residential'],
      ['B-1', 'General Business'],
    ]);
  });
});
