// Use tables read on the document model's grids: the key from the document itself (a key cell, a
// note on each page, prose that quotes each mark), else the manifest's hint, else another use
// table's key (reported), else marks kept with level unknown (reported); compound and footnote
// marks kept with their parts and notes; marks the key says are not permitted as prohibitions; a
// blank cell by the code's own rule (cited) or indeterminate, never dropped; labels without their
// row numbers, categories never read as uses, trailing standards columns in conditions. Expected
// values are read from the documents (Chicago's Table 17-2-0207, Worcester's Table 4.1 pages,
// Ray County's 60.1 and 40.3, Somerville's Table 9.1.1) and the fixtures written here; the gold
// samples are scored at the end.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { sharedDir } from '../../activities/fetch.ts';
import { GOAL, type GoldDoc, scoreUses } from '../../bench/ordinance-score.ts';
import { parseOrdinance } from '../../ingest/ordinance/index.ts';
import { levelOf, readBlankRule } from '../../ingest/ordinance/legend.ts';
import type { OrdinanceParse, PermissionRecord } from '../../ingest/types.ts';

const real = (p: string) => readFileSync(resolve(sharedDir(), 'real', p));
const bytes = (s: string) => new TextEncoder().encode(s);
const gold = (f: string) => JSON.parse(readFileSync(resolve('test/fixtures/ordinance-gold', f), 'utf8')) as GoldDoc;
const rowOf = (p: OrdinanceParse, label: string, table?: string) => p.permissions.filter((x) => x.use_label_raw === label && (!table || x.table_ref === table));
const marksOf = (rows: PermissionRecord[]) => rows.map((x) => `${x.district_code} ${x.symbol || '∅'} ${x.level}`);
const quoted = (p: OrdinanceParse, f: PermissionRecord) => expect(p.text.slice(f.citation.locator.start, f.citation.locator.end)).toBe(f.citation.quote);

describe('Chicago, Table 17-2-0207 (text captured one cell per block)', () => {
  let p: OrdinanceParse;
  beforeAll(async () => {
    p = await parseOrdinance(real('chicago_il/chapter_17-02.txt'), { mediaType: 'text/plain' });
  });

  test('49 uses × 10 districts: the merged columns RM 5-5.5 and RM 6-6.5 each speak for two', () => {
    const t = p.permissions.filter((x) => x.table_ref === '§ 17-2-0207');
    expect(t).toHaveLength(490);
    expect(new Set(t.map((x) => x.use_label_normalized)).size).toBe(49);
    expect(marksOf(rowOf(p, 'Two-Flat')).slice(6)).toEqual(['RM5 P/- by_right', 'RM5.5 P/- by_right', 'RM6 P/- by_right', 'RM6.5 P/- by_right']);
  });

  test('the key printed in the header cell: P by right, S special use, and "-" a prohibition with the row as its citation', () => {
    expect(marksOf(rowOf(p, 'Elderly Housing')).slice(0, 4)).toEqual(['RS1 - prohibited', 'RS2 - prohibited', 'RS3 - prohibited', 'RT3.5 P by_right']);
    const group = rowOf(p, 'Community Home, Group');
    expect(group[0]).toMatchObject({ district_code: 'RS1', symbol: 'S', level: 'conditional_use', process: "special use approval req'd" });
    const minus = rowOf(p, 'Elderly Housing')[0];
    expect(minus.citation.quote).toMatch(/^2\.\s+Elderly Housing/);
    expect(minus.citation.locator).toMatchObject({ section: '17-2-0207', column: 'RS 1' });
    quoted(p, minus);
  });

  test('compound marks kept whole with their parts, level from the first part; the row’s standards in conditions', () => {
    const house = rowOf(p, 'Detached House').find((x) => x.district_code === 'RT4') as PermissionRecord;
    expect(house).toMatchObject({ symbol: 'P/-', level: 'by_right', parts: [{ mark: 'P', level: 'by_right' }, { mark: '-', level: 'prohibited' }] });
    expect(house.conditions).toContain('P/-: P = permitted by-right or - = Not allowed; level from its first part');
    expect(house.conditions).toContain('Use Standard: § 17-2-0303-B');
    expect(house.conditions).toContain('Parking Standard: § 17-10-0207-A');
    const parking = rowOf(p, 'Parking, Non-Accessory').find((x) => x.district_code === 'RT4') as PermissionRecord;
    expect(parking.parts?.map((x) => `${x.mark} ${x.level}`)).toEqual(['P by_right', 'S conditional_use']);
  });

  test('labels without their numbers ("1.", "*10.", "C."), categories kept as categories and never read as uses', () => {
    expect(rowOf(p, 'Temporary Overnight Shelter')[0]).toMatchObject({ row_number: '*10.', category: 'B. Group Living', symbol: '-' });
    expect(rowOf(p, 'Colleges and Universities').map((x) => x.symbol).join(' ')).toBe('- - - - P P P P P P');
    expect(rowOf(p, 'Colleges and Universities')[0].row_number).toBe('C.');
    expect(rowOf(p, 'Detached House')[0]).toMatchObject({ row_number: '1.', category: 'A. Household Living' });
    const labels = new Set(p.permissions.map((x) => x.use_label_raw));
    for (const c of ['RESIDENTIAL', 'A. Household Living', 'Household Living', 'COMMERCIAL', '*O. Funeral and Interment Service', 'Specific Use Type', 'Use Category']) expect(labels.has(c), c).toBe(false);
    expect(p.issues.filter((i) => /legend|symbol_unknown|cells_indeterminate|table_unread/.test(i.code))).toEqual([]);
  });

  test('the rule for unlisted uses: "Uses that are not listed in the table are also prohibited."', () => {
    expect(p.unlisted_uses).toMatchObject({ result: 'prohibited', citation: { quote: 'Uses that are not listed in the table are also prohibited.', section_ref: '17-2-0204' } });
  });
});

