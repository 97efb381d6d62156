// The synthetic registry index, both versions: instruments, parties by role, transactions by the
// deal rule (nominal consideration is a transfer), and a broken index reported line by line.
import { describe, expect, test } from 'vitest';
import { recorderMapping } from '../../../ingest/records/mappings.ts';
import { dealKind, parseRecorderIndex } from '../../../ingest/records/recorder.ts';
import { siteFile } from '../../helpers/synthetic-site.ts';

const mapping = recorderMapping('millbrook_registry');
const parse = (v: 1 | 2) => parseRecorderIndex(siteFile(v, '/registry/index.csv')!.bytes, mapping);

describe('deal rule', () => {
  test.each([
    [null, 'transfer', false],
    [0, 'transfer', true],
    [100, 'transfer', true],
    [10_000, 'transfer', true],
    [10_001, 'sale', false],
    [52_900_000, 'sale', false],
  ])('%s cents → %s', (cents, kind, nominal) => {
    expect(dealKind(cents)).toEqual({ kind, nominal });
  });
});

describe('registry index v1', () => {
  const r = parse(1);

  test('12 instruments, nothing rejected, no issues', () => {
    expect(r.instruments).toHaveLength(12);
    expect(r.rejected).toEqual([]);
    expect(r.issues).toEqual([]);
    expect(r.instruments.every((d) => d.doc_type === 'recorded_instrument')).toBe(true);
  });

  test('a deed for $612,000 is a sale, with grantor and grantees', () => {
    const d = r.instruments.find((x) => x.instrument_number === '2021-001877')!;
    expect(d).toMatchObject({ instrument_type: 'DEED', book: '7712', page: '88', recorded_on: '2021-08-03', instrument_date: '2021-07-30', consideration_cents: 61_200_000, parcel_keys: ['2-1'], address_keys: ['101 MAIN ST'], lines: [4, 5, 6] });
    expect(d.parties).toEqual([
      { name: 'PRESCOTT, DAVID', role: 'grantor' },
      { name: 'NGUYEN, LINH', role: 'grantee' },
      { name: 'OKAFOR, CHIDI', role: 'grantee' },
    ]);
    const t = r.transactions.find((x) => x.natural_key === '2021-001877')!;
    expect(t).toMatchObject({ kind: 'sale', nominal: false, consideration_cents: 61_200_000, sale_date: '2021-07-30', recorded_on: '2021-08-03' });
  });

  test('$1, $0 and $10 deeds are nominal transfers with no sale date', () => {
    for (const [key, cents] of [['2019-000412', 100], ['2025-000310', 0], ['2025-001400', 1000]] as const) {
      const t = r.transactions.find((x) => x.natural_key === key)!;
      expect(t).toMatchObject({ kind: 'transfer', nominal: true, consideration_cents: cents, sale_date: null });
    }
  });

  test('mortgage and assignment roles; the assignment names the mortgage it assigns', () => {
    const m = r.transactions.find((x) => x.natural_key === '2021-001878')!;
    expect(m.kind).toBe('mortgage');
    expect(m.parties.map((p) => p.role)).toEqual(['mortgagor', 'mortgagor', 'mortgagee']);
    const a = r.transactions.find((x) => x.natural_key === '2023-000233')!;
    expect(a).toMatchObject({ kind: 'assignment', consideration_cents: null, references: [{ instrument_number: '2021-001878', book: '7712', page: '95' }] });
    expect(a.parties).toEqual([
      { name: 'MILLBROOK CO-OPERATIVE BANK', role: 'assignor' },
      { name: 'NORTHEAST HOME LOANS LLC', role: 'assignee' },
    ]);
  });

  test('a deed of two parcels; easements and discharges are instruments without transactions', () => {
    const t = r.transactions.find((x) => x.natural_key === '2025-001600')!;
    expect(t.parcel_keys).toEqual(['6-1', '6-2']);
    expect(t.addresses.map((a) => a.street_line_1)).toEqual(['301 MAIN ST', '305-307 MAIN ST']);
    expect(r.instruments.find((x) => x.natural_key === '2025-001600')!.address_keys).toEqual(['301 MAIN ST', '305 MAIN ST', '307 MAIN ST']);
    expect(r.transactions.map((x) => x.natural_key)).not.toContain('2024-001250');
    expect(r.transactions.map((x) => x.natural_key)).not.toContain('2025-000555');
    expect(r.transactions).toHaveLength(10);
    expect(r.transactions.filter((x) => x.kind === 'sale')).toHaveLength(5);
  });
});

