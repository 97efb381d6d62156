// Permits, permit applications and cases (land_record) across towns: the collection's fields
// (over the record as served, kept in `body`), and what each page's items refer to (parcels by
// their keys, districts by their codes, the feed version and citation the record was read from).
import type { ResourceDef, SqlContext } from '../../core/query/resource.ts';
import type { Queryable } from '../db.ts';
import { knownAt, type SearchTimes } from './when.ts';

export const PERMIT_OBJECTS = ['permit', 'application'] as const;
export const CASE_OBJECTS = ['case'] as const;

const date = (path: string) => `(r.body->'dates'->>'${path}')::date`;

/** Permits and applications (layer permit), or cases. */
export function landRecordResource(layer: 'permit' | 'case'): ResourceDef {
  const permits = layer === 'permit';
  const objects = permits ? PERMIT_OBJECTS : CASE_OBJECTS;
  return {
    name: layer,
    from: 'land_record r JOIN jurisdiction j ON j.id = r.jurisdiction_id',
    id: 'r.id',
    select: `r.id, r.kind, r.number, r.body, r.parcel_ids, r.citation_id, r.source_id, r.source_version_id, r.jurisdiction_id,
             j.name AS jurisdiction_name, j.slug AS jurisdiction_slug, j.type AS jurisdiction_type, j.fips_key AS jurisdiction_fips,
             to_char(lower(r.known) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS updated_at`,
    defaultSort: '-applied',
    fields: {
      number: { sql: 'r.number', type: 'string', sortable: true, nullable: false },
      object: { sql: 'r.kind', type: 'enum', enum: objects },
      'type.code': { sql: `r.body->'type'->>'code'`, type: 'string' },
      'status.code': { sql: `r.body->'status'->>'code'`, type: 'string' },
      'agency.type': { sql: `r.body->'agency'->>'type'`, type: 'string' },
      'agency.name': { sql: `r.body->'agency'->>'name'`, type: 'string' },
      applied: { sql: date('applied'), type: 'date', sortable: true },
      decided: { sql: date('decided'), type: 'date', sortable: true },
      expires: { sql: date('expires'), type: 'date', sortable: true },
      completed: { sql: date('completed'), type: 'date', sortable: true },
      ...(permits
        ? {
            issued: { sql: date('issued'), type: 'date' as const, sortable: true },
            'valuation.amount': { sql: `(r.body->'valuation'->>'amount')::numeric`, type: 'number' as const, sortable: true },
          }
        : {}),
      pending: { sql: `(r.body->'decision') = 'null'::jsonb`, type: 'boolean', nullable: false, description: 'true while the record states no decision (spec 3.1).' },
      'decision.outcome.code': { sql: `r.body->'decision'->'outcome'->>'code'`, type: 'string' },
      'zoning.code': { sql: `ARRAY(SELECT z->>'code' FROM jsonb_array_elements(coalesce(r.body->'zoning', '[]'::jsonb)) z)`, type: 'string[]' },
      parcel: { sql: 'r.parcel_ids', type: 'string[]', description: 'prc_ ids of the parcels the record is about.' },
      'jurisdiction.name': { sql: 'j.name', type: 'string', sortable: true, nullable: false },
    },
  };
}

/** The conditions every page of a records search shares: scope, kinds, knowledge. */
export function landRecordWhere(t: SearchTimes, ids: string[], objects: readonly string[]) {
  return [(c: SqlContext) => `r.jurisdiction_id = ANY(${c.bind(ids, 'text[]')}) AND r.kind = ANY(${c.bind(objects, 'text[]')}) AND r.known @> ${knownAt(t, c, 'r.jurisdiction_id')}`];
}

/** One record by id, as known at the instant. */
export async function landRecordById(db: Queryable, id: string, known: string) {
  const def = landRecordResource('permit');
  const { rows } = await db.query(`SELECT ${def.select} FROM ${def.from} WHERE r.id = $1 AND r.known @> $2::timestamptz ORDER BY r.fact_id DESC LIMIT 1`, [id, known]);
  return rows[0] ?? null;
}

/** Which of the jurisdictions hold a feed of the layer (coverage held), and whether any does at all. */
export async function feedsHeld(db: Queryable, layer: 'permit' | 'case', ids: string[] | null): Promise<string[]> {
  const { rows } = await db.query(`SELECT jurisdiction_id FROM coverage WHERE layer = $1 AND held AND ($2::text[] IS NULL OR jurisdiction_id = ANY($2::text[])) ORDER BY 1`, [layer, ids]);
  return rows.map((r) => r.jurisdiction_id as string);
}

export interface RecordRefs {
  parcels: Map<string, { id: string; number: string }>;
  districts: Map<string, string>;
  versions: Map<string, { retrieved_at: string; url: string | null }>;
  first: Map<string, string>;
}

/** What a page of records refers to: parcels, districts (by jurisdiction and code) in force, feed versions, first known. */
export async function recordRefs(db: Queryable, rows: Array<Record<string, any>>, known: string): Promise<RecordRefs> {
  const parcelIds = [...new Set(rows.flatMap((r) => r.parcel_ids as string[]))];
  const codes = rows.flatMap((r) => ((r.body.zoning ?? []) as Array<{ code: string }>).map((z) => [r.jurisdiction_id, z.code.toUpperCase()]));
  const [p, d, v, f] = await Promise.all([
    db.query(`SELECT DISTINCT ON (id) id, parcel_key FROM parcel WHERE id = ANY($1::text[]) AND known @> $2::timestamptz ORDER BY id, fact_id DESC`, [parcelIds, known]),
    db.query(
      `SELECT DISTINCT ON (d.jurisdiction_id, d.code_normalized) d.jurisdiction_id, d.code_normalized, d.id FROM district d
         JOIN jurisdiction j ON j.id = d.jurisdiction_id
        WHERE (d.jurisdiction_id, d.code_normalized) IN (SELECT * FROM unnest($1::text[], $2::text[]))
          AND d.kind = 'base' AND d.known @> $3::timestamptz AND d.valid @> (($3::timestamptz) AT TIME ZONE j.timezone)::date
        ORDER BY d.jurisdiction_id, d.code_normalized, d.id`,
      [codes.map((c) => c[0]), codes.map((c) => c[1]), known],
    ),
    db.query(
      `SELECT v.id, to_char(v.retrieved_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS retrieved_at, doc.url_canonical AS url
         FROM document_version v JOIN document doc ON doc.id = v.document_id WHERE v.id = ANY($1::text[])`,
      [[...new Set(rows.map((r) => r.source_version_id).filter(Boolean))]],
    ),
    db.query(`SELECT id, to_char(min(lower(known)) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS first FROM land_record WHERE id = ANY($1::text[]) GROUP BY id`, [rows.map((r) => r.id)]),
  ]);
  return {
    parcels: new Map(p.rows.map((r) => [r.id, { id: r.id, number: r.parcel_key }])),
    districts: new Map(d.rows.map((r) => [`${r.jurisdiction_id} ${r.code_normalized}`, r.id])),
    versions: new Map(v.rows.map((r) => [r.id, { retrieved_at: r.retrieved_at, url: r.url }])),
    first: new Map(f.rows.map((r) => [r.id, r.first])),
  };
}
