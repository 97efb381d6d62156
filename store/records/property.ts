// Properties (GET /property, /property/{id}): the assessor's record of each account in force on
// the date asked and known at the walk's snapshot (one row per property: the latest roll's when
// several rolls hold it), with the owners of record then. Owners are the roll's, unless a deed
// (a sale or transfer naming a grantee) was recorded on or after the roll took effect and by the
// date asked: the latest such deed's grantees are then the owners of record. Nothing is computed
// beyond that choice; every value bound.
import type { Row } from '../../core/query/query.ts';
import type { ResourceDef, SqlContext } from '../../core/query/resource.ts';
import type { Queryable } from '../db.ts';
import { factIdIs } from '../fact-id.ts';
import { TRANSACTION_FROM, TRANSACTION_SELECT, transactionKnown } from './transaction.ts';
import { type DaySql, pinned } from './when.ts';

export const SQ_FT_PER_ACRE = 43_560;

/** The roll row's land area in square feet (acres converted exactly), for sorting and filtering. */
const LAND_AREA_SQ_FT = `(CASE p.land_area->>'unit' WHEN 'acre' THEN (p.land_area->>'value')::numeric * ${SQ_FT_PER_ACRE} ELSE (p.land_area->>'value')::numeric END)`;
/** The oldest building's year built, as the roll states it. */
const YEAR_BUILT = `(SELECT min((s->>'year_built')::int) FROM jsonb_array_elements(p.structure->'structures') s WHERE jsonb_typeof(s->'year_built') = 'number')`;

export interface PropertyWhen {
  day: DaySql;
}

/** What distance is measured from: GeoJSON or WKT text (EPSG:4326). */
export interface DistanceFrom {
  text: string;
  json: boolean;
}

const shape = (c: SqlContext, f: DistanceFrom) => (f.json ? `ST_GeomFromGeoJSON(${c.bind(f.text, 'text')})` : `ST_GeomFromText(${c.bind(f.text, 'text')}, 4326)`);

/** The parcels of property `p` on the day, as known (alias pa). */
const parcelsOf = (c: SqlContext, w: PropertyWhen, p = 'p') =>
  `parcel pa WHERE pa.id_hash = ANY(ARRAY(SELECT hashtextextended(x, 0) FROM unnest(${p}.parcel_ids) x)) AND pa.id = ANY(${p}.parcel_ids) AND pa.valid @> ${w.day(c, 'j.timezone')} AND pa.known @> ${c.snapshot} AND pa.geom IS NOT NULL`;

/**
 * Properties as a collection over a search's times (null: the field names only, to parse sort
 * and filter parameters). `from` is the GeoJSON distance is measured from (null: no distance).
 */
export function propertyResource(w: PropertyWhen | null, from: DistanceFrom | null): ResourceDef {
  const distance = (c: SqlContext) => (w && from ? `(SELECT min(ST_Distance(pa.geom::geography, ${shape(c, from)}::geography)) FROM ${parcelsOf(c, w)})` : 'NULL::float8');
  return {
    name: 'property',
    from: 'property p JOIN jurisdiction j ON j.id = p.jurisdiction_id',
    id: 'p.id',
    select: `p.fact_id, p.id, p.jurisdiction_id, j.name AS jurisdiction_name, j.slug AS jurisdiction_slug, j.timezone, p.county_fips, p.label,
      p.account_key, p.parcel_key, p.parcel_ids, p.addresses, p.legal_summary, p.land_area, p.current_use, p.assessor_zoning, p.assessment,
      p.tax, p.ownership, p.structure, p.fiscal_year, lower(p.valid)::text AS effective_from, upper(p.valid)::text AS effective_through,
      p.source_id, p.source_version_id`,
    defaultSort: 'label',
    fields: {
      label: { sql: 'p.label', type: 'string', sortable: true, nullable: false, description: 'The site address as the roll prints it.' },
      land_area: { sql: LAND_AREA_SQ_FT, type: 'number', sortable: true, description: 'Land area in square feet (a roll stating acres is converted exactly).' },
      year_built: { sql: YEAR_BUILT, type: 'integer', sortable: true, description: "The oldest building's year built, as the roll states it." },
      distance: { sql: distance, type: 'number', sortable: true, filterable: false, description: 'Metres from the point or geometry asked to the nearest parcel of the property.' },
      use_raw: { sql: `(p.current_use->>'code')`, type: 'string', description: "The assessor's use or class code, as printed." },
      assessor_zoning: { sql: `(p.assessor_zoning->>'code')`, type: 'string', description: "The roll's own zoning column (not the zoning map)." },
      total_value_cents: { sql: `(p.assessment->>'total_value_cents')::bigint`, type: 'integer', description: 'Total assessed value stated, in cents.' },
      fiscal_year: { sql: 'p.fiscal_year', type: 'integer' },
      parcel_key: { sql: 'p.parcel_key', type: 'string' },
      account_key: { sql: 'p.account_key', type: 'string', nullable: false },
      county_fips: { sql: 'p.county_fips', type: 'string' },
      'jurisdiction.id': { sql: 'p.jurisdiction_id', type: 'string', nullable: false },
    },
  };
}