describe('registry index v2', () => {
  const v1 = parse(1);
  const r = parse(2);
  test('exactly one new instrument: the $529,000 deed of 105 Main St', () => {
    const known = new Set(v1.instruments.map((x) => x.natural_key));
    const added = r.instruments.filter((x) => !known.has(x.natural_key));
    expect(added.map((x) => x.natural_key)).toEqual(['2026-000480']);
    expect(r.instruments.filter((x) => known.has(x.natural_key))).toEqual(v1.instruments);
    const t = r.transactions.find((x) => x.natural_key === '2026-000480')!;
    expect(t).toMatchObject({ kind: 'sale', consideration_cents: 52_900_000, sale_date: '2026-04-16', recorded_on: '2026-04-20', book: '8512', page: '66', parcel_keys: ['2-2'] });
    expect(t.parties).toEqual([
      { name: 'HALE, THOMAS J', role: 'grantor' },
      { name: 'ROSSI, ANGELA', role: 'grantee' },
    ]);
  });
});

describe('a broken index', () => {
  const header = 'DOC_NO,BOOK,PAGE,REC_DATE,DOC_TYPE,DOC_DATE,CONSIDERATION,PARTY_TYPE,PARTY_NAME,TOWN,PROPERTY_ADDRESS,MAP_LOT,REF_DOC_NO,REF_BOOK,REF_PAGE';
  const r = parseRecorderIndex(
    [
      header,
      '2026-1,1,1,01/05/2026,DEED,01/02/2026,"$1,000.00",GRANTOR,A,MILLBROOK,1 MAIN ST,2-1,,,',
      '2026-1,1,1,01/06/2026,DEED,01/02/2026,"$1,000.00",GRANTEE,B,MILLBROOK,1 MAIN ST,2-1,,,',
      '2026-2,1,2,13/45/2026,LIS PENDENS,,ten dollars,GRANTOR,C,MILLBROOK,3 MAIN ST,2-2,,,',
      ',,,01/07/2026,DEED,,,GRANTOR,D,MILLBROOK,,,,,',
      '2026-3,1,3,01/08/2026,DEED',
      '2026-4,1,4,01/09/2026,DEED,01/09/2026,$500.00,WITNESS,E,MILLBROOK,5 MAIN ST,2-3,,,',
    ].join('\n'),
    mapping,
  );
  test('rejected lines, disagreeing lines, unreadable values and unknown labels are all reported', () => {
    expect(r.rejected.map((x) => [x.line, x.reason])).toEqual([
      [5, 'no instrument number or book/page (DOC_NO, BOOK, PAGE blank)'],
      [6, 'has 5 fields, the header has 15'],
    ]);
    const codes = r.issues.map((i) => `${i.locator?.line}:${i.code}`);
    expect(codes).toEqual(['3:instrument_lines_disagree', '4:instrument_type_unmapped', '4:value_invalid', '4:value_invalid', '7:party_side_unknown']);
    const lis = r.instruments.find((x) => x.natural_key === '2026-2')!;
    expect(lis).toMatchObject({ recorded_on: null, consideration_cents: null, instrument_type: 'LIS PENDENS' });
    expect(r.transactions.map((x) => [x.natural_key, x.kind])).toEqual([
      ['2026-1', 'sale'],
      ['2026-4', 'sale'],
    ]);
    expect(r.instruments.find((x) => x.natural_key === '2026-1')!.recorded_on).toBe('2026-01-05');
  });
});
