// A roll with broken lines and unreadable values: each reported with its line, reason and key, the
// rest kept; a mapping whose columns the file lacks is refused.
import { describe, expect, test } from 'vitest';
import { parseAssessorRoll, streamAssessorRoll, type RollItem } from '../../../ingest/records/assessor.ts';
import { type AssessorMapping, MappingError } from '../../../ingest/records/assessor-mapping.ts';
import { readCsv } from '../../../ingest/records/csv.ts';

const mapping: AssessorMapping = {
  name: 'test_roll',
  columns: {
    account_key: 'ACCT',
    building_number: 'BLDG',
    parcel_key: 'PARCEL',
    address: 'ADDR',
    land_value: 'LAND',
    total_value: 'TOTAL',
    sale_date: 'SALE_DATE',
    sale_price: 'PRICE',
    year_built: 'YEAR',
  },
  land_area_unit: 'sq_ft',
  placeholders: { land_value: ['0'], year_built: ['0'], sale_date: ['1/1/1900'], sale_price: ['0'] },
};

const csv = [
  'ACCT,BLDG,PARCEL,ADDR,LAND,TOTAL,SALE_DATE,PRICE,YEAR', // line 1
  '1,1,10-1,1 ELM ST,"100,000",250000,3/4/2020,300000,1950', // 2: good, quoted thousands
  '2,1,10-2,3 ELM ST,0,abc,2/30/2019,5,0', // 3: land placeholder, bad total, impossible date
  '3,1,10-3,5 ELM ST,90000,190000', // 4: too few fields
  ',1,10-4,7 ELM ST,1,2,1/1/2001,1,1900', // 5: no account key
  '4,1,10-5,"9 ELM ST, REAR",80000,180000,1/1/1900,0,1925', // 6: good, quoted comma
  '4,2,10-5,"9 ELM ST, REAR",80000,180000,1/1/1900,0,1988', // 7: second building of 4
  '5,1,10-6,11 ELM ST,70000,170000,6/1/2011,250000,1930,EXTRA', // 8: too many fields
  '1,1,10-1,1 ELM ST,100000,250000,3/4/2020,300000,1950', // 9: account 1 again, not adjacent
  '6,1,10-7,"13 ELM ST,60000,160000,1/2/2003,1,1901', // 10: unclosed quote to the end
].join('\n');

