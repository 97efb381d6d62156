// Permit and case feeds of the synthetic town, both versions, in the spec 2.8 shapes.
import { describe, expect, test } from 'vitest';
import { feedMapping } from '../../../ingest/records/mappings.ts';
import { parseFeed } from '../../../ingest/records/permits.ts';
import { siteFile } from '../../helpers/synthetic-site.ts';

const permits = (v: 1 | 2) => parseFeed(siteFile(v, '/permits/feed.json')!.bytes, feedMapping('millbrook_permits'));

describe('permit feed v1', () => {
  const r = permits(1);
  test('issued records are permits, the others applications; nothing rejected', () => {
    expect(r.rejected).toEqual([]);
    expect(r.issues).toEqual([]);
    expect(r.permits.map((p) => p.number)).toEqual(['BP-2025-0102', 'BP-2025-0188', 'EL-2025-0311', 'BP-2026-0015']);
    expect(r.applications.map((p) => p.number)).toEqual(['BP-2025-0240', 'BP-2025-0299']);
    expect(r.cases).toEqual([]);
    expect(r.permits.every((p) => p.object === 'permit' && !('kind' in p) && !('zoning' in p))).toBe(true);
    expect(r.applications.every((p) => p.object === 'application' && p.kind === 'permit' && p.zoning!.length === 1)).toBe(true);
  });

  test('a finaled permit, field by field', () => {
    expect(r.permits[0]).toEqual({
      object: 'permit',
      number: 'BP-2025-0102',
      type: { code: 'BLDG-RES-ADD', description: 'Building - Residential Addition' },
      status: { code: 'FINALED', description: 'Finaled' },
      agency: { name: 'Town of Millbrook Building Department', type: 'building' },
      description: 'Two-story rear addition, 420 sq ft, to existing single-family dwelling',
      parcel_keys: ['2-4'],
      addresses: [expect.objectContaining({ street_line_1: '113 Main St', street_number: '113', street_name: 'Main St', locality: 'Millbrook', region: 'MA', postal_code: '01899' })],
      parties: [
        { name: 'PATEL, ANIL', role: 'owner', organization: null, license: null },
        { name: 'Anil Patel', role: 'applicant', organization: null, license: null },
        { name: 'Jordan Reyes', role: 'contractor', organization: null, license: 'CSL-104233' },
      ],
      dates: { applied: '2025-03-03', issued: '2025-03-24', decided: '2025-03-24', expires: '2025-09-24', completed: '2025-08-29' },
      valuation: { amount: 85000, currency: 'USD' },
      fees: [{ category: 'Building permit fee', total: 850, paid: 850, unpaid: 0, waived: 0, currency: 'USD' }],
      decision: { outcome: { code: 'approved', description: 'Finaled' }, decided_on: '2025-03-24', effective_from: null, effective_to: null, conditions: [] },
      document: { url: '/permits/BP-2025-0102' },
      line: 1,
    });
  });

  test('pending means decision null; a denial is a decision; conditions and waived fees kept', () => {
    const review = r.applications.find((a) => a.number === 'BP-2025-0240')!;
    expect(review.decision).toBeNull();
    expect(review.fees[0]).toMatchObject({ total: 4200, paid: 0, unpaid: 4200 });
    const denied = r.applications.find((a) => a.number === 'BP-2025-0299')!;
    expect(denied.decision).toMatchObject({ outcome: { code: 'denied', description: 'Denied' }, decided_on: '2025-11-05' });
    expect(denied.decision!.conditions).toHaveLength(1);
    const sign = r.permits.find((p) => p.number === 'BP-2026-0015')!;
    expect(sign.decision!.conditions).toEqual([{ text: 'The sign shall not be illuminated between 10:00 p.m. and 6:00 a.m.', scope: null, timing: null, due: null }]);
    expect(sign.fees[1]).toMatchObject({ total: 25, paid: 0, waived: 25 });
  });
});

