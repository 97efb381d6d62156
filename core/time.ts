// Time parameters (spec 4.0.2): `as_of` (valid time) and `known_as_of` (knowledge time).
// Grammar: a date, a date-time with offset, `from:<date> to:<date>`, or `last <n> days`.
// Parsing (parseTimeText) needs no timezone, so a bad value is refused before any work;
// resolving (resolveAsOf, resolveKnownAsOf) fixes the value in a timezone against `now`.
import { ApiError, invalid } from './errors.ts';

/** The grammar as written: what the client asked, before any timezone is applied. */
export type TimeSpec =
  | { form: 'date'; date: string; text: string }
  | { form: 'instant'; instant: string; text: string }
  | { form: 'range'; from: string; to: string; text: string }
  | { form: 'last'; days: number; text: string };

export type TimeBasis = 'requested' | 'default';

/** The zone dates are read in before the jurisdiction an answer is about is known (api/place/zone.ts); an answer about none says so. */
export const PROVISIONAL_ZONE = 'UTC';

/** One moment: `date` is its calendar date in the axis's timezone, `instant` an ISO UTC timestamp. */
export interface TimeInstant {
  kind: 'instant';
  date: string;
  instant: string;
  text: string;
  basis: TimeBasis;
}

/** Inclusive dates `from`..`to`; `start` (inclusive) and `end` (exclusive) are their UTC instants. */
export interface TimeInterval {
  kind: 'interval';
  from: string;
  to: string;
  start: string;
  end: string;
  text: string;
  basis: TimeBasis;
}

export type TimeValue = TimeInstant | TimeInterval;

export const MAX_LAST_DAYS = 36500;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
// A space before the offset is a '+' that a query string decoded (`+04:00` sent unescaped).
const DATE_TIME = /^(\d{4}-\d{2}-\d{2})T(\d{2}):(\d{2})(?::(\d{2})(\.\d{1,6})?)?(Z|[+\- ]\d{2}:\d{2})?$/i;

