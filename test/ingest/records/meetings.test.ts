// The synthetic town's meeting feed, and the spans that cite a feed's records by their own characters.
import { describe, expect, test } from 'vitest';
import { arraySpans } from '../../../ingest/records/json-spans.ts';
import { feedMapping, meetingMapping } from '../../../ingest/records/mappings.ts';
import { numbersNamed, parseMeetingFeed } from '../../../ingest/records/meetings.ts';
import { parseFeed } from '../../../ingest/records/permits.ts';
import { siteFile } from '../../helpers/synthetic-site.ts';

const text = (path: string) => siteFile(1, path)!.bytes.toString('utf8');

describe('arraySpans', () => {
  test('each element of the array at the path, as written, whatever the spacing', () => {
    const doc = '{"a": {"x": [1, {"k": "]}\\"["}, [2, 3] ,"s"]}, "x": []}';
    const spans = arraySpans(doc, 'a.x')!;
    expect(spans.map((s) => doc.slice(s.start, s.end))).toEqual(['1', '{"k": "]}\\"["}', '[2, 3]', '"s"']);
    expect(arraySpans(doc, 'x')).toEqual([]);
    expect(arraySpans(doc, 'a.y')).toBeNull();
    expect(arraySpans('[ {"n":1},{"n":2} ]', '')!.length).toBe(2);
  });

  test('the span of every record of the case and meeting feeds parses to that record', () => {
    for (const [path, at] of [['/cases/feed.json', 'cases'], ['/meetings/feed.json', 'meetings'], ['/permits/feed.json', 'records']] as const) {
      const t = text(path);
      const spans = arraySpans(t, at)!;
      const records = JSON.parse(t)[at] as unknown[];
      expect(spans.length).toBe(records.length);
      for (const [i, s] of spans.entries()) expect(JSON.parse(t.slice(s.start, s.end))).toEqual(records[i]);
    }
    const cases = parseFeed(text('/cases/feed.json'), feedMapping('millbrook_cases')).cases;
    expect(cases.map((c) => c.line)).toEqual([1, 2, 3]);
  });
});

describe('the meeting feed', () => {
  const r = parseMeetingFeed(siteFile(1, '/meetings/feed.json')!.bytes, meetingMapping('millbrook_meetings'));

  test('seven meetings of three bodies, nothing rejected, no issue; v2 is the same file', () => {
    expect(r.rejected).toEqual([]);
    expect(r.issues).toEqual([]);
    expect(r.meetings.map((m) => [m.key, m.body.type, m.date, m.status])).toEqual([
      ['TC-2024-06-11', 'council', '2024-06-11', 'held'],
      ['ZBA-2025-05-13', 'zoning_board', '2025-05-13', 'held'],
      ['ZBA-2025-05-20', 'zoning_board', '2025-05-20', 'held'],
      ['ZBA-2025-12-02', 'zoning_board', '2025-12-02', 'held'],
      ['PB-2026-01-27', 'planning_board', '2026-01-27', 'held'],
      ['TC-2026-02-10', 'council', '2026-02-10', 'scheduled'],
      ['PB-2026-02-24', 'planning_board', '2026-02-24', 'scheduled'],
    ]);
    expect(siteFile(2, '/meetings/feed.json')!.etag).toBe(siteFile(1, '/meetings/feed.json')!.etag);
  });

  test('a decision as printed: outcome, vote when printed, the case it is about', () => {
    const granted = r.meetings[2];
    expect(granted).toMatchObject({ time: '19:30', location: 'Town Hall, Room 2', status_raw: 'Held', document: { agenda_url: '/meetings/ZBA-2025-05-20/agenda.pdf', minutes_url: '/meetings/ZBA-2025-05-20/minutes.pdf' } });
    expect(granted.decision).toEqual([
      { item: '1', case: 'ZBA-2025-04', ordinance: null, outcome: { code: 'GRANTED', description: 'Granted with conditions' }, text: expect.stringMatching(/two conditions/), vote: { yes: 3, no: 0, abstain: 0, absent: 0 } },
    ]);
    expect(r.meetings[1].decision[0].vote).toBeNull();
    expect(numbersNamed(r.meetings[0])).toEqual({ cases: [], ordinances: ['2024-06'] });
    expect(numbersNamed(r.meetings[4])).toEqual({ cases: ['PB-2025-11'], ordinances: [] });
    expect(r.meetings[5].decision).toEqual([]);
  });

  test('an unmapped body or status is kept raw and flagged, a record without a date rejected, a bad time dropped with an issue', () => {
    const doc = JSON.stringify({
      meetings: [
        { meeting_id: 'A', body: 'Board of Health', date: '2026-01-05', status: 'Recessed', time: '7 pm' },
        { meeting_id: 'B', body: 'Planning Board' },
        { meeting_id: 'C', body: 'Planning Board', date: '2026-02-30' },
        { meeting_id: 'A', body: 'Planning Board', date: '2026-01-06' },
      ],
    });
    const x = parseMeetingFeed(doc, meetingMapping('millbrook_meetings'));
    expect(x.meetings).toHaveLength(1);
    expect(x.meetings[0]).toMatchObject({ body: { name: 'Board of Health', type: null }, status: null, status_raw: 'Recessed', time: null });
    expect(x.issues.map((i) => i.code)).toEqual(['label_unmapped', 'label_unmapped', 'value_invalid']);
    expect(x.rejected.map((j) => [j.line, j.reason])).toEqual([
      [2, 'no meeting date (date)'],
      [3, expect.stringMatching(/^date: impossible date/)],
      [4, 'meeting A is listed again'],
    ]);
  });
});
