// What the law says at a location on a date, as known at a time: districts with their shares,
// authorities, controls, permissions, the rule for unlisted uses, moratoriums. Every query
// selects facts by both axes: valid @> as_of and known @> known_as_of.
//
// Each kind of fact is one SQL fragment over placeholder expressions. The functions below run
// one alone; lawAt runs them all as one statement (the answer to /rule and /place is one round
// trip to the database, not seven).
import { DRAWING_TOLERANCE_M } from '../../core/tolerance.ts';
import { named, type Queryable } from '../db.ts';
import { type CitationView, CITATION_SQL, citationView } from '../evidence.ts';
import type { Times } from './resolve.ts';

/** Which source speaks first about a district: the code, then the publisher's list, then a map. */
const SOURCE_RANK = `CASE s.kind WHEN 'code_text' THEN 0 WHEN 'district_list' THEN 1 ELSE 2 END`;

/**
 * CTEs loc, hit and share: the districts whose mapped polygons reach the location (GeoJSON), with
 * the share of it each covers, summed over the pieces of their polygons it touches (migration
 * 011). Shares are ratios of planar areas (within a parcel the degree grid does not distort
 * them); a piece that covers the whole location needs no intersection.
 */
const shareCtes = (j: string, geojson: string, asOf: string, known: string, point: string) => `
  loc AS (SELECT g, CASE WHEN GeometryType(g) IN ('POLYGON', 'MULTIPOLYGON') THEN ST_Area(g) END AS a,
                 CASE WHEN GeometryType(g) IN ('POLYGON', 'MULTIPOLYGON') THEN ST_Area(g::geography) END AS m2,
                 CASE WHEN GeometryType(g) IN ('POLYGON', 'MULTIPOLYGON') THEN 2 * ST_Area(g::geography) / NULLIF(ST_Perimeter(g::geography), 0) END AS w,
                 ST_GeomFromGeoJSON(${point}::text) AS pt
            FROM ST_GeomFromGeoJSON(${geojson}::text) AS g WHERE ${geojson}::text IS NOT NULL),
  hit AS (
    SELECT a.district_id, a.kind, a.code_raw, a.map_version_id, a.feature_ref, i.inter,
           CASE WHEN loc.a IS NULL THEN NULL WHEN i.inter IS NULL THEN loc.a ELSE ST_Area(i.inter) END AS part,
           CASE WHEN GeometryType(loc.g) = 'POINT' THEN ST_Intersects(ST_Boundary(a.geom), loc.g) ELSE false END AS edge,
           COALESCE(ST_Covers(x.geom, loc.pt), false) AS at_point
      FROM (SELECT * FROM district_area_piece x WHERE ST_Intersects(x.geom, (SELECT g FROM loc)) OFFSET 0) x
      CROSS JOIN LATERAL (SELECT * FROM district_area a WHERE a.fact_id = x.fact_id OFFSET 0) a, loc
      CROSS JOIN LATERAL (SELECT CASE WHEN loc.a IS NULL OR ST_Covers(x.geom, loc.g) THEN NULL ELSE ST_Intersection(x.geom, loc.g) END AS inter) i
     WHERE a.jurisdiction_id = ${j} AND a.kind IN ('base', 'overlay') AND a.valid @> ${asOf}::date AND a.known @> ${known}::timestamptz),
  share AS (
    SELECT district_id, kind, code, share, total_m2, edge, at_point, point_asked, map_version, feature_ref,
           2 * ST_Area(u::geography) / NULLIF(ST_Perimeter(u::geography), 0) AS width_m, (SELECT w FROM loc) AS place_width_m
      FROM (SELECT district_id, kind, min(code_raw) AS code, sum(part) / (SELECT a FROM loc) AS share, (SELECT m2 FROM loc) AS total_m2,
                   bool_and(edge) AS edge, bool_or(at_point) AS at_point, (SELECT pt IS NOT NULL FROM loc) AS point_asked,
                   min(map_version_id) AS map_version, min(feature_ref) AS feature_ref,
                   CASE WHEN bool_or(part IS NOT NULL AND inter IS NULL) THEN NULL ELSE ST_Union(inter) END AS u
              FROM hit GROUP BY district_id, kind) s)`;

const factSql = (ids: string, asOf: string, known: string) => `
  SELECT DISTINCT ON (d.id) d.id, d.kind, d.code_raw, d.code_normalized, d.local_label, d.type, d.purpose, d.section_ref, d.precedence_rank,
         d.citation_id, lower(d.valid)::text AS effective_from, d.status, s.kind AS source
    FROM (SELECT * FROM district WHERE id IN (${ids}) OFFSET 0) d JOIN source s ON s.id = d.source_id
   WHERE d.valid @> ${asOf}::date AND d.known @> ${known}::timestamptz
   ORDER BY d.id, ${SOURCE_RANK}`;