describe('Worcester, Table 4.1 over eight PDF pages', () => {
  let p: OrdinanceParse;
  beforeAll(async () => {
    p = await parseOrdinance(real('worcester_ma/worcester-zoning-ordinance.pdf'), { mediaType: 'application/pdf' });
  }, 120_000);

  test('103 uses × 21 districts, read through the key at the foot of each page ("Y – Yes; N – No; SP – Special Permit")', () => {
    const t = p.permissions.filter((x) => x.table_ref === 'TABLE 4.1');
    expect(t).toHaveLength(2163);
    expect(new Set(t.map((x) => `${x.symbol} ${x.level}`))).toEqual(new Set(['Y by_right', 'N prohibited', 'SP conditional_use']));
    expect(t.find((x) => x.symbol === 'SP')?.process).toBe('Special Permit');
    expect(marksOf(rowOf(p, 'Limited Residential Hospice House')).slice(0, 7)).toEqual([
      'RS-10 SP conditional_use',
      'RS-7 SP conditional_use',
      'RL-7 SP conditional_use',
      'RG-5 SP conditional_use',
      'BO-1.0 N prohibited',
      'BO-2.0 SP conditional_use',
      'BL-1.0 N prohibited',
    ]);
  });

  test('two rows whose marks the page prints stacked in one cell are read one each (24. Transformer …, 25. Wind Energy … Large)', () => {
    const transformer = rowOf(p, 'Transformer, pumping station, sub- station, telephone exchange');
    expect(transformer.map((x) => x.symbol).join(' ')).toBe('SP SP SP SP Y Y Y Y Y Y Y Y Y Y Y Y Y Y Y Y Y');
    expect(rowOf(p, 'Wind Energy Conversion Facilities, Large').map((x) => x.symbol).join(' ')).toBe(Array(21).fill('SP').join(' '));
  });

  test('labels over several lines joined, their numbers apart ("31," as printed); the key is no use', () => {
    expect(rowOf(p, 'Continuing care retirement community')[0].row_number).toBe('2.');
    const dispensary = p.permissions.find((x) => x.use_label_raw.startsWith('Registered Marijuana Dispensary without cultivation'));
    expect(dispensary?.row_number).toBe('31,');
    expect(p.permissions.some((x) => /Yes; N/.test(x.use_label_raw))).toBe(false);
    expect(rowOf(p, 'Single-family detached dwelling')[0]).toMatchObject({ category: null, symbol: 'Y', level: 'by_right' });
  });

  test('the gold sample: use cells at precision ≥ 0.98 and recall ≥ 0.95', () => {
    const s = scoreUses(gold('worcester.json'), [...p.permissions, ...(p.indeterminate ?? [])]);
    expect(s.precision, s.wrong.join('\n')).toBeGreaterThanOrEqual(GOAL.precision);
    expect(s.recall, s.missed.slice(0, 10).join('\n')).toBeGreaterThanOrEqual(GOAL.recall);
  });

  test('its unlisted-use rule, "for any use not expressly permitted in that district"', () => {
    expect(p.unlisted_uses?.result).toBe('prohibited');
    expect(p.unlisted_uses?.citation.quote).toMatch(/^No building, structure or land, in any district, may be used, .*for any use not expressly permitted in that district/s);
  });
});

