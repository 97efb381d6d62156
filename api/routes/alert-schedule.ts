// An alert's schedule as the API takes and answers it (spec 2.x: a string): `immediate`,
// `daily HH:MM` or `weekly <monday..sunday> HH:MM`, read case-insensitively, answered lower case.
// The store keeps the object (store/alerts.ts Schedule); this parses and renders at the edge.
import { ApiError, invalid } from '../../core/errors.ts';
import type { Schedule } from '../../store/alerts.ts';

export const DAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
export const SCHEDULE_GRAMMAR = 'immediate | daily HH:MM | weekly <monday..sunday> HH:MM (e.g. weekly friday 07:30)';
const KINDS = ['immediate', 'daily', 'weekly'];
const TIME = /^([01]?[0-9]|2[0-3]):([0-5][0-9])$/;

const wrong = (what: string) => invalid('schedule', `${what}. A schedule is ${SCHEDULE_GRAMMAR}.`);

function time(word: string | undefined, kind: string): string {
  if (word === undefined) throw wrong(`${kind} needs a local time (HH:MM, 00:00 to 23:59)`);
  const m = TIME.exec(word);
  if (!m) throw wrong(`${JSON.stringify(word)} is not a time (HH:MM, 00:00 to 23:59)`);
  return `${m[1].padStart(2, '0')}:${m[2]}`;
}

/** A schedule string read into the stored object; a refusal names `schedule` and gives the grammar. */
export function parseSchedule(raw: string): Schedule {
  const text = raw.trim().toLowerCase();
  const words = text.split(/\s+/);
  const [kind, ...rest] = words;
  if (!text) throw wrong('is empty');
  if (!KINDS.includes(kind)) {
    throw new ApiError('vocabulary_value_unknown', { field: 'schedule', detail: `${JSON.stringify(kind)} is not a schedule (immediate, daily or weekly). A schedule is ${SCHEDULE_GRAMMAR}.` });
  }
  if (kind === 'immediate') {
    if (rest.length > 0) throw wrong(`immediate takes nothing after it, not ${JSON.stringify(rest.join(' '))}`);
    return { kind: 'immediate' };
  }
  if (kind === 'daily') {
    if (rest.length > 0 && (DAYS as readonly string[]).includes(rest[0])) throw wrong('a day applies to a weekly schedule only');
    if (rest.length > 1) throw wrong(`daily takes one time, not ${JSON.stringify(rest.join(' '))}`);
    return { kind: 'digest', every: 'day', at: time(rest[0], 'daily') };
  }
  const [day, at, ...more] = rest;
  if (day === undefined || /^[\d:.]+$/.test(day)) throw wrong('weekly needs a day (monday to sunday) before its time');
  if (!(DAYS as readonly string[]).includes(day)) {
    throw new ApiError('vocabulary_value_unknown', { field: 'schedule', detail: `${JSON.stringify(day)} is not a day (monday to sunday). A schedule is ${SCHEDULE_GRAMMAR}.` });
  }
  if (more.length > 0) throw wrong(`weekly takes a day and one time, not ${JSON.stringify(rest.join(' '))}`);
  return { kind: 'digest', every: 'week', day, at: time(at, 'weekly') };
}

/** The stored object as the API answers it (a weekly one stored without a day is on monday). */
export function renderSchedule(s: Schedule): string {
  if (s.kind !== 'digest') return 'immediate';
  return s.every === 'week' ? `weekly ${s.day ?? 'monday'} ${s.at}` : `daily ${s.at}`;
}
