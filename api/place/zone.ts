// Valid time is read in the zone of the jurisdiction an answer is about (core/time.ts). A place's
// jurisdiction is known only once the place is found, so it is found first with its dates read in
// UTC (provisional, never shown) and found again when its jurisdiction's own zone gives other dates.
import { PROVISIONAL_ZONE, resolveTimes, type TimeSpec, type TimeValue } from '../../core/time.ts';
import type { Queryable } from '../../store/db.ts';

export type ResolvedTimes = ReturnType<typeof resolveTimes>;

/** The jurisdiction's own timezone, as held; `known` keeps those read already (a batch asks many places). */
export async function timezoneOf(db: Queryable, jurisdictionId: string, known?: Map<string, string>): Promise<string> {
  const kept = known?.get(jurisdictionId);
  if (kept) return kept;
  const { rows } = await db.query('SELECT timezone FROM jurisdiction WHERE id = $1', [jurisdictionId]);
  const zone: string = rows[0]?.timezone ?? PROVISIONAL_ZONE;
  known?.set(jurisdictionId, zone);
  return zone;
}

const dates = (v: TimeValue) => (v.kind === 'instant' ? v.date : `${v.from}..${v.to}`);

/** Whether two readings of the same time parameters name the same valid dates (what a place is found by). */
export function sameDates(a: ResolvedTimes, b: ResolvedTimes): boolean {
  return dates(a.asOf) === dates(b.asOf);
}

/**
 * Find a place with dates in its own jurisdiction's zone: once provisionally, then again only when
 * the zone moves the dates. `jurisdictionOf` names the jurisdiction of what was found (null: none).
 */
export async function inOwnZone<R>(db: Queryable, params: { as_of?: TimeSpec; known_as_of?: TimeSpec }, find: (t: ResolvedTimes) => Promise<R>, jurisdictionOf: (r: R) => string | null | undefined, zones?: Map<string, string>) {
  const now = new Date();
  const first = resolveTimes(params, PROVISIONAL_ZONE, now);
  const found = await find(first);
  const j = jurisdictionOf(found);
  if (!j) return { times: first, found, timezone: PROVISIONAL_ZONE };
  const timezone = await timezoneOf(db, j, zones);
  const own = resolveTimes(params, timezone, now);
  return { times: own, found: sameDates(first, own) ? found : await find(own), timezone };
}