describe('Ray County, 60.1 and the district sections of Article 40 (Word HTML)', () => {
  let p: OrdinanceParse;
  beforeAll(async () => {
    p = await parseOrdinance(real('ray_county_mo/ray-county-zoning-2005.html'), { mediaType: 'text/html' });
  });
  const BLANK = 'A blank cell indicates that a use type is not allowed in the respective zoning district, unless it is otherwise expressly allowed by other regulations of these Zoning Regulations.';

  test('the key from the prose above the table (A “P” indicates …, A “C” indicates …), 114 uses × 13 districts in its two parts', () => {
    const t = p.permissions.filter((x) => x.table_ref === '§ 60.1');
    expect(t).toHaveLength(1482);
    const cemetery = rowOf(p, 'Cemetery', '§ 60.1');
    expect(cemetery[0]).toMatchObject({ district_code: 'R-A', symbol: 'C', level: 'conditional_use', category: 'Civic/Institutional' });
    expect(cemetery[0].process).toMatch(/^A “C” indicates that a use category is allowed only if reviewed and approved as a conditional use/);
    expect(rowOf(p, 'House, Detached', '§ 60.1')[0]).toMatchObject({ symbol: 'P', level: 'by_right', process: null });
  });

  test('a blank cell is a prohibition by the code’s own rule, citing it', () => {
    const blank = rowOf(p, 'Cemetery', '§ 60.1').find((x) => x.district_code === 'R-MHP') as PermissionRecord;
    expect(blank).toMatchObject({ symbol: '', level: 'prohibited', citation: { quote: BLANK, section_ref: '60.1' } });
    expect(blank.citation.locator).toMatchObject({ table: '§ 60.1', row: 'Cemetery', column: 'R-MHP' });
    quoted(p, blank);
    expect(p.indeterminate?.filter((x) => x.table_ref === '§ 60.1')).toEqual([]);
  });

  test('the header printed again inside the table is no use; the Reference column goes into conditions', () => {
    const labels = new Set(p.permissions.map((x) => x.use_label_raw));
    for (const c of ['ZONING DISTRICT USE STANDARD', 'ZONING DISTRICT USE STANDARDS', 'R-A', 'Residential', 'Commercial']) expect(labels.has(c), c).toBe(false);
    expect(rowOf(p, 'House, Attached', '§ 60.1').find((x) => x.district_code === 'R-2')?.conditions).toBe('Reference: 60.2H');
    expect(rowOf(p, 'Recreation & Entertainment, Outdoor', '§ 60.1').map((x) => x.symbol || '∅').join(' ')).toBe('C ∅ ∅ ∅ ∅ ∅ ∅ ∅ ∅ C P P P');
  });

  test('a district’s own table, with no header, is that district’s', () => {
    const home = rowOf(p, 'Mobile Home', '§ 40.3B');
    expect(home.map((x) => [x.district_code, x.symbol, x.level])).toEqual([['R-A', 'C', 'conditional_use']]);
    expect(home[0].conditions).toContain('Subject to 40.9D6.');
    expect(home[0].process).toMatch(/Allowed only if reviewed and approved as a Conditional Use/);
  });

  test('60.1 says the Use Table controls over 40.3 through 40.15 in a conflict: a district table’s other mark is left out and reported, one that agrees stays', () => {
    // 40.12B marks Congregate Living "C" in B-2; 60.1 marks it "P"
    expect(rowOf(p, 'Congregate Living').filter((x) => x.district_code === 'B-2').map((x) => [x.table_ref, x.symbol])).toEqual([['§ 60.1', 'P']]);
    const superseded = p.issues.find((i) => i.code === 'permission_superseded');
    expect(superseded?.detail).toMatch(/^§ 60\.1 says it controls over Article 40\.3 through Article 40\.15 in a conflict/);
    expect(superseded?.detail).toContain('B-2 | Congregate Living "C" in § 40.12B');
    expect(p.issues.some((i) => i.code === 'permission_conflicting')).toBe(false);
    // where they agree, both are kept: Mobile Home is C in R-A in 40.3B and in 60.1
    expect(rowOf(p, 'Mobile Home').filter((x) => x.district_code === 'R-A').map((x) => x.table_ref).sort()).toEqual(['§ 40.3B', '§ 60.1']);
  });

  test('the sign table whose columns are mostly groups of districts ("Residential (R)", "Commercial (C )") is reported, not read', () => {
    const unread = p.issues.find((i) => i.code === 'table_unread' && i.locator?.table === '§ 120.7E');
    expect(unread?.detail).toMatch(/only R-A\/R-1 of its columns/);
    expect(p.permissions.some((x) => x.table_ref === '§ 120.7E')).toBe(false);
  });
});

