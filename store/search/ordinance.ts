// Ordinances across towns (GET /ordinance, /ordinance/{id}): each ordinance as the clerk's list
// last stated it (the current record, as known), its status read on the date asked from the
// list's own dates. An ordinance adopted after the date was `introduced` then, with no adoption
// or effective date yet; one introduced after the date is not on record then. Every value bound.
import type { ResourceDef, SqlContext } from '../../core/query/resource.ts';
import type { Queryable } from '../db.ts';
import { dayFrom, dayTo, knownAt, type SearchTimes } from './when.ts';

export const ORDINANCE_KINDS = ['text_amendment', 'map_amendment', 'standalone', 'moratorium'] as const;
export const ORDINANCE_STATUSES = ['proposed', 'introduced', 'adopted', 'failed'] as const;
export const SUBJECTS = ['solar', 'wind', 'battery_storage', 'noise'] as const;

const NEVER = `'-infinity'::date`;

/** SQL of the ordinance status (alias o) on the date `x`: adopted after x reads as introduced. */
export const statusOn = (x: string, o = 'o') => `(CASE WHEN ${o}.status = 'adopted' AND ${o}.adopted_on > ${x} THEN 'introduced' ELSE ${o}.status END)`;
/** Adopted on or before `x` (an adoption the list does not date counts as adopted). */
export const adoptedBy = (x: string, o = 'o') => `(${o}.status = 'adopted' AND coalesce(${o}.adopted_on, ${NEVER}) <= ${x})`;
/** On record on some day up to `x`: introduced by then (an ordinance without that date always). */
export const onRecordBy = (x: string, o = 'o') => `(coalesce(${o}.introduced_on, ${NEVER}) <= ${x})`;

/** The first day of [a, b] an ordinance is on record. */
const firstDay = (a: string, o = 'o') => `greatest(${a}, coalesce(${o}.introduced_on, ${NEVER}))`;

/**
 * The ordinance as a collection over the dates and knowledge of a search (null: only the field
 * names, to parse sort and filter parameters). Dates are the last day asked; status filters of
 * an interval match a status held on some day of it (`statusFilter`).
 */
export function ordinanceResource(t: SearchTimes | null): ResourceDef {
  const b = (c: SqlContext) => (t ? dayTo(t, c, 'o.jurisdiction_id') : 'NULL::date');
  const adopted = (c: SqlContext) => {
    const x = b(c);
    return `(CASE WHEN ${adoptedBy(x)} THEN o.adopted_on END)`;
  };
  return {
    name: 'ordinance',
    from: 'ordinance o JOIN jurisdiction j ON j.id = o.jurisdiction_id',
    id: 'o.id',
    select: `o.id, o.fact_id, o.jurisdiction_id, j.name AS jurisdiction_name, j.slug AS jurisdiction_slug, o.number, o.title, o.kind, o.status AS status_listed,
             o.subject, o.introduced_on, o.adopted_on AS adopted_listed, o.effective_from AS effective_listed, o.citation_id, o.document_id, o.detail,
             lower(o.valid)::text AS valid_from`,
    defaultSort: '-adopted_on',
    fields: {
      adopted_on: { sql: adopted, type: 'date', sortable: true },
      effective_from: { sql: (c) => `(CASE WHEN ${adoptedBy(b(c))} THEN o.effective_from END)`, type: 'date', sortable: true },
      introduced_on: { sql: 'o.introduced_on', type: 'date', sortable: true },
      'jurisdiction.name': { sql: 'j.name', type: 'string', sortable: true, nullable: false },
      'jurisdiction.id': { sql: 'j.id', type: 'string', nullable: false },
      status: { sql: (c) => statusOn(b(c)), type: 'enum', enum: ORDINANCE_STATUSES, sortable: true, nullable: false, description: 'The status on the date asked.' },
      kind: { sql: 'o.kind', type: 'enum', enum: ORDINANCE_KINDS, nullable: false },
      number: { sql: 'o.number', type: 'string', sortable: true },
      title: { sql: 'o.title', type: 'string' },
      subject: { sql: 'o.subject', type: 'string[]', nullable: false },
      // adopted[gte]/[gt] and adopted[lte]/[lt]: an ordinance not adopted on the date is out, one adopted undated is indeterminate
      adopted_low: { sql: (c) => `(CASE WHEN ${adoptedBy(b(c))} THEN o.adopted_on ELSE ${NEVER} END)`, type: 'date', filterable: false },
      adopted_high: { sql: (c) => `(CASE WHEN ${adoptedBy(b(c))} THEN o.adopted_on ELSE 'infinity'::date END)`, type: 'date', filterable: false },
    },
  };
}

/**
 * The rows a search lists: each ordinance's current record as known (the latest source's when
 * several state it), on record by the last day asked, in scope.
 */
export function ordinanceWhere(t: SearchTimes, ids: string[]) {
  const k = (c: SqlContext, a: string) => knownAt(t, c, `${a}.jurisdiction_id`);
  return [
    (c: SqlContext) => `o.jurisdiction_id = ANY(${c.bind(ids, 'text[]')})`,
    (c: SqlContext) => `upper_inf(o.valid) AND o.known @> ${k(c, 'o')}`,
    (c: SqlContext) =>
      `NOT EXISTS (SELECT 1 FROM ordinance o2 WHERE o2.id = o.id AND o2.fact_id > o.fact_id AND upper_inf(o2.valid) AND o2.known @> ${k(c, 'o2')})`,
    (c: SqlContext) => onRecordBy(dayTo(t, c, 'o.jurisdiction_id')),
  ];
}

