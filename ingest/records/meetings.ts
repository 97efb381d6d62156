// Meeting feeds (JSON): the meetings of the bodies that decide (planning board, zoning board,
// council), each with its agenda and the decisions taken, as the publisher lists them. Where each
// value sits is data (mappings/millbrook_meetings.json). Pure: bytes and a mapping in, records out.
// Rules: a record without a meeting date (or with one that is not a date) is rejected; a body or
// status label the mapping does not name is kept raw with its type or status null and an issue
// `label_unmapped`, never guessed; a decision states only what the record prints (no vote when
// none is printed).
import { at } from './permits.ts';
import type { ParseIssue, Rejected } from './types.ts';
import { readDate, readInteger } from './values.ts';

type Path = string;

export const BODY_TYPES = ['planning_board', 'zoning_board', 'council', 'conservation_commission', 'historic_commission'] as const;
export const MEETING_STATUSES = ['scheduled', 'held', 'cancelled', 'postponed'] as const;

export interface MeetingMapping {
  name: string;
  records_path: Path; // "" when the document is the array itself
  bodies: Record<string, (typeof BODY_TYPES)[number]>; // body name as printed → type
  statuses: Record<string, (typeof MEETING_STATUSES)[number]>; // status as printed (any case) → status
  fields: {
    key?: Path; // the publisher's id of the meeting; else body and date make the key
    body: Path;
    date: Path;
    time?: Path; // local time, HH:MM
    location?: Path;
    status?: Path;
    agenda?: Path;
    decisions?: Path;
    agenda_url?: Path;
    minutes_url?: Path;
  };
  agenda_fields: { item?: Path; title: Path; case?: Path; ordinance?: Path };
  decision_fields: { item?: Path; case?: Path; ordinance?: Path; outcome_code?: Path; outcome_description?: Path; text?: Path; yes?: Path; no?: Path; abstain?: Path; absent?: Path };
}

export interface AgendaItem {
  item: string | null;
  title: string;
  case: string | null;
  ordinance: string | null;
}

export interface MeetingDecision {
  item: string | null;
  case: string | null;
  ordinance: string | null;
  outcome: { code: string | null; description: string | null };
  text: string | null;
  vote: { yes: number | null; no: number | null; abstain: number | null; absent: number | null } | null;
}

export interface MeetingRecord {
  key: string;
  body: { name: string; type: (typeof BODY_TYPES)[number] | null };
  date: string;
  time: string | null;
  location: string | null;
  status: (typeof MEETING_STATUSES)[number] | null;
  status_raw: string | null;
  agenda: AgendaItem[];
  decision: MeetingDecision[];
  document: { agenda_url: string | null; minutes_url: string | null };
  line: number; // 1-based index in the feed
}

export interface MeetingResult {
  meetings: MeetingRecord[];
  rejected: Rejected[];
  issues: ParseIssue[];
}

const str = (v: unknown): string | null => {
  if (v === null || v === undefined || typeof v === 'object') return null;
  const s = String(v).replace(/\s+/g, ' ').trim();
  return s === '' ? null : s;
};

const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : v === null || v === undefined ? [] : [v]);

export function parseMeetingFeed(bytes: Uint8Array | string, m: MeetingMapping): MeetingResult {
  const text = typeof bytes === 'string' ? bytes : new TextDecoder('utf-8').decode(bytes);
  const doc = JSON.parse(text) as unknown;
  const records = m.records_path ? at(doc, m.records_path) : doc;
  if (!Array.isArray(records)) throw new Error(`meeting mapping ${m.name}: ${m.records_path || 'the document'} is not a list`);
  const out: MeetingResult = { meetings: [], rejected: [], issues: [] };
  const keys = new Set<string>();
  for (const [i, rec] of records.entries()) {
    const line = i + 1;
    const raw = JSON.stringify(rec);
    if (rec === null || typeof rec !== 'object' || Array.isArray(rec)) {
      out.rejected.push({ line, reason: 'record is not an object', raw });
      continue;
    }
    if (raw.includes('\\u0000')) {
      out.rejected.push({ line, reason: 'a NUL character in the record (no database text holds one)', raw });
      continue;
    }
    const body = str(at(rec, m.fields.body));
    if (!body) {
      out.rejected.push({ line, reason: `no body named (${m.fields.body})`, raw });
      continue;
    }
    const date = readDate(str(at(rec, m.fields.date)) ?? '');
    if (!date.value) {
      out.rejected.push({ line, reason: date.error ? `${m.fields.date}: ${date.error}` : `no meeting date (${m.fields.date})`, raw });
      continue;
    }
    const key = str(at(rec, m.fields.key)) ?? `${body} ${date.value}`;
    if (keys.has(key)) {
      out.rejected.push({ line, reason: `meeting ${key} is listed again`, raw });
      continue;
    }
    keys.add(key);
    out.meetings.push(readMeeting(rec, { key, body, date: date.value, line }, m, out.issues));
  }
  return out;
}

