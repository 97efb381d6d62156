// Pages shaped as the code publishers print them (fixtures written here, not real codes):
// Municode's "Sec. 17.20.030. - Title." in classed divs a stylesheet would set apart, a prose key
// quoting several marks in one sentence ("•" … "C" …, a blank cell …), a notes row; eCode360's
// "§ 200-8 Title." with a "Key: Y - Permitted; N - Prohibited" line, a header of <td><b> cells and
// districts established in one sentence separated by semicolons, one of them "I"; a town's own
// Markdown with group rows in its dimensional table.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, test } from 'vitest';
import { parseOrdinance } from '../../ingest/ordinance/index.ts';
import type { OrdinanceParse } from '../../ingest/types.ts';

const fixture = (name: string) => readFileSync(resolve(import.meta.dirname, '../fixtures/publisher-shapes', name));
const cell = (p: OrdinanceParse, district: string, use: string) => p.permissions.find((x) => x.district_code === district && x.use_label_raw === use);
const quotesHold = (p: OrdinanceParse) => {
  for (const f of [...p.permissions, ...p.controls]) expect(p.text.slice(f.citation.locator.start, f.citation.locator.end)).toBe(f.citation.quote);
};

describe('Municode-shaped page', () => {
  test('sections from numbered, titled lines though nothing sets them apart; each quoted mark keeps its own meaning', async () => {
    const p = await parseOrdinance(fixture('municode-style.html'), { mediaType: 'text/html' });
    expect(p.sections.map((s) => [s.ref, s.heading])).toEqual([
      ['17.20.010', 'Purpose'],
      ['17.20.020', 'Uses'],
      ['17.20.030', 'Development standards'],
    ]);
    expect(p.districts.map((d) => d.code_normalized)).toEqual(['R-1', 'R-2', 'C-1']);
    // '"•" indicates a use permitted by right, "C" … a conditional use permit, and a blank cell … not permitted'
    expect(cell(p, 'C-1', 'Retail sales')).toMatchObject({ symbol: '•', level: 'by_right' });
    expect(cell(p, 'C-1', 'Restaurant')).toMatchObject({ symbol: 'C', level: 'conditional_use' });
    expect(cell(p, 'R-1', 'Restaurant')).toMatchObject({ symbol: '', level: 'prohibited' });
    // the notes row "Notes: 1. Limited to …" gives the note its mark points to
    expect(cell(p, 'R-2', 'Retail sales')).toMatchObject({ symbol: 'C¹', level: 'conditional_use', conditions: 'note 1: 1. Limited to 2,000 square feet of floor area.' });
    expect(p.issues.map((i) => i.code)).not.toContain('symbol_unknown');
    expect(p.controls.find((c) => c.district_code === 'R-1' && c.control_type === 'dimensional.stories')).toMatchObject({ max: 2.5, value_text: '35/2.5' });
    quotesHold(p);
  });
});

describe('eCode360-shaped page', () => {
  test('districts from a sentence listing them by semicolons ("I Industrial District" included); a key’s marks are never districts', async () => {
    const p = await parseOrdinance(fixture('ecode-style.html'), { mediaType: 'text/html' });
    expect(p.sections.map((s) => s.ref)).toEqual(['200-7', '200-8', '200-9']);
    expect(p.districts.map((d) => d.code_normalized)).toEqual(['R-40', 'R-20', 'B', 'I']);
    expect(cell(p, 'R-20', 'Two-family dwelling')).toMatchObject({ symbol: 'SP', level: 'conditional_use', category: 'A. Residential' });
    expect(cell(p, 'I', 'Retail store')).toMatchObject({ symbol: 'PB', level: 'conditional_use' });
    expect(cell(p, 'B', 'One-family dwelling')).toMatchObject({ symbol: 'N', level: 'prohibited' });
    expect(p.permissions).toHaveLength(12); // 3 uses × 4 districts, no row read twice
    expect(p.controls.filter((c) => c.district_code === 'I').map((c) => [c.control_type, c.min ?? c.max])).toEqual([
      ['dimensional.lot_area', 40000],
      ['dimensional.lot_width', 150],
      ['dimensional.setback_front', 50],
      ['dimensional.height', 45],
    ]);
    quotesHold(p);
  });
});

describe('a town’s own Markdown: a dimensional table with group rows', () => {
  test('sub-rows name their measure with the group’s subject (Width under Minimum Lot Size), alternatives with their own units, ½', async () => {
    const p = await parseOrdinance(fixture('town-dimensions.md'), { mediaType: 'text/markdown' });
    const of = (d: string) => p.controls.filter((c) => c.district_code === d).map((c) => [c.control_type, c.min, c.max, c.unit, c.qualifier]);
    expect(of('R-1')).toEqual([
      ['dimensional.lot_area', 15000, null, 'sq_ft', null],
      ['dimensional.lot_width', 100, null, 'ft', null],
      ['dimensional.setback_front', 30, null, 'ft', null],
      ['dimensional.setback_side', 10, null, 'ft', null],
      ['dimensional.setback_rear', 30, null, 'ft', null],
      ['dimensional.height', null, 35, 'ft', null],
      ['dimensional.stories', null, 2.5, 'stories', null],
      ['dimensional.coverage', null, 30, 'percent', null],
      ['dimensional.floor_area_per_dwelling_unit', 900, null, 'sq_ft', null],
    ]);
    expect(p.issues.map((i) => i.code)).not.toContain('value_unparsed');
    for (const c of p.controls) expect(c.conditions ?? '').not.toContain('note *');
    quotesHold(p);
  });
});

