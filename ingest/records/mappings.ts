// Named mappings (mappings/*.json), as a manifest's `"mapping": "<name>"` refers to them.
import { type AssessorMapping, MappingError, checkMapping } from './assessor-mapping.ts';
import cambridgeFy2025 from './mappings/cambridge_fy2025.json' with { type: 'json' };
import cambridgeTaxFy14 from './mappings/cambridge_taxfy14.json' with { type: 'json' };
import millbrookCases from './mappings/millbrook_cases.json' with { type: 'json' };
import millbrookMeetings from './mappings/millbrook_meetings.json' with { type: 'json' };
import millbrookPermits from './mappings/millbrook_permits.json' with { type: 'json' };
import millbrookRegistry from './mappings/millbrook_registry.json' with { type: 'json' };
import millbrookRoll from './mappings/millbrook_roll.json' with { type: 'json' };
import ordinanceListHtml from './mappings/ordinance_list_html.json' with { type: 'json' };
import type { MeetingMapping } from './meetings.ts';
import type { OrdinanceListMapping } from './ordinance-list.ts';
import type { FeedMapping } from './permits.ts';
import type { RecorderMapping } from './recorder.ts';

const ASSESSOR: Record<string, AssessorMapping> = {
  cambridge_fy2025: cambridgeFy2025 as AssessorMapping,
  cambridge_taxfy14: cambridgeTaxFy14 as AssessorMapping,
  millbrook_roll: millbrookRoll as AssessorMapping,
};
const RECORDER: Record<string, RecorderMapping> = { millbrook_registry: millbrookRegistry as RecorderMapping };
const ORDINANCE_LIST: Record<string, OrdinanceListMapping> = { ordinance_list_html: ordinanceListHtml as OrdinanceListMapping };
const FEED: Record<string, FeedMapping> = {
  millbrook_permits: millbrookPermits as FeedMapping,
  millbrook_cases: millbrookCases as FeedMapping,
};
const MEETINGS: Record<string, MeetingMapping> = { millbrook_meetings: millbrookMeetings as MeetingMapping };

function pick<T>(table: Record<string, T>, what: string, name: string): T {
  const m = table[name];
  if (!m) throw new MappingError(`no ${what} mapping named ${name}; known: ${Object.keys(table).join(', ')}`);
  return m;
}

export const assessorMapping = (name: string): AssessorMapping => checkMapping(pick(ASSESSOR, 'assessor roll', name));
export const recorderMapping = (name: string): RecorderMapping => pick(RECORDER, 'recorder index', name);
export const ordinanceListMapping = (name: string): OrdinanceListMapping => pick(ORDINANCE_LIST, 'ordinance list', name);
export const feedMapping = (name: string): FeedMapping => pick(FEED, 'permit or case feed', name);
export const meetingMapping = (name: string): MeetingMapping => pick(MEETINGS, 'meeting feed', name);