export function isDate(s: string): boolean {
  const m = DATE.exec(s);
  if (!m || Number(m[1]) < 1000) return false;
  const d = new Date(`${s}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s;
}

/** A date-time that carries its offset, as an ISO UTC string (microseconds kept); null if it is not one. */
export function parseDateTime(raw: string, field: string): string | null {
  const m = DATE_TIME.exec(raw.trim());
  if (!m) return null;
  const [, date, hh, mm, ss = '00', frac = '', offset] = m;
  if (!offset) {
    throw invalid(field, `${JSON.stringify(raw)} has no offset: write Z or ±hh:mm (e.g. ${date}T${hh}:${mm}:${ss}Z), or send a date`);
  }
  if (!isDate(date) || Number(hh) > 23 || Number(mm) > 59 || Number(ss) > 59) throw invalid(field, `${JSON.stringify(raw)} is not a real date-time`);
  const off = offset.toUpperCase() === 'Z' ? 'Z' : `${offset[0] === '-' ? '-' : '+'}${offset.slice(1)}`;
  if (off !== 'Z' && (Number(off.slice(1, 3)) > 18 || Number(off.slice(4)) > 59)) throw invalid(field, `${JSON.stringify(raw)} has no valid offset`);
  const ms = Date.parse(`${date}T${hh}:${mm}:${ss}${off}`);
  const micro = (frac.slice(1) + '000000').slice(0, 6);
  return `${new Date(ms).toISOString().slice(0, 19)}.${micro}Z`;
}

/** Parse one time parameter's text; a value outside the grammar is 422 parameter_invalid naming `field`. */
export function parseTimeText(raw: string, field: string): TimeSpec {
  const text = raw.trim().replace(/\s+/g, ' ');
  if (text === '') throw invalid(field, `${field} is empty; omit it for now`);
  if (DATE.test(text)) {
    if (!isDate(text)) throw invalid(field, `${JSON.stringify(raw)} is not a real date`);
    return { form: 'date', date: text, text };
  }
  const instant = parseDateTime(raw.trim(), field);
  if (instant) return { form: 'instant', instant, text: raw.trim() };
  const range = /^from:\s?(\S+) to:\s?(\S+)$/i.exec(text);
  if (range) {
    const [, from, to] = range;
    for (const d of [from, to]) if (!isDate(d)) throw invalid(field, `${JSON.stringify(d)} is not a date (YYYY-MM-DD); an interval is from:<date> to:<date>`);
    if (from > to) throw invalid(field, `the interval starts (${from}) after it ends (${to})`);
    return { form: 'range', from, to, text: `from:${from} to:${to}` };
  }
  const last = /^last (\d+) days?$/i.exec(text);
  if (last) {
    const days = Number(last[1]);
    if (days < 1 || days > MAX_LAST_DAYS) throw invalid(field, `last <n> days takes n from 1 to ${MAX_LAST_DAYS}`);
    return { form: 'last', days, text: `last ${days} days` };
  }
  throw invalid(field, `${JSON.stringify(raw)} is not a time: send a date (2024-05-01), a date-time with offset (2024-05-01T10:00:00-04:00), from:<date> to:<date>, or last <n> days`);
}

/** Throws 422 naming `field` when the timezone is not an IANA name this runtime knows. */
export function checkTimezone(tz: string, field = 'timezone'): string {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return tz;
  } catch {
    throw new ApiError('parameter_invalid', { field, detail: `${JSON.stringify(tz)} is not an IANA timezone` });
  }
}

/** The calendar date of an instant in a timezone. */
// Formatters are costly to build and safe to share: one per timezone and use.
const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(kind: 'date' | 'parts', tz: string): Intl.DateTimeFormat {
  const key = `${kind}|${tz}`;
  let f = formatters.get(key);
  if (!f) {
    f =
      kind === 'date'
        ? new Intl.DateTimeFormat('en-CA', { timeZone: tz, year: 'numeric', month: '2-digit', day: '2-digit' })
        : new Intl.DateTimeFormat('en-US', { timeZone: tz, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' });
    formatters.set(key, f);
  }
  return f;
}

// The last date asked per timezone, by the minute (a local date changes only on a minute boundary).
const lastDate = new Map<string, { minute: number; date: string }>();

export function localDate(instant: Date, tz: string): string {
  const minute = Math.floor(instant.getTime() / 60_000);
  const last = lastDate.get(tz);
  if (last?.minute === minute) return last.date;
  const date = formatter('date', tz).format(instant);
  lastDate.set(tz, { minute, date });
  return date;
}

function offsetMs(at: number, tz: string): number {
  const parts = formatter('parts', tz).formatToParts(new Date(at));
  const n = (t: string) => Number(parts.find((p) => p.type === t)!.value);
  return Date.UTC(n('year'), n('month') - 1, n('day'), n('hour'), n('minute'), n('second')) - Math.floor(at / 1000) * 1000;
}

/** The instant a date begins in a timezone (local midnight, or the first moment after a gap). */
export function startOfDay(date: string, tz: string): Date {
  const guess = Date.parse(`${date}T00:00:00Z`);
  let t = guess - offsetMs(guess, tz);
  t = guess - offsetMs(t, tz);
  return new Date(t);
}

export function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

const iso = (d: Date) => `${d.toISOString().slice(0, 23)}000Z`;
const minIso = (a: string, b: string) => (a < b ? a : b);

function interval(from: string, to: string, tz: string, text: string, cap?: string): TimeInterval {
  const start = iso(startOfDay(from, tz));
  let end = iso(startOfDay(addDays(to, 1), tz));
  if (cap) end = minIso(end, cap);
  return { kind: 'interval', from, to, start, end, text, basis: 'requested' };
}

/**
 * Valid time in the jurisdiction's timezone. A date is that whole day (instant = its start);
 * a date-time keeps its instant and takes its local date; default: now.
 */
export function resolveAsOf(spec: TimeSpec | undefined, tz: string, now = new Date()): TimeValue {
  if (!spec) return { kind: 'instant', date: localDate(now, tz), instant: iso(now), text: 'now', basis: 'default' };
  switch (spec.form) {
    case 'date':
      return { kind: 'instant', date: spec.date, instant: iso(startOfDay(spec.date, tz)), text: spec.text, basis: 'requested' };
    case 'instant':
      return { kind: 'instant', date: localDate(new Date(spec.instant), tz), instant: spec.instant, text: spec.text, basis: 'requested' };
    case 'range':
      return interval(spec.from, spec.to, tz, spec.text);
    case 'last': {
      const today = localDate(now, tz);
      return interval(addDays(today, 1 - spec.days), today, tz, spec.text);
    }
  }
}

/**
 * Knowledge time, always in UTC. A bare date means the end of that UTC day (everything the
 * service knew during it). Nothing is known after now: later instants are clamped to now.
 */
export function resolveKnownAsOf(spec: TimeSpec | undefined, now = new Date()): TimeValue {
  const nowIso = iso(now);
  if (!spec) return { kind: 'instant', date: nowIso.slice(0, 10), instant: nowIso, text: 'now', basis: 'default' };
  switch (spec.form) {
    case 'date': {
      const instant = minIso(`${spec.date}T23:59:59.999999Z`, nowIso);
      return { kind: 'instant', date: instant.slice(0, 10), instant, text: spec.text, basis: 'requested' };
    }
    case 'instant': {
      const instant = minIso(spec.instant, nowIso);
      return { kind: 'instant', date: instant.slice(0, 10), instant, text: spec.text, basis: 'requested' };
    }
    case 'range':
      return interval(spec.from, spec.to, 'UTC', spec.text, nowIso);
    case 'last': {
      const today = nowIso.slice(0, 10);
      return interval(addDays(today, 1 - spec.days), today, 'UTC', spec.text, nowIso);
    }
  }
}

/** One call for both axes, from parsed parameters (`as_of`, `known_as_of`). */
export function resolveTimes(params: { as_of?: TimeSpec; known_as_of?: TimeSpec }, tz: string, now = new Date()) {
  return { asOf: resolveAsOf(params.as_of, tz, now), knownAsOf: resolveKnownAsOf(params.known_as_of, now) };
}

export interface TimeBlockInput {
  asOf: TimeValue;
  knownAsOf: TimeValue;
  timezone: string;
  /** earliest retained date per layer (e.g. {district: '2019-03-01'}) */
  earliestRetained?: Record<string, string>;
  /** segments the answer holds; an instant answers one */
  segmentCount?: number;
}

/** The `as_of` block of spec 2.2. */
export function timeBlock(o: TimeBlockInput) {
  const a = o.asOf;
  const k = o.knownAsOf;
  const segmentCount = o.segmentCount ?? 1;
  return {
    resolved: a.kind === 'instant' ? { from: a.date, to: a.date, at: a.instant } : { from: a.from, to: a.to, start: a.start, end: a.end },
    timezone: o.timezone,
    basis: a.basis,
    known_as_of: k.kind === 'instant' ? k.instant : k.end,
    ...(k.kind === 'interval' ? { known_as_of_resolved: { from: k.from, to: k.to, start: k.start, end: k.end } } : {}),
    known_as_of_basis: k.basis,
    requested: a.basis === 'requested' ? a.text : null,
    earliest_retained: o.earliestRetained ?? {},
    constant: segmentCount <= 1,
    segment_count: segmentCount,
  };
}

/** The notice an interval answer carries when its facts changed inside the interval. */
export function intervalNotice(segmentCount: number, subject: string[] = []) {
  if (segmentCount <= 1) return null;
  return {
    code: 'as_of_interval_spans_change',
    severity: 'info',
    detail: `The facts changed within the interval; the answer has ${segmentCount} segments.`,
    count: segmentCount,
    subject,
  };
}