describe('Somerville, Table 9.1.1', () => {
  test('a dash the key does not define ("Farming (as noted below)") is indeterminate, kept apart from permissions and reported', async () => {
    const p = await parseOrdinance(real('somerville_ma/somerville-zoning.md'), { mediaType: 'text/markdown' });
    const farming = (p.indeterminate ?? []).filter((x) => x.table_ref === 'Table 9.1.1' && x.use_label_raw === 'Farming (as noted below)');
    expect(farming).toHaveLength(13);
    expect(farming[0]).toMatchObject({ symbol: '–', level: 'indeterminate', conditions: '"–" is not in the legend' });
    expect(p.permissions.some((x) => x.use_label_raw === 'Farming (as noted below)' && x.table_ref === 'Table 9.1.1')).toBe(false);
    expect(p.issues.find((i) => i.code === 'cells_indeterminate' && i.locator?.table === 'Table 9.1.1')?.detail).toMatch(/^Table 9\.1\.1: 78 district cells/);
  });
});

const QUOTED = `# Code

## 1 Uses

### 1.1 Key

A use marked "X" is permitted by right. A use marked "C" requires a conditional use permit from the Board of Appeals. Uses marked "-" are not permitted.

Table 1.1 Uses

| Use | A-1 | A-2 | Special Requirements |
| --- | --- | --- | --- |
| Agriculture | | | |
| 1. Farm | X | X | |
| 4a. Kennel | C | - | § 5.1 |
| Business | | | |
| 2. Bakery | X(3) | C¹ | |
| 3. Brewery taproom | X* | C/X* | § 5.2 |
| 5. Office | | X | |

(3) Only on lots of one acre or more.
¹ Subject to site plan review by the Planning Board.
* See Section 6 for parking.

## 2 Districts

### 2.1 Agricultural District (A-1)

Farms.

### 2.2 Village District (A-2)

Shops.
`;

