// The synthetic clerk's ordinance list, both versions, and a list with labels it cannot map.
import { describe, expect, test } from 'vitest';
import { ordinanceListMapping } from '../../../ingest/records/mappings.ts';
import { parseOrdinanceList } from '../../../ingest/records/ordinance-list.ts';
import { siteFile } from '../../helpers/synthetic-site.ts';

const mapping = ordinanceListMapping('ordinance_list_html');
const base = 'http://127.0.0.1:8000/clerk/ordinances.html';
const parse = (v: 1 | 2) => parseOrdinanceList(siteFile(v, '/clerk/ordinances.html')!.bytes, mapping, base);

describe('ordinance list v1', () => {
  const r = parse(1);
  test('five ordinances with kinds, statuses, subjects, dates and links; no moratorium', () => {
    expect(r.issues).toEqual([]);
    expect(r.rejected).toEqual([]);
    expect(r.moratoriums).toEqual([]);
    expect(r.ordinances.map((o) => [o.number, o.kind, o.status, o.subject])).toEqual([
      ['2019-01', 'standalone', 'adopted', null],
      ['2022-04', 'text_amendment', 'adopted', 'solar'],
      ['2023-02', 'text_amendment', 'failed', 'wind'],
      ['2024-06', 'standalone', 'adopted', 'noise'],
      ['2026-03', 'text_amendment', 'introduced', null],
    ]);
    const solar = r.ordinances[1];
    expect(solar).toMatchObject({ introduced_on: '2022-03-08', adopted_on: '2022-05-10', effective_from: '2022-06-01', href: 'http://127.0.0.1:8000/clerk/ord/2022-04.html', kind_raw: 'Text amendment', subject_raw: 'Solar' });
    expect(r.ordinances[2]).toMatchObject({ adopted_on: null, effective_from: null });
  });
});

describe('ordinance list v2', () => {
  const v1 = parse(1);
  const r = parse(2);
  test('gains exactly four adopted ordinances; the v1 rows are unchanged', () => {
    expect(r.ordinances.slice(0, 5)).toEqual(v1.ordinances);
    expect(r.ordinances.slice(5).map((o) => [o.number, o.kind, o.status, o.subject, o.adopted_on, o.effective_from])).toEqual([
      ['2026-07', 'text_amendment', 'adopted', null, '2026-04-14', '2026-05-01'],
      ['2026-08', 'map_amendment', 'adopted', null, '2026-04-14', '2026-05-15'],
      ['2026-09', 'text_amendment', 'adopted', null, '2026-04-14', '2026-06-01'],
      ['2026-10', 'moratorium', 'adopted', 'battery_storage', '2026-04-14', '2026-04-15'],
    ]);
    expect(r.ordinances[7].kind_raw).toBe('Repeal');
  });
  test('the moratorium: uses paused, whole town, dates, its ordinance', () => {
    expect(r.moratoriums).toEqual([
      {
        title: 'Temporary Moratorium on Battery Energy Storage Systems',
        ordinance_number: '2026-10',
        uses: ['Battery energy storage system'],
        effective_from: '2026-04-15',
        effective_through: '2027-04-14',
        area: { scope: 'jurisdiction' },
        href: 'http://127.0.0.1:8000/clerk/ord/2026-10.html',
        row_text: expect.stringContaining('Town-wide'),
        line: 1,
      },
    ]);
  });
  test('every linked ordinance text exists in v2', () => {
    for (const o of r.ordinances) expect(siteFile(2, new URL(o.href!).pathname), o.number).not.toBeNull();
    expect(siteFile(1, '/clerk/ord/2026-07.html')).toBeNull();
  });
});

describe('a list the mapping only partly understands', () => {
  const html = `<h2>Ordinances</h2><table><tr><th>Number</th><th>Title</th><th>Type</th><th>Status</th><th>Adopted</th><th>Effective</th></tr>
    <tr><td>A-1<td><a href="/a1.pdf">Signs &amp; Awnings</a><td>Resolution<td>Tabled<td>03/02/2025<td>02/30/2025</tr>
    <tr><td></td><td>No number</td><td>Text amendment</td><td>Adopted</td><td></td><td></td></tr>
    </table>
    <h2>Moratoria</h2><table><tr><th>Moratorium</th><th>Uses</th><th>Applies to</th><th>Effective</th><th>Expires</th></tr>
    <tr><td>Cannabis pause</td><td>Marijuana retailer; Marijuana cultivator</td><td>Districts B-1 and I-2</td><td>1 March 2025</td><td>Feb. 28, 2026</td></tr>
    <tr><td>Odd</td><td>x</td><td>near the river</td><td></td><td></td></tr></table>`;
  const r = parseOrdinanceList(html, mapping, 'https://town.example/clerk/');
  test('unknown labels kept raw with issues; a bad date reported; a row without a number rejected', () => {
    expect(r.ordinances).toHaveLength(1);
    expect(r.ordinances[0]).toMatchObject({ number: 'A-1', title: 'Signs & Awnings', kind: null, kind_raw: 'Resolution', status: null, status_raw: 'Tabled', adopted_on: '2025-03-02', effective_from: null, href: 'https://town.example/a1.pdf' });
    expect(r.issues.map((i) => i.code)).toEqual(['label_unmapped', 'label_unmapped', 'value_invalid']);
    expect(r.rejected).toEqual([{ line: 2, reason: 'no ordinance number in the row', raw: ' | No number | Text amendment | Adopted |  | ' }]);
  });
  test('moratorium areas: named districts, or kept raw when not understood', () => {
    expect(r.moratoriums.map((m) => m.area)).toEqual([{ scope: 'district', codes: ['B-1', 'I-2'] }, { scope: 'unknown', raw: 'near the river' }]);
    expect(r.moratoriums[0]).toMatchObject({ uses: ['Marijuana retailer', 'Marijuana cultivator'], effective_from: '2025-03-01', effective_through: '2026-02-28' });
  });
  test('a page without the table is refused', () => {
    expect(() => parseOrdinanceList('<p>nothing</p>', mapping)).toThrow(/no table matching "Ordinances"/);
  });
});
