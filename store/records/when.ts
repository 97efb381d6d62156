// When a records search reads the store: the date asked, in each row's own jurisdiction's
// timezone (a date is the same everywhere; an instant, `last <n> days` and the default are read
// per zone), and knowledge at the walk's snapshot (the instant every page is pinned to). SQL
// over these binds every value.
import type { SqlContext } from '../../core/query/resource.ts';
import { SqlBuilder } from '../../core/query/resource.ts';
import type { TimeSpec } from '../../core/time.ts';

/** SQL of the date asked for a row whose jurisdiction's timezone is the SQL expression `tz`. */
export type DaySql = (c: SqlContext, tz: string) => string;

/** The (last) date asked: an interval answers on its last day. */
export function dayOf(spec: TimeSpec | undefined): DaySql {
  const today = (c: SqlContext, tz: string) => `(${c.snapshot} AT TIME ZONE ${tz})::date`;
  if (!spec) return today;
  switch (spec.form) {
    case 'date':
      return (c) => c.bind(spec.date, 'date');
    case 'instant':
      return (c, tz) => `(${c.bind(spec.instant, 'timestamptz')} AT TIME ZONE ${tz})::date`;
    case 'range':
      return (c) => c.bind(spec.to, 'date');
    case 'last':
      return today;
  }
}

/** One date everywhere (a location's jurisdiction's date, already resolved). */
export const fixedDay =
  (date: string): DaySql =>
  (c) =>
    c.bind(date, 'date');

/** A statement of its own pinned to a walk's snapshot, for what a page's rows are decorated with. */
export function pinned(snapshot: string): SqlBuilder {
  return new SqlBuilder().pin(snapshot);
}
