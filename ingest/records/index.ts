// Property-record parsers: assessor rolls, recorder indexes, ordinance lists, permit and case
// feeds. Pure: bytes and a mapping in, records out (see types.ts).
import { parseAssessorRoll, type RollResult } from './assessor.ts';
import { assessorMapping, feedMapping, meetingMapping, ordinanceListMapping, recorderMapping } from './mappings.ts';
import { type MeetingResult, parseMeetingFeed } from './meetings.ts';
import { parseOrdinanceList, type OrdinanceListResult } from './ordinance-list.ts';
import { parseFeed, type FeedResult } from './permits.ts';
import { parseRecorderIndex, type RecorderResult } from './recorder.ts';

export * from './types.ts';
export { addressKeys, fullAddress, normalizeAddress, normalizeStreet, type NormalizedAddress } from '../../core/address.ts';
export { type AssessorMapping, MappingError, ROLL_FIELDS, checkMapping } from './assessor-mapping.ts';
export { parseAssessorRoll, streamAssessorRoll, type RollItem, type RollResult } from './assessor.ts';
export { csvRecords, readCsv, type CsvBad, type CsvLine } from './csv.ts';
export { readHtmlTables, type HtmlTable } from './html-table.ts';
export { assessorMapping, feedMapping, meetingMapping, ordinanceListMapping, recorderMapping } from './mappings.ts';
export { arraySpans, type Span } from './json-spans.ts';
export { BODY_TYPES, MEETING_STATUSES, type MeetingMapping, type MeetingRecord, type MeetingResult, numbersNamed, parseMeetingFeed } from './meetings.ts';
export { parseOrdinanceList, type OrdinanceListMapping, type OrdinanceListResult } from './ordinance-list.ts';
export { parseFeed, type FeedMapping, type FeedResult } from './permits.ts';
export { dealKind, parseRecorderIndex, type RecorderMapping, type RecorderResult } from './recorder.ts';

export type RecordSourceKind = 'assessor_roll' | 'recorder_index' | 'amendment_list' | 'permit_feed' | 'case_feed' | 'meeting_feed';

export type RecordParse =
  | { kind: 'assessor_roll'; result: RollResult }
  | { kind: 'recorder_index'; result: RecorderResult }
  | { kind: 'amendment_list'; result: OrdinanceListResult }
  | { kind: 'permit_feed' | 'case_feed'; result: FeedResult }
  | { kind: 'meeting_feed'; result: MeetingResult };

/** One entry for a manifest source: its kind, its bytes, its named mapping. */
export function parseRecordSource(kind: RecordSourceKind, bytes: Uint8Array | string, mapping: string, opts: { url?: string } = {}): RecordParse {
  switch (kind) {
    case 'assessor_roll':
      return { kind, result: parseAssessorRoll(bytes, assessorMapping(mapping)) };
    case 'recorder_index':
      return { kind, result: parseRecorderIndex(bytes, recorderMapping(mapping)) };
    case 'amendment_list':
      return { kind, result: parseOrdinanceList(bytes, ordinanceListMapping(mapping), opts.url) };
    case 'permit_feed':
    case 'case_feed':
      return { kind, result: parseFeed(bytes, feedMapping(mapping)) };
    case 'meeting_feed':
      return { kind, result: parseMeetingFeed(bytes, meetingMapping(mapping)) };
  }
}