/**
 * In force on the day and known at the snapshot; of several rolls holding a property, the latest
 * fiscal year's (then the latest to take effect). Over a whole jurisdiction (`scope`), the ids held
 * twice are found once (a hash aggregate) and only their rows probe for a later roll; elsewhere
 * (a place's or an owner's few rows) each row probes.
 */
export function propertyInForce(w: PropertyWhen, scope: string[] | null = null) {
  return (c: SqlContext) => {
    const day = w.day(c, 'j.timezone');
    const later = `NOT EXISTS (SELECT 1 FROM property p2 WHERE ${factIdIs('p2', 'p.id')} AND p2.fact_id <> p.fact_id AND p2.valid @> ${day} AND p2.known @> ${c.snapshot}
        AND (coalesce(p2.fiscal_year, 0), lower(p2.valid), p2.fact_id) > (coalesce(p.fiscal_year, 0), lower(p.valid), p.fact_id))`;
    const twice = scope
      ? `NOT (p.id = ANY(ARRAY(SELECT q.id FROM property q JOIN jurisdiction qj ON qj.id = q.jurisdiction_id
          WHERE q.jurisdiction_id = ANY(${c.bind(scope, 'text[]')}) AND q.valid @> ${w.day(c, 'qj.timezone')} AND q.known @> ${c.snapshot} GROUP BY q.id HAVING count(*) > 1))) OR `
      : '';
    return `p.valid @> ${day} AND p.known @> ${c.snapshot} AND (${twice}${later})`;
  };
}

/** The units an array of addresses names (upper case). */
const unitsOf = (addresses: string) =>
  `ARRAY(SELECT upper(btrim(a->>'unit')) FROM jsonb_array_elements(${addresses}) a WHERE btrim(coalesce(a->>'unit', '')) <> '')`;

/**
 * Deeds that state the owners of property row `p` on `day` as known at `known` (alias t): a sale
 * or transfer naming a grantee, recorded by the day and on or after the roll row took effect;
 * where the property or the deed names a unit, they share one (a condominium unit's deed is not
 * another unit's). The latest recorded first.
 */
export function deedsStatingOwners(p: string, day: string, known: string): string {
  const pu = unitsOf(`${p}.addresses`);
  const tu = unitsOf(`t.parties->'addresses'`);
  return `t.property_ids @> ARRAY[${p}.id] AND t.kind IN ('sale', 'transfer') AND t.recorded_on IS NOT NULL
    AND t.recorded_on <= ${day} AND t.recorded_on >= lower(${p}.valid) AND t.known @> ${known}
    AND EXISTS (SELECT 1 FROM jsonb_array_elements(t.parties->'parties') g WHERE g->>'role' = 'grantee' AND btrim(coalesce(g->>'name', '')) <> '')
    AND (${pu} && ${tu} OR (cardinality(${pu}) = 0 AND cardinality(${tu}) = 0))`;
}

const DEED_ORDER = 'ORDER BY t.recorded_on DESC, t.fact_id DESC LIMIT 1';

/**
 * Properties held under a public-record name on the day: candidates from the names indexed
 * (migration 027: roll owners and parties of record), then the owners of record then, exactly.
 */
