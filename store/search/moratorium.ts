// Moratoriums across towns (GET /moratorium): one item per moratorium, from the clerk's table as
// known, its period from the first day any version of it was in force to the end of its latest
// version, and its status on the date asked from that period and the adoption of the ordinance
// that enacts it: proposed (that ordinance not adopted yet), adopted (not in force yet), in_force,
// expired. Every value bound.
import type { ResourceDef, SqlContext } from '../../core/query/resource.ts';
import { adoptedBy, onRecordBy } from './ordinance.ts';
import { dayFrom, dayTo, knownAt, type SearchTimes } from './when.ts';

export const LAW_STATUSES = ['adopted', 'proposed', 'in_force', 'expired'] as const;

const NEVER = `'-infinity'::date`;

/**
 * The law statuses of a moratorium over the days [a, b] (a = b for a date), given SQL of its
 * first day in force (`from`), the end of its period (`end`, exclusive, NULL for none) and its
 * enacting ordinance (alias lo: its status, introduced_on and adopted_on, all NULL when none is named).
 */
export function moratoriumStatus(from: string, end: string, lo = 'lo') {
  const enacted = (x: string) => `(${lo}.status IS NULL OR ${adoptedBy(x, lo)})`;
  const firstDay = (a: string) => `greatest(${a}, coalesce(${lo}.introduced_on, ${NEVER}))`;
  return {
    /** the one status on day x */
    on: (x: string) =>
      `(CASE WHEN ${end} <= ${x} THEN 'expired' WHEN daterange(${from}, ${end}) @> ${x} THEN 'in_force' WHEN ${enacted(x)} THEN 'adopted' ELSE 'proposed' END)`,
    /** whether it holds `status` on some day of [a, b] (bound when used: an unused bound value has no type) */
    some: (status: string, a: () => string, b: () => string) => {
      switch (status) {
        case 'proposed':
          return `(${lo}.status IS NOT NULL AND NOT ${adoptedBy(firstDay(a()), lo)})`;
        case 'adopted':
          return enacted(b());
        case 'in_force':
          return `(daterange(${from}, ${end}) && daterange(${a()}, ${b()}, '[]'))`;
        default:
          return `(${end} <= ${b()})`;
      }
    },
    /** on record by day x: its ordinance introduced by then, or no ordinance named */
    onRecord: (x: string) => `(${lo}.status IS NULL OR ${onRecordBy(x, lo)})`,
  };
}

/**
 * Whether a moratorium (uses `uses`, labels as printed `labels`) pauses one of the uses asked (or
 * a narrower or broader one); NULL when it does not name one but pauses a label the vocabulary
 * does not map (then no one can say).
 */
export function pausesSql(uses: string, labels: string, asked: string) {
  return `(CASE WHEN EXISTS (SELECT 1 FROM unnest(${uses}) u, unnest(${asked}) a WHERE u = a OR starts_with(u, a || '.') OR starts_with(a, u || '.')) THEN true
               WHEN cardinality(${labels}) > cardinality(${uses}) THEN NULL ELSE false END)`;
}

/** SQL of a moratorium's first day in force (alias m): the earliest start of its versions known then. */
export const periodFrom = (t: SearchTimes, c: SqlContext, m = 'm') =>
  `(SELECT min(lower(m2.valid)) FROM moratorium m2 WHERE m2.id = ${m}.id AND m2.known @> ${knownAt(t, c, 'm2.jurisdiction_id')})`;

/**
 * The moratorium collection over a search's dates and knowledge (null: field names only): the
 * latest version of each moratorium (`moratoriumWhere`) joined to its enacting ordinance's
 * current record (alias lo). `uses`: the slugs asked, for the `pauses` condition.
 */