describe('a key written as prose that quotes each mark, footnote and compound marks, a blank cell with no rule', () => {
  let p: OrdinanceParse;
  beforeAll(async () => {
    p = await parseOrdinance(bytes(QUOTED), { mediaType: 'text/markdown' });
  });

  test('"X" by right, "C" conditional with the sentence as its process, "-" a prohibition', () => {
    expect(marksOf(rowOf(p, 'Kennel'))).toEqual(['A-1 C conditional_use', 'A-2 - prohibited']);
    expect(rowOf(p, 'Kennel')[0].process).toBe('A use marked "C" requires a conditional use permit from the Board of Appeals.');
    expect(rowOf(p, 'Kennel')[0]).toMatchObject({ row_number: '4a.', category: 'Agriculture', conditions: 'Special Requirements: § 5.1' });
    expect(marksOf(rowOf(p, 'Farm'))).toEqual(['A-1 X by_right', 'A-2 X by_right']);
    expect(p.permissions.some((x) => x.use_label_raw === 'Agriculture' || x.use_label_raw === 'Business')).toBe(false);
  });

  test('footnote marks keep the mark as printed, the level of its letter and the note’s text', () => {
    const [a1, a2] = rowOf(p, 'Bakery');
    expect(a1).toMatchObject({ symbol: 'X(3)', level: 'by_right', conditions: 'note 3: (3) Only on lots of one acre or more.' });
    expect(a2).toMatchObject({ symbol: 'C¹', level: 'conditional_use', conditions: 'note 1: ¹ Subject to site plan review by the Planning Board.' });
    const [b1, b2] = rowOf(p, 'Brewery taproom');
    expect(b1).toMatchObject({ symbol: 'X*', level: 'by_right', conditions: 'note *: * See Section 6 for parking.; Special Requirements: § 5.2' });
    expect(b2).toMatchObject({ symbol: 'C/X*', level: 'conditional_use', parts: [{ mark: 'C', level: 'conditional_use' }, { mark: 'X', level: 'by_right' }] });
    expect(b2.conditions).toMatch(/^C\/X: C = A use marked "C" requires .* or X = A use marked "X" is permitted by right\.; level from its first part; note \*: \* See Section 6/);
  });

  test('a blank cell where the code states no rule for one is indeterminate, with the row as citation, and reported', () => {
    expect(marksOf(rowOf(p, 'Office'))).toEqual(['A-2 X by_right']);
    expect(p.indeterminate).toEqual([expect.objectContaining({ district_code: 'A-1', use_label_raw: 'Office', symbol: '', level: 'indeterminate', citation: expect.objectContaining({ quote: '| 5. Office | | X | |' }) })]);
    expect(p.issues.find((i) => i.code === 'cells_indeterminate')?.detail).toMatch(/^Table 1\.1: 1 district cells/);
  });
});

const YESNO = `# Code

## 1 Districts

### 1.1 Residence District (R)

Homes.

### 1.2 Business District (B)

Shops.

## 2 Uses

Table 2.1 Uses

| Use | R | B |
| --- | --- | --- |
| Dwelling | Y | |
| Shop | N | Y |
| Hotel | SP | SP |

Y – Yes; N – No; SP – Special Permit

A blank cell means the use is not permitted in that district.

## 3 Accessory uses

Table 3.1 Accessory Uses

| Use | R | B |
| --- | --- | --- |
| Garage | Y | Y |
| Antenna | SP | N |
`;

describe('a key line "Y – Yes; N – No; SP – Special Permit", a rule for blank cells, and a later table that prints no key', () => {
  let p: OrdinanceParse;
  beforeAll(async () => {
    p = await parseOrdinance(bytes(YESNO), { mediaType: 'text/markdown' });
  });

  test('Yes, No and Special Permit give by right, prohibited and conditional use', () => {
    expect(marksOf(rowOf(p, 'Shop'))).toEqual(['R N prohibited', 'B Y by_right']);
    expect(rowOf(p, 'Hotel')[0]).toMatchObject({ level: 'conditional_use', process: 'Special Permit' });
  });

  test('the blank cell follows the code’s rule and cites it', () => {
    const blank = rowOf(p, 'Dwelling').find((x) => x.district_code === 'B');
    expect(blank).toMatchObject({ symbol: '', level: 'prohibited', citation: { quote: 'A blank cell means the use is not permitted in that district.' } });
    expect(p.indeterminate).toEqual([]);
  });

  test('the later table is read with the earlier table’s key, and says so', () => {
    expect(marksOf(rowOf(p, 'Antenna'))).toEqual(['R SP conditional_use', 'B N prohibited']);
    expect(p.issues.find((i) => i.code === 'legend_inherited')).toMatchObject({ detail: 'Table 3.1: prints no legend; read with the legend of Table 2.1', locator: { table: 'Table 3.1' } });
  });
});