const controlSql = (ids: string, asOf: string, known: string, types: string) => `
  SELECT c.id, c.district_id, c.control_type, c.building_type, c.qualifier, c.min_value::float8 AS min, c.max_value::float8 AS max,
         c.unit, c.value_text, c.conditions, c.table_ref, c.citation_id, c.status, lower(c.valid)::text AS effective_from
    FROM (SELECT * FROM control WHERE district_id IN (${ids}) OFFSET 0) c
   WHERE c.valid @> ${asOf}::date AND c.known @> ${known}::timestamptz
     AND (${types}::text[] IS NULL OR c.control_type = ANY(${types}::text[]))`;
const CONTROL_ORDER = 'control_type, building_type NULLS FIRST, qualifier NULLS FIRST';

/** A parent slug covers its children. */
const permissionSql = (ids: string, asOf: string, known: string, uses: string) => `
  SELECT p.id, p.district_id, p.use_label_raw, p.use_slug, p.symbol, p.level, p.process, p.conditions, p.table_ref,
         p.citation_id, p.status, lower(p.valid)::text AS effective_from, u.name AS use_name, u.id AS use_id, p.use_label_normalized
    FROM (SELECT * FROM permission WHERE district_id IN (${ids}) OFFSET 0) p LEFT JOIN use_term u ON u.slug = p.use_slug
   WHERE p.valid @> ${asOf}::date AND p.known @> ${known}::timestamptz
     AND (${uses}::text[] IS NULL OR p.use_slug = ANY(${uses}::text[]) OR EXISTS (SELECT 1 FROM unnest(${uses}::text[]) q WHERE p.use_slug LIKE q || '.%'))`;

const unlistedSql = (j: string, asOf: string, known: string) => `
  SELECT id, result, process, citation_id, lower(valid)::text AS effective_from
    FROM (SELECT * FROM unlisted_use_rule WHERE jurisdiction_id = ${j} OFFSET 0) u
   WHERE valid @> ${asOf}::date AND known @> ${known}::timestamptz LIMIT 1`;

/** Moratoriums of the jurisdiction reaching the location (a town-wide one reaches everywhere). */
const moratoriumSql = (j: string, geometry: string, asOf: string, known: string) => `
  SELECT id, title, uses, use_labels, status, ordinance_id, citation_id, lower(valid)::text AS effective_from, upper(valid)::text AS effective_through,
         area IS NULL AS jurisdiction_wide
    FROM (SELECT * FROM moratorium WHERE jurisdiction_id = ${j} OFFSET 0) m
   WHERE valid @> ${asOf}::date AND known @> ${known}::timestamptz
     AND (area IS NULL OR (${geometry} IS NOT NULL AND ST_Intersects(area, ${geometry})))`;

export interface Share {
  district_id: string;
  kind: 'base' | 'overlay';
  code: string;
  share: number | null;
  area_m2: number | null;
  on_boundary: boolean;
  map_version: string;
  map_citation_feature: string | null;
  /** whether the district covers the point asked (null: no point was asked) */
  contains_point: boolean | null;
  /** the mean width (m) of the district's part of an area it covers only in part: 2 × area / perimeter */
  width_m: number | null;
  /** the same of the whole area asked */
  place_width_m: number | null;
}

/** Share rows as served: rounded, slivers dropped, base districts first, the point's own first, then largest share first. */
function shapeShares(rows: Array<Record<string, any>>): Share[] {
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
      contains_point: r.point_asked ? r.at_point : null,
      width_m: r.width_m === null ? null : Math.round(r.width_m * 100) / 100,
      place_width_m: r.place_width_m,
    }))
    .filter((s) => s.share === null || s.share >= 0.0001 || s.contains_point)
    .sort((a, b) => (a.kind === b.kind ? Number(b.contains_point ?? 0) - Number(a.contains_point ?? 0) || (b.share ?? 1) - (a.share ?? 1) || a.code.localeCompare(b.code) : a.kind === 'base' ? -1 : 1));
}

/**
 * Shares apart from slivers: a district's part of an area narrower on average than the drawing
 * tolerance (core/tolerance.ts), and than half the area's own width, is where the zoning map and
 * the parcel layer are drawn apart, not a split of the parcel; it is listed as a sliver, never as
 * a district of the place (unless it holds the point asked).
 */
export function apartSlivers(shares: Share[]): { shares: Share[]; slivers: Share[] } {
  const thin = (s: Share) => s.width_m !== null && s.width_m < DRAWING_TOLERANCE_M && s.width_m < (s.place_width_m ?? 0) / 2 && !s.contains_point;
  return { shares: shares.filter((s) => !thin(s)), slivers: shares.filter(thin) };
}