/** Statuses held on some day of the dates asked (for an instant, on the date). */
export function statusFilter(t: SearchTimes, statuses: string[]) {
  return (c: SqlContext) => {
    const asked = c.bind(statuses, 'text[]');
    return `(${statusOn(firstDay(dayFrom(t, c, 'o.jurisdiction_id')))} = ANY(${asked}) OR ${statusOn(dayTo(t, c, 'o.jurisdiction_id'))} = ANY(${asked}))`;
  };
}

export interface OrdinanceFacts {
  moratorium: Map<string, string[]>;
  text: Map<string, { version: string; instructions: number; read_at: string }>;
}

/** What a page of ordinances links to: their moratoriums and whether their own texts were read, as known. */
export async function ordinanceLinks(db: Queryable, ids: string[], known: string): Promise<OrdinanceFacts> {
  const [m, r] = await Promise.all([
    db.query('SELECT DISTINCT ordinance_id, id FROM moratorium WHERE ordinance_id = ANY($1::text[]) AND known @> $2::timestamptz ORDER BY id', [ids, known]),
    db.query(
      `SELECT DISTINCT ON (ordinance_id) ordinance_id, source_version_id, instructions, to_char(known_from AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS read_at
         FROM ordinance_text_read WHERE ordinance_id = ANY($1::text[]) AND known_from <= $2::timestamptz ORDER BY ordinance_id, known_from DESC`,
      [ids, known],
    ),
  ]);
  const moratorium = new Map<string, string[]>();
  for (const x of m.rows) moratorium.set(x.ordinance_id, [...(moratorium.get(x.ordinance_id) ?? []), x.id]);
  return { moratorium, text: new Map(r.rows.map((x) => [x.ordinance_id, { version: x.source_version_id, instructions: x.instructions, read_at: x.read_at }])) };
}

/** The change events naming these ordinances, as known at the instant (in seq order). */
export async function ordinanceEvents(db: Queryable, ids: string[], known: string) {
  const { rows } = await db.query(
    `SELECT e.id, e.seq, e.kind, e.layer, e.subject, e.jurisdiction_id, e.field_path, e.previous, e.current, e.effective_date::text, e.adopted_on::text,
            e.detected_at, e.ordinance_id, e.source_version_id, j.name AS jurisdiction_name, j.slug
       FROM change_event e JOIN jurisdiction j ON j.id = e.jurisdiction_id
      WHERE e.ordinance_id = ANY($1::text[]) AND e.detected_at <= $2::timestamptz ORDER BY e.seq`,
    [ids, known],
  );
  return rows;
}

/**
 * The facts (controls or permissions) the events name, each as in force from the event's
 * effective date, as known; keyed by event id.
 */
export async function changedFacts(db: Queryable, table: 'control' | 'permission', events: Array<{ id: string; subject: { id?: string }; effective_date: string | null }>, known: string) {
  const wanted = events.filter((e) => e.subject?.id && e.effective_date);
  if (wanted.length === 0) return new Map<string, Record<string, any>>();
  const cols =
    table === 'control'
      ? `f.control_type, f.building_type, f.qualifier, f.min_value::float8 AS min, f.max_value::float8 AS max, f.unit, f.value_text, f.conditions, f.table_ref`
      : `f.use_label_raw AS use_label, f.use_slug, f.symbol, f.level, f.process, f.conditions, f.table_ref`;
  const { rows } = await db.query(
    `SELECT w.event_id, f.id, f.district_id, d.code_normalized AS district_code, ${cols}, f.status, f.citation_id, lower(f.valid)::text AS effective_from, upper(f.valid)::text AS effective_through
       FROM unnest($1::text[], $2::text[], $3::date[]) w(event_id, fact_id, on_date)
       JOIN ${table} f ON f.id = w.fact_id AND f.valid @> w.on_date AND f.known @> $4::timestamptz
       LEFT JOIN LATERAL (SELECT code_normalized FROM district WHERE id = f.district_id ORDER BY upper_inf(known) DESC, fact_id DESC LIMIT 1) d ON true`,
    [wanted.map((e) => e.id), wanted.map((e) => e.subject.id), wanted.map((e) => e.effective_date), known],
  );
  return new Map(rows.map((r) => [r.event_id as string, r]));
}

/** What the ordinances' own texts instruct (migration 022), as read from the latest version known. */
export async function instructionsOf(db: Queryable, ids: string[], known: string) {
  const { rows } = await db.query(
    `SELECT i.ordinance_id, i.ordinal, i.action, i.target, i.ref, i.row_code, i.column_label, i.control_type, i.struck, i.inserted, i.unit,
            i.from_code, i.from_name, i.to_code, i.to_name, i.land, i.address, i.reason, i.citation_id, i.source_version_id
       FROM amendment_instruction i
       JOIN (SELECT DISTINCT ON (ordinance_id) ordinance_id, source_version_id FROM ordinance_text_read
              WHERE ordinance_id = ANY($1::text[]) AND known_from <= $2::timestamptz ORDER BY ordinance_id, known_from DESC) r
         ON r.source_version_id = i.source_version_id
      ORDER BY i.ordinance_id, i.ordinal`,
    [ids, known],
  );
  return rows;
}