describe('permit feed v2', () => {
  test('exactly one new permit, the accessory dwelling unit at 104 Main St', () => {
    const v1 = permits(1);
    const r = permits(2);
    expect(r.applications).toEqual(v1.applications);
    expect(r.permits.slice(0, 4)).toEqual(v1.permits);
    expect(r.permits).toHaveLength(5);
    expect(r.permits[4]).toMatchObject({ number: 'BP-2026-0071', parcel_keys: ['2-5'], dates: { applied: '2026-03-02', issued: '2026-04-06' }, valuation: { amount: 160000, currency: 'USD' } });
  });
});

describe('case feed (same in both versions)', () => {
  const r = parseFeed(siteFile(1, '/cases/feed.json')!.bytes, feedMapping('millbrook_cases'));
  test('three cases; the board named per case; decisions with conditions; pending null', () => {
    expect(siteFile(2, '/cases/feed.json')!.etag).toBe(siteFile(1, '/cases/feed.json')!.etag);
    expect(r.cases.map((c) => [c.number, c.agency.name, c.decision?.outcome.code ?? null])).toEqual([
      ['ZBA-2025-04', 'Zoning Board of Appeals', 'GRANTED'],
      ['PB-2025-11', 'Planning Board', null],
      ['ZBA-2025-09', 'Zoning Board of Appeals', 'DENIED'],
    ]);
    const v = r.cases[0];
    expect(v.object).toBe('case');
    expect(v.zoning).toEqual([{ code: 'R-1', role: 'base' }]);
    expect(v.addresses[0]).toMatchObject({ street_line_1: '108 Main St', locality: 'Millbrook' });
    expect(v.decision).toMatchObject({ decided_on: '2025-05-20', effective_from: '2025-06-10', effective_to: '2026-05-20' });
    expect(v.decision!.conditions[1]).toEqual({ text: 'The rights authorized by this variance lapse if not exercised within one year.', scope: 'variance', timing: 'deadline', due: '2026-05-20' });
    expect(v.parties[1]).toEqual({ name: 'Harbor Design Build LLC', role: 'agent', organization: 'Harbor Design Build LLC', license: null });
  });
});

describe('a feed with bad records', () => {
  const feed = JSON.stringify({ records: [{ permit_no: 'X-1', issued_date: '2026-02-31', valuation: 'lots' }, 'oops', { work_desc: 'no number' }] });
  const r = parseFeed(feed, feedMapping('millbrook_permits'));
  test('records without a number or not objects are rejected; unreadable values reported', () => {
    expect(r.rejected.map((x) => [x.line, x.reason])).toEqual([
      [2, 'record is not an object'],
      [3, 'no record number (permit_no)'],
    ]);
    // it states an issue date, unreadable: a permit whose issued date is null, with an issue
    expect(r.permits.map((a) => [a.number, a.dates.issued, a.valuation])).toEqual([['X-1', null, null]]);
    expect(r.issues.map((i) => i.detail).sort()).toEqual(['record 1 (X-1), issued_date: impossible date: "2026-02-31"', 'record 1 (X-1), valuation: not a number: "lots"']);
  });
  test('a document that is not a list at the mapped path is refused', () => {
    expect(() => parseFeed('{"rows": []}', feedMapping('millbrook_permits'))).toThrow(/records is not a list/);
  });
  test('a record with a NUL character (no database text holds one) is rejected, the others kept', () => {
    const nul = parseFeed(JSON.stringify({ records: [{ permit_no: 'X-2', work_desc: 'shed\u0000' }, { permit_no: 'X-3' }] }), feedMapping('millbrook_permits'));
    expect(nul.rejected.map((x) => [x.line, x.reason])).toEqual([[1, 'a NUL character in the record (no database text holds one)']]);
    expect(nul.applications.map((a) => a.number)).toEqual(['X-3']);
  });
});