export function moratoriumResource(t: SearchTimes | null, uses: string[] = []): ResourceDef {
  const b = (c: SqlContext) => (t ? dayTo(t, c, 'm.jurisdiction_id') : 'NULL::date');
  const from = (c: SqlContext) => (t ? periodFrom(t, c) : 'lower(m.valid)');
  return {
    name: 'moratorium',
    from: `moratorium m JOIN jurisdiction j ON j.id = m.jurisdiction_id LEFT JOIN ordinance lo ON lo.id = m.ordinance_id AND upper_inf(lo.valid)`,
    id: 'm.id',
    select: `m.id, m.fact_id, m.jurisdiction_id, j.name AS jurisdiction_name, j.slug AS jurisdiction_slug, m.ordinance_id, lo.number AS ordinance_number,
             m.title, m.uses, m.use_labels, m.area IS NULL AS town_wide, m.status AS area_status, m.citation_id, m.source_version_id,
             lower(m.valid)::text AS version_from, (upper(m.valid) - 1)::text AS effective_through, lo.status AS ordinance_status, lo.introduced_on::text,
             lo.adopted_on::text, lo.effective_from::text AS ordinance_effective, lo.subject,
             CASE WHEN m.area IS NOT NULL THEN ST_AsGeoJSON(ST_Envelope(m.area))::json END AS area_box`,
    defaultSort: '-effective_from',
    fields: {
      effective_from: { sql: from, type: 'date', sortable: true },
      effective_through: { sql: '(upper(m.valid) - 1)', type: 'date', sortable: true },
      adopted_on: { sql: (c) => `(CASE WHEN lo.status IS NOT NULL AND ${adoptedBy(b(c), 'lo')} THEN lo.adopted_on END)`, type: 'date', sortable: true },
      'jurisdiction.name': { sql: 'j.name', type: 'string', sortable: true, nullable: false },
      'jurisdiction.id': { sql: 'j.id', type: 'string', nullable: false },
      title: { sql: 'm.title', type: 'string', sortable: true, nullable: false },
      status: { sql: (c) => moratoriumStatus(from(c), 'upper(m.valid)').on(b(c)), type: 'enum', enum: LAW_STATUSES, sortable: true, nullable: false, description: 'The status on the (last) date asked.' },
      use: { sql: 'm.uses', type: 'string[]', nullable: false },
      town_wide: { sql: "(m.area IS NULL AND m.status <> 'area_unknown')", type: 'boolean', nullable: false },
      // adopted[gte]/[gt] and [lte]/[lt]: the enacting ordinance's adoption; not adopted on the date is out, no ordinance named indeterminate
      adopted_low: { sql: (c) => `(CASE WHEN lo.status IS NULL THEN NULL WHEN ${adoptedBy(b(c), 'lo')} THEN lo.adopted_on ELSE '-infinity'::date END)`, type: 'date', filterable: false },
      adopted_high: { sql: (c) => `(CASE WHEN lo.status IS NULL THEN NULL WHEN ${adoptedBy(b(c), 'lo')} THEN lo.adopted_on ELSE 'infinity'::date END)`, type: 'date', filterable: false },
      pauses: { sql: (c) => pausesSql('m.uses', 'm.use_labels', c.bind(uses, 'text[]')), type: 'boolean', filterable: false },
    },
  };
}

/**
 * One row per moratorium known (its latest version) with its enacting ordinance as known, on
 * record by the last day asked. (The moratorium and its ordinance come from one clerk's list,
 * loaded together, so whenever the one is known the other is.)
 */
export function moratoriumWhere(t: SearchTimes, ids: string[]) {
  const k = (c: SqlContext, alias: string) => knownAt(t, c, `${alias}.jurisdiction_id`);
  return [
    (c: SqlContext) => `m.jurisdiction_id = ANY(${c.bind(ids, 'text[]')})`,
    (c: SqlContext) => `m.known @> ${k(c, 'm')}`,
    (c: SqlContext) =>
      `NOT EXISTS (SELECT 1 FROM moratorium m2 WHERE m2.id = m.id AND m2.known @> ${k(c, 'm2')}
                    AND (lower(m2.valid), m2.fact_id) > (lower(m.valid), m.fact_id))`,
    (c: SqlContext) =>
      `(m.ordinance_id IS NULL OR lo.fact_id IS NOT DISTINCT FROM (SELECT max(x.fact_id) FROM ordinance x
                                   WHERE x.id = m.ordinance_id AND upper_inf(x.valid) AND x.known @> ${k(c, 'm')}))`,
    (c: SqlContext) => moratoriumStatus('NULL', 'NULL').onRecord(dayTo(t, c, 'm.jurisdiction_id')),
  ];
}

/** Statuses held on some day of the dates asked. */
export function moratoriumStatusFilter(t: SearchTimes, statuses: string[]) {
  return (c: SqlContext) => {
    const st = moratoriumStatus(periodFrom(t, c), 'upper(m.valid)');
    let a: string | undefined;
    let b: string | undefined;
    const first = () => (a ??= dayFrom(t, c, 'm.jurisdiction_id'));
    const last = () => (b ??= dayTo(t, c, 'm.jurisdiction_id'));
    return `(${statuses.map((s) => st.some(s, first, last)).join(' OR ')})`;
  };
}