const UNKEYED = `# Code

## 1 Districts

### 1.1 Residence District (R)

Homes.

### 1.2 Business District (B)

Shops.

## 2 Uses

Table 2.1 Uses

| Use | R | B |
| --- | --- | --- |
| Dwelling | A | B |
| Shop | B | A |
`;

describe('a use table that prints no key', () => {
  test('read with the manifest’s legend when it gives one', async () => {
    const p = await parseOrdinance(bytes(UNKEYED), { mediaType: 'text/markdown', hints: { legend: { A: { level: 'by_right' }, B: { level: 'conditional_use', process: 'special permit of the Planning Board' } } } });
    expect(marksOf(rowOf(p, 'Dwelling'))).toEqual(['R A by_right', 'B B conditional_use']);
    expect(rowOf(p, 'Dwelling')[1].process).toBe('special permit of the Planning Board');
    expect(p.issues.some((i) => i.code === 'legend_missing')).toBe(false);
  });

  test('without one, its marks are kept with level unknown and the table is reported, never guessed', async () => {
    const p = await parseOrdinance(bytes(UNKEYED), { mediaType: 'text/markdown' });
    expect(marksOf(rowOf(p, 'Dwelling'))).toEqual(['R A unknown', 'B B unknown']);
    expect(p.issues.find((i) => i.code === 'legend_missing')).toMatchObject({ locator: { table: 'Table 2.1', section: '2' } });
  });
});

const HTML = `<html><body>
<h2>1 Districts</h2>
<h3>1.1 Residence District (R-1)</h3><p>Homes.</p>
<h3>1.2 Business District (B-1)</h3><p>Shops.</p>
<h2>2 Uses</h2>
<table>
<caption>Table 2.1 Permitted Uses</caption>
<thead><tr><th colspan="2">Use</th><th>R-1</th><th>B-1</th></tr></thead>
<tbody>
<tr><th colspan="4">Residential Uses</th></tr>
<tr><td>6.</td><td>Group residence<br>(general or limited)</td><td>P</td><td>S</td></tr>
<tr><td>7.</td><td>Two-family dwelling</td><td>P</td><td>-</td></tr>
<tr><td colspan="4">P = Permitted; S = Special permit; - = Not allowed</td></tr>
</tbody>
</table>
</body></html>`;

describe('an HTML use table: a number column, a name over two lines, a category row across the width', () => {
  test('the label joined, its number apart, its category the row across the width above it', async () => {
    const p = await parseOrdinance(bytes(HTML), { mediaType: 'text/html' });
    expect(rowOf(p, 'Group residence (general or limited)').map((x) => [x.row_number, x.category, x.district_code, x.symbol, x.level])).toEqual([
      ['6.', 'Residential Uses', 'R-1', 'P', 'by_right'],
      ['6.', 'Residential Uses', 'B-1', 'S', 'conditional_use'],
    ]);
    expect(rowOf(p, 'Two-family dwelling')[1]).toMatchObject({ symbol: '-', level: 'prohibited' });
    expect(p.permissions.map((x) => x.use_label_raw)).not.toContain('Residential Uses');
  });
});

describe('the gold samples, scored', () => {
  // Somerville's dashes on "as noted below" rows are indeterminate (kept apart from permissions): the gold accepts that level
  test.each([
    ['somerville.json', 'somerville_ma/somerville-zoning.md', 'text/markdown'],
    ['chicago-17-2.json', 'chicago_il/chapter_17-02.txt', 'text/plain'],
    ['ray-county.json', 'ray_county_mo/ray-county-zoning-2005.html', 'text/html'],
  ])('%s: use cells at precision ≥ 0.98 and recall ≥ 0.95', async (g, file, mediaType) => {
    const p = await parseOrdinance(real(file), { mediaType });
    const s = scoreUses(gold(g), [...p.permissions, ...(p.indeterminate ?? [])]);
    expect(s.precision, s.wrong.join('\n')).toBeGreaterThanOrEqual(GOAL.precision);
    expect(s.recall, s.missed.slice(0, 10).join('\n')).toBeGreaterThanOrEqual(GOAL.recall);
  });
});

