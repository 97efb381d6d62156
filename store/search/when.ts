// The times of a search across towns (spec 4.0.2 with 4.0.4): one knowledge instant for the whole
// walk (the snapshot its cursors carry), knowledge settled before a load in flight per jurisdiction,
// and the dates asked read in each jurisdiction's own timezone. A date or an interval of dates is
// the same everywhere; an instant, `last <n> days` and the default (the date at the knowledge
// instant) are read per timezone. SQL over these binds every value.

import type { SqlContext } from '../../core/query/resource.ts';
import { resolveAsOf, resolveKnownAsOf, type TimeSpec, type TimeValue } from '../../core/time.ts';
import { settledKnowledge } from '../changes.ts';
import type { Queryable } from '../db.ts';

export interface Zone {
  timezone: string;
  ids: string[];
  /** the dates asked there: an instant is from = to */
  from: string;
  to: string;
}

export interface SearchTimes {
  /** as resolved in the zone holding most of the scope (for the as_of block) */
  asOf: TimeValue;
  knownAsOf: TimeValue;
  /** the knowledge instant the walk is pinned to (ISO, UTC) */
  known: string;
  interval: boolean;
  zones: Zone[];
  /** jurisdictions whose knowledge is answered before a load in flight at `known`, and at which instant */
  settled: Map<string, string>;
}

/**
 * The times of a search over `ids`. `pinned` is a cursor's snapshot: later pages answer at the
 * instant the first page was pinned to, so their dates and knowledge are the first page's.
 */
export async function searchTimes(db: Queryable, p: { as_of?: TimeSpec; known_as_of?: TimeSpec }, ids: string[], pinned: string | null): Promise<SearchTimes> {
  const knownAsOf = resolveKnownAsOf(p.known_as_of);
  const known = pinned ?? (knownAsOf.kind === 'instant' ? knownAsOf.instant : knownAsOf.end);
  const { rows } = await db.query<{ timezone: string; ids: string[] }>(
    'SELECT timezone, array_agg(id ORDER BY id) AS ids FROM jurisdiction WHERE id = ANY($1::text[]) GROUP BY timezone ORDER BY count(*) DESC, timezone',
    [ids],
  );
  const at = new Date(known);
  const zones = rows.map((r) => {
    const v = resolveAsOf(p.as_of, r.timezone, at);
    return { timezone: r.timezone, ids: r.ids, from: v.kind === 'instant' ? v.date : v.from, to: v.kind === 'instant' ? v.date : v.to };
  });
  const asOf = resolveAsOf(p.as_of, rows[0]?.timezone ?? 'UTC', at);
  const settled = ids.length ? await settledKnowledge(db, known, ids) : new Map<string, string>();
  return { asOf, knownAsOf: { ...knownAsOf, ...(knownAsOf.kind === 'instant' ? { instant: known } : {}) } as TimeValue, known, interval: asOf.kind === 'interval', zones, settled };
}

/** SQL of a per-jurisdiction value: the first zone's unless the row's jurisdiction is in another. */
function perZone(c: SqlContext, col: string, zones: Zone[], value: (z: Zone) => string, cast: string): string {
  if (zones.length <= 1) return c.bind(zones[0] ? value(zones[0]) : null, cast);
  const arms = zones.slice(1).map((z) => `WHEN ${col} = ANY(${c.bind(z.ids, 'text[]')}) THEN ${c.bind(value(z), cast)}`);
  return `(CASE ${arms.join(' ')} ELSE ${c.bind(value(zones[0]), cast)} END)`;
}

/** The first date asked, in the zone of the jurisdiction in column `col`. */
export const dayFrom = (t: SearchTimes, c: SqlContext, col: string) => perZone(c, col, t.zones, (z) => z.from, 'date');
/** The last date asked (the date itself for an instant). */
export const dayTo = (t: SearchTimes, c: SqlContext, col: string) => perZone(c, col, t.zones, (z) => z.to, 'date');

/** The knowledge instant of the jurisdiction in column `col`: the walk's snapshot, or before a load in flight. */
export function knownAt(t: SearchTimes, c: SqlContext, col: string): string {
  if (t.settled.size === 0) return c.snapshot;
  const byInstant = new Map<string, string[]>();
  for (const [j, at] of t.settled) byInstant.set(at, [...(byInstant.get(at) ?? []), j]);
  const arms = [...byInstant].map(([at, js]) => `WHEN ${col} = ANY(${c.bind(js.sort(), 'text[]')}) THEN ${c.bind(at, 'timestamptz')}`);
  return `(CASE ${arms.join(' ')} ELSE ${c.snapshot} END)`;
}

/** The notice a search carries when knowledge of some jurisdictions was answered before a load in flight. */
export function settledSearchNotice(t: SearchTimes) {
  if (t.settled.size === 0) return null;
  const js = [...t.settled.keys()].sort();
  return {
    code: 'known_as_of_settled',
    severity: 'info',
    detail: `Loads of ${js.length} jurisdiction${js.length > 1 ? 's' : ''} in scope began before ${t.known} and were not committed by then; their law is given as known just before each load began (${js.map((j) => `${j}: ${t.settled.get(j)}`).join(', ')}), and repeating the question gives the same answer.`,
    count: js.length,
    subject: js,
  };
}

/** The notice a search carries when its jurisdictions read the dates asked in different timezones. */
export function zonesNotice(t: SearchTimes) {
  const distinct = new Set(t.zones.map((z) => `${z.from}/${z.to}`));
  if (distinct.size <= 1) return null;
  return {
    code: 'as_of_local_dates',
    severity: 'info',
    detail: `The jurisdictions in scope keep different timezones, and the dates asked differ between them: ${t.zones.map((z) => `${z.timezone} ${z.from === z.to ? z.from : `${z.from} to ${z.to}`}`).join('; ')}. Each jurisdiction is answered on its own date.`,
    count: t.zones.length,
    subject: t.zones.map((z) => z.timezone),
  };
}
