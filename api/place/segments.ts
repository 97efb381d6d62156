// Interval answers: the maximal sub-intervals over which an answer was constant (spec 1.2.8).
// The answer can only change on a date where some fact of the jurisdiction starts or ends in
// valid time (as known then), so it is evaluated at the interval's start and at each such date,
// and neighbours that say the same are merged.
import { addDays } from '../../core/time.ts';
import type { Queryable } from '../../store/db.ts';

export interface Segment<T> {
  from: string;
  to: string; // inclusive
  value: T;
}

const FACT_TABLES = ['district', 'district_area', 'permission', 'control', 'unlisted_use_rule', 'moratorium', 'authority', 'section'];
/** Tables an answer may also read (its includes): their facts' dates are change dates too when asked for. */
export type ExtraTable = 'ordinance' | 'property';

export async function changeDates(db: Queryable, jurisdictionId: string, from: string, to: string, knownAsOf: string, extra: ExtraTable[] = []): Promise<string[]> {
  const unions = [...FACT_TABLES, ...extra].map(
    (t) => `SELECT lower(valid) AS d FROM ${t} WHERE jurisdiction_id = $1 AND known @> $4::timestamptz
            UNION SELECT upper(valid) FROM ${t} WHERE jurisdiction_id = $1 AND known @> $4::timestamptz`,
  ).join(' UNION ');
  const { rows } = await db.query(`SELECT DISTINCT d::text FROM (${unions}) x WHERE d > $2::date AND d <= $3::date ORDER BY 1`, [jurisdictionId, from, to, knownAsOf]);
  return rows.map((r) => r.d);
}

export async function segmentsOver<T>(
  db: Queryable,
  jurisdictionId: string,
  from: string,
  to: string,
  knownAsOf: string,
  at: (date: string) => Promise<T>,
  extra: ExtraTable[] = [],
): Promise<Array<Segment<T>>> {
  const starts = [from, ...(await changeDates(db, jurisdictionId, from, to, knownAsOf, extra))];
  const out: Array<Segment<T>> = [];
  let previous = '';
  for (const [i, start] of starts.entries()) {
    const value = await at(start);
    const key = JSON.stringify(value);
    const end = i + 1 < starts.length ? addDays(starts[i + 1], -1) : to;
    if (out.length > 0 && key === previous) out[out.length - 1].to = end;
    else out.push({ from: start, to: end, value });
    previous = key;
  }
  return out;
}