describe('the words of a key', () => {
  test('give the level of each mark; words that give none are unknown, never guessed', () => {
    const cases: Array<[string, string]> = [
      ['Permitted by right', 'by_right'],
      ['Yes', 'by_right'],
      ['Accessory use', 'by_right'],
      ['Permitted subject to the standards of Section 4', 'permitted_with_standards'],
      ['Limited use', 'permitted_with_standards'],
      ['Administrative review', 'administrative_approval'],
      ['Site plan approval required', 'administrative_approval'],
      ['Special Exception', 'conditional_use'],
      ['Zoning Board of Adjustment approval', 'conditional_use'],
      ["planned development approval req'd", 'conditional_use'],
      ['No', 'prohibited'],
      ['Not allowed', 'prohibited'],
      ['See Section 12', 'unknown'],
    ];
    for (const [words, level] of cases) expect(levelOf(words), words).toBe(level);
  });

  test('a code’s rule for blank cells in its own words; a blank wall is no blank cell', () => {
    expect(readBlankRule('Uses not permitted in a district are indicated by a blank.')?.level).toBe('prohibited');
    expect(readBlankRule('If no letter appears in a cell, the use is prohibited in that district.')?.level).toBe('prohibited');
    expect(readBlankRule('An empty cell means the use requires a special permit.')?.level).toBe('conditional_use');
    expect(readBlankRule('Facades may have a maximum blank wall area of thirty five (35) feet.')).toBeNull();
  });
});

const DRESSED = `<html><body>
<h2>1 Districts</h2>
<p>The following districts are hereby established:</p>
<ul><li>AG: Agricultural</li><li>R-1: Single Family Residential</li><li>C-1: General Commercial</li></ul>
<h2>2 Uses</h2>
<table>
<tr><th>Symbol</th><th>Meaning</th></tr>
<tr><td>P</td><td>Permitted by right</td></tr>
<tr><td>S</td><td>Special use permit required</td></tr>
<tr><td>—</td><td>Not permitted</td></tr>
</table>
<table>
<caption>Table 2.1 Land Uses</caption>
<thead>
<tr><th>Use</th><th>Agricultural</th><th>R-1*</th><th>C-1</th></tr>
<tr><th></th><th></th><th>Single Family Residential</th><th>(General Commercial)</th></tr>
</thead>
<tbody>
<tr><td>Farm</td><td>P</td><td>—</td><td>—</td></tr>
<tr><td>House</td><td>S</td><td>P</td><td>—</td></tr>
<tr><td>Store</td><td>—</td><td>—</td><td>P</td></tr>
</tbody>
</table>
<p>* Lots of record before 1990 only.</p>
</body></html>`;

describe('a header that dresses its codes (a note mark, the name under the code, a district’s name alone) and a key printed as a table of its own', () => {
  test('each column reads as its district, through the key table beside it', async () => {
    const p = await parseOrdinance(bytes(DRESSED), { mediaType: 'text/html' });
    expect(marksOf(rowOf(p, 'House'))).toEqual(['AG S conditional_use', 'R-1 P by_right', 'C-1 — prohibited']);
    expect(marksOf(rowOf(p, 'Store'))).toEqual(['AG — prohibited', 'R-1 — prohibited', 'C-1 P by_right']);
    expect(rowOf(p, 'House')[1].citation.locator.column).toBe('R-1*');
    expect(p.issues.filter((i) => /legend|table_unread|symbol_unknown/.test(i.code))).toEqual([]);
  });
});

const WORDED = `<html><body>
<h2>1 Districts</h2>
<h3>1.1 Rural District (RU)</h3><p>Farms.</p>
<h3>1.2 Village District (VI)</h3><p>Shops.</p>
<h2>2 Uses</h2>
<table>
<caption>Table 2.1 Uses</caption>
<thead><tr><th>Use</th><th>Standards</th><th>RU</th><th>VI</th></tr></thead>
<tbody>
<tr><td>Dwelling</td><td>§ 4.1</td><td>Yes</td><td>Yes</td></tr>
<tr><td>Kennel</td><td>§ 4.2</td><td>Yes</td><td>No</td></tr>
<tr><td>Hotel</td><td></td><td>Special permit</td><td>Yes</td></tr>
</tbody>
</table>
<p>Page 2</p>
<table>
<tr><td>Store</td><td></td><td>No</td><td>Yes</td></tr>
<tr><td>Office</td><td>§ 4.3</td><td>Not permitted</td><td>Yes</td></tr>
<tr><td>Bank</td><td></td><td>No</td><td>Yes</td></tr>
</table>
</body></html>`;

