// Meetings of the bodies that decide, across towns: the collection's fields, and the cases and
// ordinances a page's agendas and decisions name, resolved to the records held.
import type { ResourceDef, SqlContext } from '../../core/query/resource.ts';
import { BODY_TYPES, MEETING_STATUSES } from '../../ingest/records/meetings.ts';
import type { Queryable } from '../db.ts';
import { knownAt, type SearchTimes } from './when.ts';

export { BODY_TYPES, MEETING_STATUSES };

export const meetingResource: ResourceDef = {
  name: 'meeting',
  from: 'meeting m JOIN jurisdiction j ON j.id = m.jurisdiction_id',
  id: 'm.id',
  select: `m.id, m.meeting_key, m.body_name, m.body_type, m.meets_on::text AS date, m.time_local, m.status, m.body, m.citation_id, m.source_version_id,
           m.jurisdiction_id, j.name AS jurisdiction_name, j.slug AS jurisdiction_slug, j.timezone`,
  defaultSort: '-date',
  fields: {
    date: { sql: 'm.meets_on', type: 'date', sortable: true, nullable: false },
    'body.type': { sql: 'm.body_type', type: 'enum', enum: BODY_TYPES, sortable: true },
    'body.name': { sql: 'm.body_name', type: 'string', sortable: true, nullable: false },
    status: { sql: 'm.status', type: 'enum', enum: MEETING_STATUSES },
    case: { sql: 'm.case_numbers', type: 'string[]', description: 'Case numbers its agenda or decisions name.' },
    ordinance: { sql: 'm.ordinance_numbers', type: 'string[]', description: 'Ordinance numbers its agenda or decisions name.' },
    decided: { sql: `jsonb_array_length(m.body->'decision') > 0`, type: 'boolean', nullable: false, description: 'true when the feed lists a decision taken at it.' },
    'jurisdiction.name': { sql: 'j.name', type: 'string', sortable: true, nullable: false },
  },
};

export function meetingWhere(t: SearchTimes, ids: string[]) {
  return [(c: SqlContext) => `m.jurisdiction_id = ANY(${c.bind(ids, 'text[]')}) AND m.known @> ${knownAt(t, c, 'm.jurisdiction_id')}`];
}

export interface MeetingRefs {
  cases: Map<string, string>;
  ordinances: Map<string, string>;
  feeds: Map<string, string | null>;
}

/** The case (cas_) and ordinance (ord_) ids held for the numbers a page names, by "jurisdiction number"; and each feed version's public address. */
export async function meetingRefs(db: Queryable, rows: Array<Record<string, any>>, known: string): Promise<MeetingRefs> {
  const pairs = (pick: (x: Record<string, any>) => string | null) =>
    rows.flatMap((r) => [...r.body.agenda, ...r.body.decision].map(pick).filter(Boolean).map((n) => [r.jurisdiction_id as string, n as string]));
  const cases = pairs((x) => x.case);
  const ords = pairs((x) => x.ordinance);
  const [c, o, v] = await Promise.all([
    db.query(
      `SELECT DISTINCT jurisdiction_id, number, id FROM land_record
        WHERE kind = 'case' AND (jurisdiction_id, upper(number)) IN (SELECT a, upper(b) FROM unnest($1::text[], $2::text[]) x(a, b)) AND known @> $3::timestamptz`,
      [cases.map((x) => x[0]), cases.map((x) => x[1]), known],
    ),
    db.query(
      `SELECT DISTINCT jurisdiction_id, number, id FROM ordinance
        WHERE (jurisdiction_id, upper(number)) IN (SELECT a, upper(b) FROM unnest($1::text[], $2::text[]) x(a, b)) AND known @> $3::timestamptz`,
      [ords.map((x) => x[0]), ords.map((x) => x[1]), known],
    ),
    db.query('SELECT v.id, doc.url_canonical AS url FROM document_version v JOIN document doc ON doc.id = v.document_id WHERE v.id = ANY($1::text[])', [
      [...new Set(rows.map((r) => r.source_version_id).filter(Boolean))],
    ]),
  ]);
  const key = (r: Record<string, any>) => `${r.jurisdiction_id} ${String(r.number).toUpperCase()}`;
  return {
    cases: new Map(c.rows.map((r) => [key(r), r.id])),
    ordinances: new Map(o.rows.map((r) => [key(r), r.id])),
    feeds: new Map(v.rows.map((r) => [r.id, r.url])),
  };
}