describe('a use table with a category column and its key as the last row', () => {
  test('the category column groups the rows; each key entry ends at the next; blank = not allowed is the cited rule for blanks; * is a note', async () => {
    const p = await parseOrdinance(fixture('use-categories.md'), { mediaType: 'text/markdown' });
    expect(p.districts.map((d) => d.code_normalized)).toEqual(['RS-7', 'RS-5', 'RM-1', 'CN', 'CG']);
    expect(cell(p, 'RS-5', 'Duplex')).toMatchObject({ category: 'Residential', symbol: 'L', level: 'permitted_with_standards', conditions: 'Standards: 20.5.3' });
    expect(cell(p, 'CN', 'Retail, general')).toMatchObject({ category: 'Commercial', level: 'by_right' });
    expect(cell(p, 'CN', 'Drive-through facility')).toMatchObject({ symbol: 'C', level: 'conditional_use' });
    const blank = cell(p, 'RS-7', 'Drive-through facility');
    expect(blank).toMatchObject({ symbol: '', level: 'prohibited' });
    expect(blank?.citation.quote).toBe('blank = not allowed');
    expect(cell(p, 'CG', 'Multifamily')).toMatchObject({ symbol: 'P*', level: 'by_right', conditions: 'note *: * on upper floors only; Standards: 20.5.4' });
    expect(p.permissions).toHaveLength(25);
    expect(p.indeterminate ?? []).toEqual([]);
    quotesHold(p);
  });
});

test('districts listed on the line that establishes them', async () => {
  const md = '# Zoning\n\n## Section 4.1 Establishment\n\nThe following districts are established: A-1 Agricultural District; R-1 Residential District; C-1 Commercial District.\n\n## Section 4.2 Purposes\n\nEach district serves its purpose.\n';
  const p = await parseOrdinance(Buffer.from(md), { mediaType: 'text/markdown' });
  expect(p.districts.map((d) => d.code_normalized)).toEqual(['A-1', 'R-1', 'C-1']);
  for (const d of p.districts) expect(p.text.slice(d.citation.locator.start, d.citation.locator.end)).toBe(d.citation.quote);
});

test('a schedule marked X and SE whose prose says unmarked uses are prohibited; ARTICLE III. as a tagged heading', async () => {
  const p = await parseOrdinance(fixture('schedule-x-se.html'), { mediaType: 'text/html' });
  expect(p.sections.map((s) => [s.ref, s.heading])).toEqual([
    ['Article III', 'DISTRICT REGULATIONS'],
    ['3.1', 'Districts.'],
    ['3.2', 'Schedule of permitted uses.'],
    ['3.3', 'Area and bulk.'],
  ]);
  expect(p.districts.map((d) => d.code_normalized)).toEqual(['AG', 'R-1A', 'R-2', 'B-2', 'M-1', 'OS']);
  // '"SE" means … permitted by special exception …, and uses not marked are prohibited'
  expect(cell(p, 'R-1A', 'Agriculture')).toMatchObject({ symbol: 'SE', level: 'conditional_use', conditions: 'Parking Group: 1' });
  const blank = cell(p, 'R-2', 'Agriculture');
  expect(blank).toMatchObject({ symbol: '', level: 'prohibited' });
  expect(blank?.citation.quote).toContain('uses not marked are prohibited');
  expect(p.permissions).toHaveLength(24);
  expect(p.controls.find((c) => c.district_code === 'AG' && c.control_type === 'dimensional.lot_area')).toMatchObject({ min: 2, unit: 'acres' });
  quotesHold(p);
});

test('"Party in Interest" is no Part y', async () => {
  const p = await parseOrdinance(Buffer.from('# Code\n\n## 1.1 Terms\n\nWords.\n\n###### Party in Interest\n\nA person.\n'), { mediaType: 'text/markdown' });
  expect(p.sections.map((s) => s.ref)).not.toContain('Part y');
});

test('a key in prose, one mark to a sentence, with "or left blank" as the rule for blank cells', async () => {
  const md = `# Zoning

## Section 4.1 Districts

The following districts are established: R-1 Residence District; B-1 Business District.

## Section 4.2 Table of uses

Uses permitted by right are indicated by "P". Uses requiring a special permit from the Board of Appeals are indicated by "SP". Uses not permitted are indicated by "-" or left blank.

| Use | R-1 | B-1 |
|---|---|---|
| Dwelling | P | - |
| Office | | SP |
`;
  const p = await parseOrdinance(Buffer.from(md), { mediaType: 'text/markdown' });
  expect(cell(p, 'R-1', 'Dwelling')).toMatchObject({ level: 'by_right' });
  expect(cell(p, 'B-1', 'Dwelling')).toMatchObject({ symbol: '-', level: 'prohibited' });
  expect(cell(p, 'B-1', 'Office')).toMatchObject({ symbol: 'SP', level: 'conditional_use' });
  const blank = cell(p, 'R-1', 'Office');
  expect(blank).toMatchObject({ symbol: '', level: 'prohibited' });
  expect(blank?.citation.quote).toBe('Uses not permitted are indicated by "-" or left blank.');
});