describe('bad lines and bad values', () => {
  const r = parseAssessorRoll(csv, mapping);

  test('rejected lines carry their line, reason and raw text', () => {
    expect(r.rejected.map((x) => x.line)).toEqual([4, 5, 8, 9, 10]);
    expect(r.rejected[0]).toEqual({ line: 4, reason: 'has 6 fields, the header has 9', raw: '3,1,10-3,5 ELM ST,90000,190000', keys: ['3'] });
    expect(r.rejected[1].reason).toBe('no account key (ACCT blank)');
    expect(r.rejected[2].reason).toBe('has 10 fields, the header has 9');
    expect(r.rejected[3].reason).toMatch(/account key 1 repeats \(first at line 2\)/);
    expect(r.rejected[4].reason).toMatch(/^unreadable CSV: /);
    expect(r.rejected[4].raw).toContain('13 ELM ST');
    // the key each line names, where one can be read; a repeat is read elsewhere, so names none
    expect(r.rejected.map((x) => x.keys)).toEqual([['3'], undefined, ['5'], undefined, ['6']]);
  });

  test('the rest is kept: three accounts, the second with two buildings', () => {
    expect(r.rows.map((x) => x.account_key)).toEqual(['1', '2', '4']);
    expect(r.rows[0].assessment.land_value_cents).toBe(10_000_000);
    expect(r.rows[2].lines).toEqual([6, 7]);
    expect(r.rows[2].structures.map((s) => s.year_built)).toEqual([1925, 1988]);
    expect(r.rows[2].label).toBe('9 ELM ST, REAR');
  });

  test('unreadable values are null, listed as invalid and reported; placeholders are withheld', () => {
    const two = r.rows[1];
    expect(two.assessment.total_value_cents).toBeNull();
    expect(two.invalid).toEqual(['assessment.total_value_cents', 'sales[0].sale_date']);
    expect(two.assessment.land_value_cents).toBeNull();
    expect(two.withheld).toContain('assessment.land_value_cents');
    expect(two.withheld).toContain('structures');
    expect(two.sales).toEqual([{ kind: 'transfer', consideration_cents: 500, sale_date: null, book: null, page: null, reference_raw: null }]);
    const details = r.issues.filter((i) => i.code === 'value_invalid').map((i) => i.detail);
    expect(details).toEqual(['line 3, column TOTAL: not a number: "abc"', 'line 3, column SALE_DATE: impossible date: "2/30/2019"']);
    expect(r.rows[2].sales).toEqual([]);
    expect(r.rows[2].withheld).toContain('sales');
  });

  test('the stream form reports the same', async () => {
    const items: RollItem[] = [];
    for await (const it of streamAssessorRoll([csv.slice(0, 100), csv.slice(100)], mapping)) items.push(it);
    expect(items.flatMap((it) => ('row' in it ? [it.row] : []))).toEqual(r.rows);
    expect(items.flatMap((it) => ('rejected' in it ? [it.rejected] : [])).map((x) => x.line)).toEqual([4, 5, 8, 9, 10]);
  });

  test('a file without a mapped column is refused, naming the column', () => {
    expect(() => parseAssessorRoll('ACCT,PARCEL\n1,2\n', mapping)).toThrow(MappingError);
    expect(() => parseAssessorRoll('ACCT,PARCEL\n1,2\n', mapping)).toThrow(/no column BLDG, ADDR/);
    expect(() => parseAssessorRoll('A\n1\n', { ...mapping, columns: { address: 'A' } })).toThrow(/needs columns.account_key/);
  });

  test('a quote left open mid-file: its line and each line it swallowed are rejected on their own, with their keys', () => {
    const text = [
      'ACCT,BLDG,PARCEL,ADDR,LAND,TOTAL,SALE_DATE,PRICE,YEAR', // 1
      '7,1,10-8,"15 ELM ST,1,2,1/1/2001,1,1900', // 2: quote never closed on its line
      '8,1,10-9,17 ELM ST,1,2,1/1/2001,1,1900', // 3: swallowed
      '9,1,10-10,"19 ELM ST",1,2,1/1/2001,1,1900', // 4: swallowed; its first quote closes line 2's
      '10,1,10-11,21 ELM ST,1,2,1/1/2001,1,1900', // 5: read again
    ].join('\n');
    const x = parseAssessorRoll(text, mapping);
    expect(x.rows.map((row) => row.account_key)).toEqual(['10']);
    expect(x.rejected.map(({ line, reason, keys }) => ({ line, reason, keys }))).toEqual([
      { line: 2, reason: 'a quote opened on this line is not closed on its line; it swallows lines 3 to 4', keys: ['7'] },
      { line: 3, reason: 'swallowed by the quote opened on line 2', keys: ['8'] },
      { line: 4, reason: 'swallowed by the quote opened on line 2', keys: ['9'] },
    ]);
    // even when the swallowed text happens to add up to a row of the header's width
    const even = parseAssessorRoll(['A,B,C', '1,"x,y', '2,p,q', '3,"z",w'].join('\n'), { ...mapping, columns: { account_key: 'A', parcel_key: 'B', address: 'C' } });
    expect(even.rows).toEqual([]);
    expect(even.rejected.map((r) => [r.line, r.keys])).toEqual([
      [2, ['1']],
      [3, ['2']],
      [4, ['3']],
    ]);
  });

  test('a quote never closed: its line and every line to the end of the file rejected on their own, with their keys', async () => {
    const text = [
      'ACCT,BLDG,PARCEL,ADDR,LAND,TOTAL,SALE_DATE,PRICE,YEAR', // 1
      '7,1,10-8,15 ELM ST,1,2,1/1/2001,1,1900', // 2: read
      '8,1,10-9,"17 ELM ST,1,2,1/1/2001,1,1900', // 3: a quote never closed
      '9,1,10-10,19 ELM ST,1,2,1/1/2001,1,1900', // 4: swallowed
      '10,1,10-11,21 ELM ST,1,2,1/1/2001,1,1900', // 5: swallowed
    ].join('\n');
    for (const x of [parseAssessorRoll(text, mapping), parseAssessorRoll(`${text}\n`, mapping)]) {
      expect(x.rows.map((row) => row.account_key)).toEqual(['7']);
      expect(x.rejected.map(({ line, reason, keys }) => ({ line, reason, keys }))).toEqual([
        { line: 3, reason: 'a quote opened on this line is never closed; it swallows lines 4 to 5', keys: ['8'] },
        { line: 4, reason: 'swallowed by the quote opened on line 3', keys: ['9'] },
        { line: 5, reason: 'swallowed by the quote opened on line 3', keys: ['10'] },
      ]);
    }
    const streamed: RollItem[] = [];
    for await (const it of streamAssessorRoll([text.slice(0, 70), text.slice(70)], mapping)) streamed.push(it);
    expect(streamed.flatMap((it) => ('rejected' in it ? [[it.rejected.line, it.rejected.keys]] : []))).toEqual([
      [3, ['8']],
      [4, ['9']],
      [5, ['10']],
    ]);
  });

  test('a quote that swallows a line itself broken: both lines rejected, each with its key', () => {
    const text = [
      'ACCT,BLDG,PARCEL,ADDR,LAND,TOTAL,SALE_DATE,PRICE,YEAR',
      '14,1,10-15,29 ELM ST,1,2,1/1/2001,1,"1900', // a quote opened in YEAR
      '15,1,10-16,"31 ELM ST,1,"2",1/1/2001,1,1900', // its "2", closes it; alone, 7 fields
      '16,1,10-17,33 ELM ST,1,2,1/1/2001,1,1900',
    ].join('\n');
    const x = parseAssessorRoll(text, mapping);
    expect(x.rows.map((row) => row.account_key)).toEqual(['16']);
    expect(x.rejected.map(({ line, reason, keys }) => ({ line, reason, keys }))).toEqual([
      { line: 2, reason: 'a quote opened on this line is not closed on its line; it swallows line 3', keys: ['14'] },
      { line: 3, reason: 'swallowed by the quote opened on line 2', keys: ['15'] },
    ]);
  });

  test('a quote that closes a field which goes on rejects its line; a quote inside an unquoted field is text', () => {
    const text = [
      'ACCT,BLDG,PARCEL,ADDR,LAND,TOTAL,SALE_DATE,PRICE,YEAR',
      '12,1,10-13,"25 ELM," ST,1,2,1/1/2001,1,1900', // read leniently this has the right width
      '13,1,10-14,27 ELM ST 12" LOT,1,2,1/1/2001,1,1900',
    ].join('\n');
    const x = parseAssessorRoll(text, mapping);
    expect(x.rows.map((row) => [row.account_key, row.label])).toEqual([['13', '27 ELM ST 12" LOT']]);
    expect(x.rejected.map(({ line, reason, keys }) => ({ line, reason, keys }))).toEqual([{ line: 2, reason: 'the quote closing column ADDR is followed by more text', keys: ['12'] }]);
  });

  test('a quote before the key, closed later on its line: the key is read with the quote taken as text', () => {
    const x = parseAssessorRoll(['ACCT,BLDG,PARCEL,ADDR,LAND,TOTAL,SALE_DATE,PRICE,YEAR', '"11,1,10-12,"23 ELM ST, REAR",1,2,1/1/2001,1,1900'].join('\n'), mapping);
    expect(x.rows).toEqual([]);
    // as read, the first cell runs to the next quote; split on every comma it is the account
    expect(x.rejected.map((r) => r.keys)).toEqual([['11,1,10-12,"23 ELM ST', '11']]);
  });

  test('a NUL byte rejects its line only, naming the column', () => {
    const x = parseAssessorRoll(`${csv.split('\n').slice(0, 3).join('\n').replace('3 ELM ST', '3 EL\u0000M ST')}\n`, mapping);
    expect(x.rows.map((row) => row.account_key)).toEqual(['1']);
    expect(x.rejected).toEqual([{ line: 3, reason: 'a NUL byte in column ADDR', raw: '2,1,10-2,3 EL\u0000M ST,0,abc,2/30/2019,5,0', keys: ['2'] }]);
  });

  test('over-long cells: text cut with an issue, numbers refused, a key too long rejects its line', () => {
    const long = 'X'.repeat(300);
    const text = [
      'ACCT,BLDG,PARCEL,ADDR,LAND,TOTAL,SALE_DATE,PRICE,YEAR',
      `1,1,10-1,${long},100,200,1/1/2001,1000,1950`,
      `2,1,P${'9'.repeat(80)},3 ELM ST,${'1'.repeat(70)},200,1/1/2001,1000,1950`,
      `${'3'.repeat(65)},1,10-3,5 ELM ST,100,200,1/1/2001,1000,1950`,
    ].join('\n');
    const x = parseAssessorRoll(text, mapping);
    expect(x.rows.map((row) => [row.account_key, row.label.length, row.parcel_key?.length])).toEqual([
      ['1', 256, 4],
      ['2', 8, 64],
    ]);
    expect(x.issues.filter((i) => i.code === 'value_truncated').map((i) => i.detail)).toEqual([
      'line 2, column ADDR: 300 characters, the first 256 kept',
      'line 3, column PARCEL: 81 characters, the first 64 kept',
    ]);
    expect(x.rows[1].invalid).toEqual(['assessment.land_value_cents']);
    expect(x.issues.find((i) => i.code === 'value_invalid')?.detail).toBe('line 3, column LAND: 70 characters, more than a cents cell holds (64)');
    expect(x.rejected).toEqual([{ line: 4, reason: 'the key column ACCT has 65 characters, more than 64', raw: expect.any(String), keys: ['3'.repeat(65)] }]);
  });

  test('CSV lines report where multi-line records start', () => {
    const c = readCsv('a,b\n1,"x\ny"\n\n2,z\n');
    expect(c.rows.map((x) => [x.line, x.values.b])).toEqual([
      [2, 'x\ny'],
      [5, 'z'],
    ]);
  });
});
