// What the law says at a location on a date, as known at a time: districts with their shares,
// authorities, controls, permissions, the rule for unlisted uses, moratoriums. Every query
// selects facts by both axes: valid @> as_of and known @> known_as_of.
import type { Queryable } from '../db.ts';
import type { Times } from './resolve.ts';

/** Which source speaks first about a district: the code, then the publisher's list, then a map. */
const SOURCE_RANK = `CASE s.kind WHEN 'code_text' THEN 0 WHEN 'district_list' THEN 1 ELSE 2 END`;

export interface Share {
  district_id: string;
  kind: 'base' | 'overlay';
  code: string;
  share: number | null;
  area_m2: number | null;
  on_boundary: boolean;
  map_version: string;
  map_citation_feature: string | null;
}

/** The districts whose mapped polygons reach the location, with the share of it each covers. */
export async function districtShares(db: Queryable, jurisdictionId: string, geojson: string, t: Times): Promise<Share[]> {
  // Shares are ratios of planar areas (within a parcel the degree grid does not distort them);
  // a district that covers the whole location needs no intersection at all.
  const { rows } = await db.query(
    `WITH loc AS (SELECT g, CASE WHEN GeometryType(g) IN ('POLYGON', 'MULTIPOLYGON') THEN ST_Area(g) END AS a,
                         CASE WHEN GeometryType(g) IN ('POLYGON', 'MULTIPOLYGON') THEN ST_Area(g::geography) END AS m2
                    FROM ST_GeomFromGeoJSON($2) AS g),
     hit AS (
       SELECT a.district_id, a.kind, a.code_raw, a.map_version_id, a.feature_ref,
              CASE WHEN loc.a IS NULL THEN NULL WHEN ST_Covers(a.geom, loc.g) THEN loc.a ELSE ST_Area(ST_Intersection(a.geom, loc.g)) END AS part,
              GeometryType(loc.g) = 'POINT' AND ST_Intersects(ST_Boundary(a.geom), loc.g) AS edge
         FROM district_area a, loc
        WHERE a.jurisdiction_id = $1 AND a.valid @> $3::date AND a.known @> $4::timestamptz AND ST_Intersects(a.geom, loc.g))
     SELECT district_id, kind, min(code_raw) AS code, sum(part) / (SELECT a FROM loc) AS share, (SELECT m2 FROM loc) AS total_m2,
            bool_and(edge) AS edge, min(map_version_id) AS map_version, min(feature_ref) AS feature_ref
       FROM hit GROUP BY district_id, kind`,
    [jurisdictionId, geojson, t.asOf, t.knownAsOf],
  );
  return rows
    .map((r) => ({
      district_id: r.district_id,
      kind: r.kind,
      code: r.code,
      area_m2: r.share === null ? null : Math.round(r.share * r.total_m2 * 10) / 10,
      share: r.share === null ? null : Math.round(r.share * 10_000) / 10_000,
      on_boundary: r.edge,
      map_version: r.map_version,
      map_citation_feature: r.feature_ref,
    }))
    .filter((s) => s.share === null || s.share >= 0.0001)
    .sort((a, b) => (a.kind === b.kind ? (b.share ?? 1) - (a.share ?? 1) || a.code.localeCompare(b.code) : a.kind === 'base' ? -1 : 1));
}

export interface DistrictFact {
  id: string;
  kind: string;
  code_raw: string;
  code_normalized: string;
  local_label: string | null;
  type: string | null;
  purpose: string | null;
  section_ref: string | null;
  precedence_rank: number | null;
  citation_id: string | null;
  effective_from: string | null;
  status: string;
  source: string;
}

/** What the code (or list, or map) says of each district, the most authoritative source first. */
export async function districtFacts(db: Queryable, ids: string[], t: Times): Promise<Map<string, DistrictFact>> {
  if (ids.length === 0) return new Map();
  const { rows } = await db.query(
    `SELECT DISTINCT ON (d.id) d.id, d.kind, d.code_raw, d.code_normalized, d.local_label, d.type, d.purpose, d.section_ref, d.precedence_rank,
            d.citation_id, lower(d.valid)::text AS effective_from, d.status, s.kind AS source
       FROM district d JOIN source s ON s.id = d.source_id
      WHERE d.id = ANY($1::text[]) AND d.valid @> $2::date AND d.known @> $3::timestamptz
      ORDER BY d.id, ${SOURCE_RANK}`,
    [ids, t.asOf, t.knownAsOf],
  );
  return new Map(rows.map((r) => [r.id, r as DistrictFact]));
}