describe('cells that say their meaning in words, a standards column beside the name, a table going on over a page without its header', () => {
  let p: OrdinanceParse;
  beforeAll(async () => {
    p = await parseOrdinance(bytes(WORDED), { mediaType: 'text/html' });
  });

  test('"Yes", "No", "Special permit", "Not permitted" need no key; the section reference beside the name is a condition, not part of it', () => {
    expect(marksOf(rowOf(p, 'Kennel'))).toEqual(['RU Yes by_right', 'VI No prohibited']);
    expect(rowOf(p, 'Kennel')[0].conditions).toBe('Standards: § 4.2');
    expect(rowOf(p, 'Hotel')[0]).toMatchObject({ symbol: 'Special permit', level: 'conditional_use', process: 'Special permit' });
    expect(p.issues.filter((i) => /legend|symbol_unknown/.test(i.code))).toEqual([]);
  });

  test('the headerless table after it is the same table going on', () => {
    expect(marksOf(rowOf(p, 'Office'))).toEqual(['RU Not permitted prohibited', 'VI Yes by_right']);
    expect(rowOf(p, 'Office')[0]).toMatchObject({ table_ref: 'Table 2.1' });
    expect(rowOf(p, 'Office')[0].conditions).toContain('§ 4.3');
    expect(p.permissions).toHaveLength(12);
  });
});

const WRAPPED = `# Code

## 1 Districts

### 1.1 Residence District (R)

Homes.

### 1.2 Business District (B)

Shops.

## 2 Uses

Table 2.1 Uses

| Use | R | B |
| --- | --- | --- |
| Residential uses | | |
| 1. Continuing care retirement | Y | N |
| community | | |
| 2. Dormitory | Y | Y |

Y – Yes; N – No
`;

describe('a use’s name whose next line is printed as a row of its own', () => {
  test('the line goes on with the name above it, not a category', async () => {
    const p = await parseOrdinance(bytes(WRAPPED), { mediaType: 'text/markdown' });
    expect(rowOf(p, 'Continuing care retirement community').map((x) => [x.row_number, x.category, x.district_code, x.symbol])).toEqual([
      ['1.', 'Residential uses', 'R', 'Y'],
      ['1.', 'Residential uses', 'B', 'N'],
    ]);
    expect(rowOf(p, 'Dormitory')[0].category).toBe('Residential uses');
  });
});

const CONFLICT = `# Code

## 1 Districts

### 1.1 Residence District (R)

Homes.

#### 1.1.1 Uses in the Residence District

| Use | R |
| --- | --- |
| Kennel | SP |
| Dwelling | P |

P = Permitted. SP = Special permit. N = Not permitted.

### 1.2 Business District (B)

Shops.

## 2 Uses

Table 2.1 Uses

| Use | R | B |
| --- | --- | --- |
| Kennel | N | P |
| Dwelling | P | N |

P = Permitted. SP = Special permit. N = Not permitted.
`;

describe('two tables that mark one use in one district differently, and no word on which controls', () => {
  test('both are kept as their tables state them, and the conflict is reported', async () => {
    const p = await parseOrdinance(bytes(CONFLICT), { mediaType: 'text/markdown' });
    expect(rowOf(p, 'Kennel').filter((x) => x.district_code === 'R').map((x) => [x.table_ref, x.symbol])).toEqual([
      ['§ 1.1.1', 'SP'],
      ['Table 2.1', 'N'],
    ]);
    expect(p.issues.filter((i) => i.code === 'permission_conflicting').map((i) => i.detail)).toEqual(['R | kennel: "SP" (conditional_use) in § 1.1.1, "N" (prohibited) in Table 2.1; each is kept as its table states it']);
  });
});
