// Amending ordinances' own texts to instructions: the synthetic town's clerk pages (HTML) and an
// order written in another town's shape (Markdown, curly quotes, "deleting … substituting").
import { readFile } from 'node:fs/promises';
import { expect, test } from 'vitest';
import { districtRef, parseAmendmentText } from '../../ingest/ordinance/amendment-text.ts';

const fixture = (p: string) => readFile(new URL(`../fixtures/${p}`, import.meta.url));

test('a section amendment strikes and inserts quoted passages, quoted verbatim', async () => {
  const r = await parseAmendmentText(await fixture('synthetic-town/common/clerk/ord/2026-03.html'), 'text/html');
  expect(r.instructions).toHaveLength(1);
  const [i] = r.instructions;
  expect(i).toMatchObject({ action: 'replace', target: 'section', ref: '6.1', struck: '900 square feet', inserted: '1,000 square feet', row: null });
  expect(r.text.slice(i.start, i.end)).toBe(i.quote);
  expect(i.quote).toMatch(/^Section 1\. Section 6\.1 of the Zoning Ordinance is proposed to be amended/);
});

test("a table amendment names the district's row, the column as a control type and the unit", async () => {
  const r = await parseAmendmentText(await fixture('synthetic-town/v2/clerk/ord/2026-07.html'), 'text/html');
  expect(r.instructions).toEqual([
    expect.objectContaining({ action: 'replace', target: 'table', ref: '5.1', row: 'R-1', column: 'minimum front setback', control_type: 'dimensional.setback_front', struck: '25', inserted: '20', unit: 'ft' }),
  ]);
});

test('a map amendment moves described land from one district to another', async () => {
  const r = await parseAmendmentText(await fixture('synthetic-town/v2/clerk/ord/2026-08.html'), 'text/html');
  expect(r.instructions).toEqual([
    expect.objectContaining({ action: 'rezone', target: 'map', from: { code: 'R-2', name: 'Residence B' }, to: { code: 'VC', name: 'Village Center' }, land: '221 Main Street', address: '221 Main Street' }),
  ]);
});

test('an order in another shape: curly quotes, deleting and substituting, map and lot, and what is not read', async () => {
  const r = await parseAmendmentText(await fixture('amending-ordinances/order.md'), 'text/markdown');
  const [section, table, map, unread] = r.instructions;
  expect(section).toMatchObject({ action: 'replace', target: 'section', ref: '4.3.2(b)', struck: 'twenty-five feet', inserted: 'thirty feet' });
  expect(table).toMatchObject({ action: 'replace', target: 'table', ref: '8-1', row: 'RB', control_type: 'dimensional.height', struck: '35', inserted: '40', unit: 'ft' });
  expect(map).toMatchObject({ action: 'rezone', from: { code: 'RC', name: 'Residence C' }, to: { code: 'BA', name: 'Business A' }, land: '14 Elm Street', address: '14 Elm Street' });
  expect(unread).toMatchObject({ action: 'unread', target: 'section', ref: '11' });
  expect(unread.reason).toMatch(/not read/);
  // the effective-date sentence amends nothing
  expect(r.instructions).toHaveLength(4);
});

test('a repeal is kept as an instruction not read, with why', async () => {
  const r = await parseAmendmentText(await fixture('synthetic-town/v2/clerk/ord/2026-09.html'), 'text/html');
  expect(r.instructions).toEqual([expect.objectContaining({ action: 'unread', target: 'section', ref: '6.2', reason: expect.stringMatching(/^repeals/) })]);
});

test('an ordinance that amends nothing says so', async () => {
  const r = await parseAmendmentText(new TextEncoder().encode('<p>An ordinance regulating noise. No person shall operate a leaf blower before 8 a.m.</p>'), 'text/html');
  expect(r.instructions).toEqual([]);
  expect(r.issues.map((x) => x.code)).toEqual(['no_amendment_instruction']);
});

test('district references in the forms codes print them', () => {
  expect(districtRef('Residence B (R-2)')).toEqual({ code: 'R-2', name: 'Residence B' });
  expect(districtRef('the R-2 District')).toEqual({ code: 'R-2', name: null });
  expect(districtRef('VC')).toEqual({ code: 'VC', name: null });
  expect(districtRef('the land between it and the boundary')).toBeNull();
});