export function ownedBy(w: PropertyWhen, name: string) {
  return (c: SqlContext) => {
    const n = `record_name(${c.bind(name, 'text')})`;
    const day = w.day(c, 'j.timezone');
    const grantees = `ARRAY(SELECT record_name(g->>'name') FROM jsonb_array_elements(t.parties->'parties') g WHERE g->>'role' = 'grantee' AND btrim(coalesce(g->>'name', '')) <> '')`;
    const candidates = `SELECT id FROM property WHERE record_names(ownership->'owners') @> ARRAY[${n}]
      UNION SELECT unnest(property_ids) FROM transaction WHERE record_party_names(parties->'parties') @> ARRAY[${n}]`;
    // by id_hash too, so the exclusion index is read by its first column (store/fact-id.ts)
    return `p.id_hash = ANY(ARRAY(SELECT hashtextextended(x.id, 0) FROM (${candidates}) x)) AND p.id = ANY(ARRAY(${candidates}))
      AND coalesce((SELECT ${grantees} FROM transaction t WHERE ${deedsStatingOwners('p', day, c.snapshot)} ${DEED_ORDER}), record_names(p.ownership->'owners')) @> ARRAY[${n}]`;
  };
}

/** On these parcels. */
export const onParcels = (ids: string[]) => (c: SqlContext) => `p.parcel_ids && ${c.bind(ids, 'text[]')}`;

/** On a parcel (in force on the day, as known) that meets this GeoJSON shape. */
export function inArea(w: PropertyWhen, geojson: string) {
  return (c: SqlContext) => {
    const g = `ST_GeomFromGeoJSON(${c.bind(geojson, 'text')})`;
    return `p.parcel_ids && ARRAY(SELECT pa.id FROM parcel pa JOIN jurisdiction pj ON pj.id = pa.jurisdiction_id
      WHERE pa.geom && ${g} AND ST_Intersects(pa.geom, ${g}) AND pa.valid @> ${w.day(c, 'pj.timezone')} AND pa.known @> ${c.snapshot})`;
  };
}

/**
 * The sources and retained versions a page's rows were read from (read once per page, not joined
 * to every row a sort passes over), keyed by `source_id/version_id`.
 */
export async function sourcesOf(db: Queryable, rows: Row[]): Promise<Map<string, Row>> {
  const pairs = [...new Set(rows.map((r) => `${r.source_id}/${r.source_version_id ?? ''}`))];
  if (!pairs.length) return new Map();
  const { rows: found } = await db.query(
    `SELECT x.pair, s.key AS source_key, s.kind AS source_kind, s.manifest->>'title' AS source_title, d.id AS source_document, d.url_canonical AS source_url,
            v.id AS source_version, v.number AS source_version_number,
            to_char(v.retrieved_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS source_retrieved_at,
            (v.retrieved_at AT TIME ZONE j.timezone)::date::text AS source_retrieved_on
       FROM unnest($1::text[]) x(pair) JOIN source s ON s.id = split_part(x.pair, '/', 1) JOIN jurisdiction j ON j.id = s.jurisdiction_id
       LEFT JOIN document_version v ON v.id = nullif(split_part(x.pair, '/', 2), '') LEFT JOIN document d ON d.id = v.document_id`,
    [pairs],
  );
  return new Map(found.map((r) => [r.pair as string, r]));
}

/** A page's rows with the source each was read from. */
export async function withSources(db: Queryable, rows: Row[]): Promise<Row[]> {
  const by = await sourcesOf(db, rows);
  return rows.map((r) => ({ ...r, ...by.get(`${r.source_id}/${r.source_version_id ?? ''}`) }));
}

/** The deed stating the owners of each property row (by fact id), as of the page's times. */
export async function deedsOf(db: Queryable, facts: number[], w: PropertyWhen, snapshot: string) {
  if (!facts.length) return new Map<number, Row>();
  const b = pinned(snapshot);
  const day = w.day(b, 'j.timezone');
  const sql = `SELECT p.fact_id AS property_fact, x.* FROM property p JOIN jurisdiction j ON j.id = p.jurisdiction_id
    CROSS JOIN LATERAL (SELECT ${TRANSACTION_SELECT} FROM ${TRANSACTION_FROM} WHERE ${deedsStatingOwners('p', day, b.snapshot)} ${DEED_ORDER}) x
    WHERE p.fact_id = ANY(${b.bind(facts, 'bigint[]')})`;
  const rows = await withSources(db, (await db.query(sql, b.values)).rows);
  return new Map(rows.map((r) => [Number(r.property_fact), r]));
}

/** At most this many transactions are embedded in a property; the rest are counted. */
export const TRANSACTION_LIMIT = 100;