export async function authorities(db: Queryable, jurisdictionId: string, subjects: string[], t: Times) {
  const { rows } = await db.query(
    `SELECT a.id, a.subject, a.jurisdiction_id, a.governing_jurisdiction_id, a.basis, a.relationship, a.legal_name, a.agency,
            a.citation_id, lower(a.valid)::text AS effective_from, upper(a.valid)::text AS effective_through,
            j.fips_key, j.slug, j.name
       FROM authority a JOIN jurisdiction j ON j.id = a.jurisdiction_id
      WHERE a.jurisdiction_id = $1 AND a.subject = ANY($2::text[]) AND a.valid @> $3::date AND a.known @> $4::timestamptz
      ORDER BY a.subject`,
    [jurisdictionId, subjects, t.asOf, t.knownAsOf],
  );
  return rows;
}

export async function controlsFor(db: Queryable, districtIds: string[], t: Times, types?: string[]) {
  if (districtIds.length === 0) return [];
  const { rows } = await db.query(
    `SELECT c.id, c.district_id, c.control_type, c.building_type, c.qualifier, c.min_value::float8 AS min, c.max_value::float8 AS max,
            c.unit, c.value_text, c.conditions, c.table_ref, c.citation_id, c.status, lower(c.valid)::text AS effective_from
       FROM control c
      WHERE c.district_id = ANY($1::text[]) AND c.valid @> $2::date AND c.known @> $3::timestamptz
        AND ($4::text[] IS NULL OR c.control_type = ANY($4::text[]))
      ORDER BY c.control_type, c.building_type NULLS FIRST, c.qualifier NULLS FIRST`,
    [districtIds, t.asOf, t.knownAsOf, types ?? null],
  );
  return rows;
}

export async function permissionsFor(db: Queryable, districtIds: string[], t: Times, uses?: string[]) {
  if (districtIds.length === 0) return [];
  const { rows } = await db.query(
    `SELECT p.id, p.district_id, p.use_label_raw, p.use_slug, p.symbol, p.level, p.process, p.conditions, p.table_ref,
            p.citation_id, p.status, lower(p.valid)::text AS effective_from, u.name AS use_name, u.id AS use_id
       FROM permission p LEFT JOIN use_term u ON u.slug = p.use_slug
      WHERE p.district_id = ANY($1::text[]) AND p.valid @> $2::date AND p.known @> $3::timestamptz
        AND ($4::text[] IS NULL OR p.use_slug = ANY($4::text[]) OR EXISTS (SELECT 1 FROM unnest($4::text[]) q WHERE p.use_slug LIKE q || '.%'))
      ORDER BY p.use_label_normalized`,
    [districtIds, t.asOf, t.knownAsOf, uses ?? null],
  );
  return rows;
}

export async function unlistedUseRule(db: Queryable, jurisdictionId: string, t: Times) {
  const { rows } = await db.query(
    `SELECT id, result, process, citation_id, lower(valid)::text AS effective_from FROM unlisted_use_rule
      WHERE jurisdiction_id = $1 AND valid @> $2::date AND known @> $3::timestamptz LIMIT 1`,
    [jurisdictionId, t.asOf, t.knownAsOf],
  );
  return rows[0] ?? null;
}

export async function moratoriaAt(db: Queryable, jurisdictionId: string, geojson: string | null, t: Times) {
  const { rows } = await db.query(
    `SELECT id, title, uses, use_labels, status, ordinance_id, citation_id, lower(valid)::text AS effective_from, upper(valid)::text AS effective_through,
            area IS NULL AS jurisdiction_wide
       FROM moratorium
      WHERE jurisdiction_id = $1 AND valid @> $3::date AND known @> $4::timestamptz
        AND (area IS NULL OR ($2::text IS NOT NULL AND ST_Intersects(area, ST_GeomFromGeoJSON($2))))`,
    [jurisdictionId, geojson, t.asOf, t.knownAsOf],
  );
  return rows;
}

/** Coverage rows of a jurisdiction, keyed by layer. */
export async function coverageOf(db: Queryable, jurisdictionId: string) {
  const { rows } = await db.query(
    `SELECT layer, held, tier, last_retrieved_at, last_changed_at, earliest_retained::text, detail FROM coverage WHERE jurisdiction_id = $1 ORDER BY layer`,
    [jurisdictionId],
  );
  return rows;
}