function readMeeting(rec: object, head: { key: string; body: string; date: string; line: number }, m: MeetingMapping, issues: ParseIssue[]): MeetingRecord {
  const f = m.fields;
  const where = `record ${head.line} (${head.key})`;
  const type = m.bodies[head.body] ?? null;
  if (!type) issues.push({ severity: 'warning', code: 'label_unmapped', detail: `${where}: body "${head.body}" is not named by mapping ${m.name}; kept with type null`, locator: { row: String(head.line), column: f.body } });
  const statusRaw = str(at(rec, f.status));
  const status = statusRaw ? (m.statuses[statusRaw.toLowerCase()] ?? null) : null;
  if (statusRaw && !status) issues.push({ severity: 'warning', code: 'label_unmapped', detail: `${where}: status "${statusRaw}" is not named by mapping ${m.name}; kept raw`, locator: { row: String(head.line), column: f.status } });
  let time = str(at(rec, f.time));
  if (time && !/^([01]?\d|2[0-3]):[0-5]\d$/.test(time)) {
    issues.push({ severity: 'warning', code: 'value_invalid', detail: `${where}, ${f.time}: not a time of day (HH:MM): "${time}"`, locator: { row: String(head.line), column: f.time } });
    time = null;
  }
  const af = m.agenda_fields;
  const agenda = list(at(rec, f.agenda))
    .map((a) => (typeof a === 'string' ? { item: null, title: str(a), case: null, ordinance: null } : { item: str(at(a, af.item)), title: str(at(a, af.title)), case: str(at(a, af.case)), ordinance: str(at(a, af.ordinance)) }))
    .filter((a): a is AgendaItem => a.title !== null);
  const df = m.decision_fields;
  const count = (d: unknown, path: Path | undefined, i: number) => {
    if (!path) return null;
    const v = at(d, path);
    if (typeof v === 'number' && Number.isInteger(v) && v >= 0) return v;
    const r = readInteger(str(v) ?? '');
    if (r.error || (r.value !== null && r.value < 0)) {
      issues.push({ severity: 'warning', code: 'value_invalid', detail: `${where}, ${f.decisions}[${i}].${path}: not a count of members: "${str(v)}"`, locator: { row: String(head.line), column: `${f.decisions}.${path}` } });
      return null;
    }
    return r.value;
  };
  const decision = list(at(rec, f.decisions)).map((d, i) => {
    const vote = { yes: count(d, df.yes, i), no: count(d, df.no, i), abstain: count(d, df.abstain, i), absent: count(d, df.absent, i) };
    return {
      item: str(at(d, df.item)),
      case: str(at(d, df.case)),
      ordinance: str(at(d, df.ordinance)),
      outcome: { code: str(at(d, df.outcome_code)), description: str(at(d, df.outcome_description)) },
      text: str(at(d, df.text)),
      vote: Object.values(vote).every((v) => v === null) ? null : vote,
    };
  });
  return {
    key: head.key,
    body: { name: head.body, type },
    date: head.date,
    time,
    location: str(at(rec, f.location)),
    status,
    status_raw: statusRaw,
    agenda,
    decision,
    document: { agenda_url: str(at(rec, f.agenda_url)), minutes_url: str(at(rec, f.minutes_url)) },
    line: head.line,
  };
}

/** The case and ordinance numbers a meeting's agenda and decisions name, each once. */
export function numbersNamed(m: MeetingRecord): { cases: string[]; ordinances: string[] } {
  const all = [...m.agenda, ...m.decision];
  const uniq = (xs: Array<string | null>) => [...new Set(xs.filter((x): x is string => Boolean(x)))];
  return { cases: uniq(all.map((x) => x.case)), ordinances: uniq(all.map((x) => x.ordinance)) };
}