/** A sliver as answers list it. */
export const sliverView = (s: Share) => ({ district: { id: s.district_id, code: s.code, kind: s.kind }, share: s.share, area_m2: s.area_m2, width_m: s.width_m });

/** The districts whose mapped polygons reach the location, with the share of it each covers. */
export async function districtShares(db: Queryable, jurisdictionId: string, geojson: string, t: Times, point: string | null = null): Promise<Share[]> {
  const { rows } = await db.query(`WITH ${shareCtes('$1', '$2', '$3', '$4', '$5')} SELECT * FROM share`, [jurisdictionId, geojson, t.asOf, t.knownAsOf, point]);
  return shapeShares(rows);
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


export interface LawQuery {
  jurisdictionId: string;
  /** the location; null when it is too coarse to place in a district */
  geojson: string | null;
  /** the point asked (GeoJSON), whose own districts come first */
  point?: string | null;
  /** read controls, permissions and the unlisted-use rule (the code text is held) */
  codeText: boolean;
  moratoria: boolean;
  controlTypes?: string[];
  uses?: string[];
}

type Row = Record<string, any>;

export interface LawAt {
  shares: Share[];
  facts: Map<string, DistrictFact>;
  controls: Row[];
  permissions: Row[];
  unlisted: Row | null;
  moratoria: Row[];
  citations: Map<string, CitationView>;
}

/** Everything the law says at the location on the date, with the citations of all of it: one statement. */
export async function lawAt(db: Queryable, q: LawQuery, t: Times): Promise<LawAt> {
  const ids = 'SELECT district_id FROM share';
  const [j, geo, asOf, known] = ['$1', '$2', '$3', '$4'];
  const { rows } = await db.query(
    named(
      'law-at',
      `WITH ${shareCtes(j, geo, asOf, known, '$9')},
     fact AS (${factSql(ids, asOf, known)}),
     control AS (${controlSql(ids, asOf, known, '$5')} AND $7::boolean),
     permission AS (${permissionSql(ids, asOf, known, '$6')} AND $7::boolean),
     unlisted AS (SELECT * FROM (${unlistedSql(j, asOf, known)}) u WHERE $7::boolean),
     moratorium AS (${moratoriumSql(j, '(SELECT g FROM loc)', asOf, known)} AND $8::boolean),
     cited AS (SELECT citation_id AS id FROM fact UNION SELECT citation_id FROM control UNION SELECT citation_id FROM permission
               UNION SELECT citation_id FROM unlisted UNION SELECT citation_id FROM moratorium),
     citation AS (${CITATION_SQL('SELECT id FROM cited')})
     SELECT (SELECT json_agg(x) FROM share x) AS shares,
            (SELECT json_agg(x) FROM fact x) AS facts,
            (SELECT json_agg(x ORDER BY ${CONTROL_ORDER}) FROM control x) AS controls,
            (SELECT json_agg(x ORDER BY use_label_normalized) FROM permission x) AS permissions,
            (SELECT row_to_json(x) FROM unlisted x) AS unlisted,
            (SELECT json_agg(x) FROM moratorium x) AS moratoria,
            (SELECT json_agg(x) FROM citation x) AS citations`,
      [q.jurisdictionId, q.geojson, t.asOf, t.knownAsOf, q.controlTypes ?? null, q.uses ?? null, q.codeText, q.moratoria, q.point ?? null],
    ),
  );
  const r = rows[0];
  return {
    shares: shapeShares(r.shares ?? []),
    facts: new Map((r.facts ?? []).map((f: DistrictFact) => [f.id, f])),
    controls: r.controls ?? [],
    permissions: r.permissions ?? [],
    unlisted: r.unlisted ?? null,
    moratoria: r.moratoria ?? [],
    citations: new Map((r.citations ?? []).map((c: Row) => [c.id, citationView(c)])),
  };
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
  const { rows } = await db.query(`${controlSql('SELECT unnest($1::text[])', '$2', '$3', '$4')} ORDER BY ${CONTROL_ORDER}`, [districtIds, t.asOf, t.knownAsOf, types ?? null]);
  return rows;
}

export async function permissionsFor(db: Queryable, districtIds: string[], t: Times, uses?: string[]) {
  if (districtIds.length === 0) return [];
  const { rows } = await db.query(`${permissionSql('SELECT unnest($1::text[])', '$2', '$3', '$4')} ORDER BY p.use_label_normalized`, [districtIds, t.asOf, t.knownAsOf, uses ?? null]);
  return rows;
}

export async function unlistedUseRule(db: Queryable, jurisdictionId: string, t: Times) {
  const { rows } = await db.query(unlistedSql('$1', '$2', '$3'), [jurisdictionId, t.asOf, t.knownAsOf]);
  return rows[0] ?? null;
}