/** The transactions of each property row recorded by the day (or undated), as known, latest first. */
export async function transactionsOf(db: Queryable, facts: number[], w: PropertyWhen, snapshot: string) {
  const out = new Map<number, Array<Row>>();
  if (!facts.length) return out;
  const b = pinned(snapshot);
  const day = w.day(b, 'j.timezone');
  const sql = `SELECT p.fact_id AS property_fact, x.* FROM property p JOIN jurisdiction j ON j.id = p.jurisdiction_id
    CROSS JOIN LATERAL (SELECT ${TRANSACTION_SELECT}, count(*) OVER () AS total FROM ${TRANSACTION_FROM}
      WHERE t.property_ids @> ARRAY[p.id] AND ${transactionKnown(b)} AND (t.recorded_on IS NULL OR t.recorded_on <= ${day})
      ORDER BY t.recorded_on DESC NULLS LAST, t.id LIMIT ${TRANSACTION_LIMIT}) x
    WHERE p.fact_id = ANY(${b.bind(facts, 'bigint[]')})`;
  const rows = await withSources(db, (await db.query(sql, b.values)).rows);
  for (const r of rows) out.set(Number(r.property_fact), [...(out.get(Number(r.property_fact)) ?? []), r]);
  return out;
}

/** Metres from the GeoJSON shape to the nearest parcel of each property row, as of the page's times. */
export async function distancesOf(db: Queryable, facts: number[], w: PropertyWhen, snapshot: string, from: DistanceFrom) {
  if (!facts.length) return new Map<number, number | null>();
  const b = pinned(snapshot);
  const sql = `SELECT p.fact_id, (SELECT min(ST_Distance(pa.geom::geography, ${shape(b, from)}::geography)) FROM ${parcelsOf(b, w)}) AS m
    FROM property p JOIN jurisdiction j ON j.id = p.jurisdiction_id WHERE p.fact_id = ANY(${b.bind(facts, 'bigint[]')})`;
  const { rows } = await db.query(sql, b.values);
  return new Map(rows.map((r) => [Number(r.fact_id), r.m === null ? null : Number(r.m)]));
}

export interface CoverageRow {
  jurisdiction_id: string;
  name: string;
  layer: string;
  held: boolean | null;
  tier: string | null;
  last_retrieved_at: string | null;
  last_changed_at: string | null;
  earliest_retained: string | null;
}

/** The assessor and recorder coverage rows of these jurisdictions (held null: no row). */
export async function recordCoverage(db: Queryable, ids: string[]): Promise<CoverageRow[]> {
  if (!ids.length) return [];
  const { rows } = await db.query<CoverageRow>(
    `SELECT j.id AS jurisdiction_id, j.name, l.layer, c.held, c.tier,
            to_char(c.last_retrieved_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS last_retrieved_at,
            to_char(c.last_changed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS last_changed_at, c.earliest_retained::text
       FROM jurisdiction j CROSS JOIN unnest(ARRAY['assessor', 'recorder']) l(layer)
       LEFT JOIN coverage c ON c.jurisdiction_id = j.id AND c.layer = l.layer
      WHERE j.id = ANY($1::text[]) ORDER BY j.name, j.id, l.layer`,
    [ids],
  );
  return rows;
}

/**
 * The days in (from, to] on which what is on record of a property may change, as known at `known`:
 * a roll row taking effect or ending, a deed or other instrument of it recorded.
 */
export async function changeDays(db: Queryable, id: string, known: string, from: string, to: string): Promise<string[]> {
  const { rows } = await db.query(
    `SELECT DISTINCT d::text AS d FROM (
       SELECT lower(valid) AS d FROM property WHERE ${factIdIs('property', '$1')} AND known @> $2::timestamptz
       UNION SELECT upper(valid) FROM property WHERE ${factIdIs('property', '$1')} AND known @> $2::timestamptz AND NOT upper_inf(valid)
       UNION SELECT recorded_on FROM transaction WHERE property_ids @> ARRAY[$1::text] AND known @> $2::timestamptz) x
      WHERE d > $3::date AND d <= $4::date ORDER BY 1`,
    [id, known, from, to],
  );
  return rows.map((r) => r.d);
}

/** The first day each property is on record (any roll row known at the snapshot), for refusals that name it. */
export async function firstOnRecord(db: Queryable, id: string, known: string): Promise<{ from: string | null; through: string | null }> {
  const { rows } = await db.query(
    `SELECT min(lower(valid))::text AS from, CASE WHEN bool_or(upper_inf(valid)) THEN NULL ELSE max(upper(valid))::text END AS through
       FROM property WHERE ${factIdIs('property', '$1')} AND known @> $2::timestamptz`,
    [id, known],
  );
  return { from: rows[0]?.from ?? null, through: rows[0]?.through ?? null };
}
