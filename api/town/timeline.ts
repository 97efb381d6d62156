// Interval answers of town-local browsing (spec 1.2.8): the dates within an interval on which an
// answer about a jurisdiction can change (a fact of it, or one of its maps, takes effect or ends,
// as known then), and the maximal runs of equal values over them.
import { addDays } from '../../core/time.ts';
import type { Queryable } from '../../store/db.ts';
import { mapDates } from '../../store/district-maps.ts';
import { changeDates, type Segment } from '../place/segments.ts';

/** The interval's first date and every later date in it on which something of the jurisdiction changes. */
export async function startsOver(db: Queryable, jurisdictionId: string, from: string, to: string, knownAsOf: string): Promise<string[]> {
  const [facts, maps] = await Promise.all([changeDates(db, jurisdictionId, from, to, knownAsOf), mapDates(db, jurisdictionId, from, to, knownAsOf)]);
  return [from, ...[...new Set([...facts, ...maps])].sort()];
}

/**
 * values[i] holds from starts[i] to the day before starts[i + 1] (the last through `to`); equal
 * neighbours merge (compared by `same`, e.g. with the date a value names left out; the first is kept).
 */
export function runsOf<T>(starts: string[], to: string, values: T[], same: (value: T, start: string) => string = (v) => JSON.stringify(v)): Array<Segment<T>> {
  const out: Array<Segment<T>> = [];
  let previous = '';
  for (const [i, from] of starts.entries()) {
    const key = same(values[i], from);
    const end = i + 1 < starts.length ? addDays(starts[i + 1], -1) : to;
    if (out.length > 0 && key === previous) out[out.length - 1].to = end;
    else out.push({ from, to: end, value: values[i] });
    previous = key;
  }
  return out;
}
