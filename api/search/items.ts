// What the searches across towns over law (ordinances, moratoriums, law hits, sections) share:
// the status of an item on a day from its own dates, its segments over an interval, the blocks
// beside the items (as_of, coverage, layer[], notices), and the page's items grouped by the
// knowledge instant each jurisdiction is answered at.
import { intervalNotice, timeBlock } from '../../core/time.ts';
import type { ScopeCoverage } from '../../store/search/coverage.ts';
import { type SearchTimes, settledSearchNotice, zonesNotice } from '../../store/search/when.ts';

export type Row = Record<string, any>;

export const jurisdictionRef = (r: Row) => ({ id: r.jurisdiction_id, name: r.jurisdiction_name, slug: r.jurisdiction_slug, href: `/jurisdiction/${r.jurisdiction_id}` });

/** The dates asked in the jurisdiction's zone. */
export function datesOf(t: SearchTimes, jurisdictionId: string): { from: string; to: string } {
  const z = t.zones.find((x) => x.ids.includes(jurisdictionId)) ?? t.zones[0];
  return { from: z.from, to: z.to };
}

/** The knowledge instant a jurisdiction is answered at. */
export const knownOf = (t: SearchTimes, jurisdictionId: string) => t.settled.get(jurisdictionId) ?? t.known;

/** Items grouped by the knowledge instant of their jurisdiction (one group unless a load was in flight). */
export function byKnown<T>(t: SearchTimes, rows: T[], j: (r: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const r of rows) {
    const k = knownOf(t, j(r));
    out.set(k, [...(out.get(k) ?? []), r]);
  }
  return out;
}

const nextDay = (d: string) => new Date(Date.parse(`${d}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
const prevDay = (d: string) => new Date(Date.parse(`${d}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);

/**
 * The maximal runs of [from, to] (inclusive dates) over which `on(day)` is the same, given the
 * days it may change on. Each run is {from, to, status}; status null where the item is not on record.
 */
export function statusRuns(from: string, to: string, changes: Array<string | null | undefined>, on: (day: string) => string | null) {
  const starts = [from, ...new Set(changes.filter((d): d is string => Boolean(d) && d! > from && d! <= to))].sort();
  const runs: Array<{ from: string; to: string; status: string | null }> = [];
  for (const [i, s] of starts.entries()) {
    const status = on(s);
    const end = i + 1 < starts.length ? prevDay(starts[i + 1]) : to;
    const last = runs[runs.length - 1];
    if (last && last.status === status) last.to = end;
    else runs.push({ from: s, to: end, status });
  }
  return runs;
}

export { nextDay };

/** The ordinance status on a day from the list's dates (null: not on record yet). */
export function ordinanceStatusOn(r: Row, day: string): string | null {
  if (r.introduced_on && r.introduced_on > day) return null;
  if (r.status_listed === 'adopted' && r.adopted_listed && r.adopted_listed > day) return 'introduced';
  return r.status_listed;
}

/** The moratorium status on a day: its period [from, through] and its enacting ordinance (null: none named). */
export function moratoriumStatusOn(m: { from: string | null; through: string | null; ordinance: Row | null }, day: string): string | null {
  const o = m.ordinance;
  if (o?.introduced_on && o.introduced_on > day) return null;
  if (m.through && m.through < day) return 'expired';
  if (m.from && m.from <= day) return 'in_force';
  if (!o || (o.status_listed === 'adopted' && (!o.adopted_listed || o.adopted_listed <= day))) return 'adopted';
  return 'proposed';
}

/** The blocks beside a page of a search: as_of, coverage, layer[] and notices. */
export function searchExtra(t: SearchTimes, cov: ScopeCoverage, segments: Array<Array<{ from: string }>> = [], changed: string[] = []) {
  const earliest: Record<string, string> = {};
  for (const j of (cov.block.jurisdiction as Array<{ layer: Record<string, { earliest_retained?: string | null }> }>) ?? []) {
    for (const [layer, v] of Object.entries(j.layer)) if (v.earliest_retained && (!earliest[layer] || v.earliest_retained > earliest[layer])) earliest[layer] = v.earliest_retained;
  }
  const count = t.interval ? Math.max(1, new Set(segments.flatMap((s) => s.map((x) => x.from))).size) : 1;
  const notice = [intervalNotice(count, changed), settledSearchNotice(t), zonesNotice(t)].filter(Boolean);
  return {
    as_of: timeBlock({ asOf: t.asOf, knownAsOf: t.knownAsOf, timezone: t.zones[0]?.timezone ?? 'UTC', earliestRetained: earliest, segmentCount: count }),
    coverage: cov.block,
    layer: cov.layer,
    ...(notice.length ? { notice } : {}),
  };
}
