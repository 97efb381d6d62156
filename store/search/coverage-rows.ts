// GET /coverage as a collection: one row per jurisdiction per layer, every layer named whether
// anything is held for it or not. The coverage table says what each load held; the authority layer
// is read from the authorities in force today (the authority rows, not a load). The layers are the
// server's own list, written into the statement; every client value is bound.
import type { ResourceDef, SqlContext } from '../../core/query/resource.ts';

export const COVERAGE_LAYERS = [
  'authority',
  'district_list',
  'zoning_text',
  'district_map',
  'overlay',
  'ordinance',
  'ordinance_text',
  'parcel',
  'assessor',
  'recorder',
  'permit',
  'case',
  'meeting',
  'future_land_use',
  'special_district',
  'context_layer',
] as const;

const SUBJECTS = 4; // zoning, subdivision, building_code, fire_code

const layers = `ARRAY[${COVERAGE_LAYERS.map((l) => `'${l}'`).join(', ')}]::text[]`;

const ROWS = `(
  SELECT j.id AS j_id, j.name AS j_name, j.slug AS j_slug, j.level AS j_level, j.fips_key AS j_fips, j.timezone AS j_tz,
         l.layer, l.ord, j.id || '/' || to_char(l.ord, 'FM00') || '/' || l.layer AS row_key,
         CASE WHEN l.layer = 'authority' THEN a.subjects > 0 ELSE coalesce(c.held, false) END AS held,
         CASE WHEN l.layer = 'authority' THEN (CASE WHEN a.subjects = 0 THEN 'none' WHEN a.subjects >= ${SUBJECTS} THEN 'full' ELSE 'partial' END)
              ELSE coalesce(c.tier, 'none') END AS tier,
         c.jurisdiction_id IS NOT NULL AS row_held, c.last_retrieved_at, c.last_changed_at, c.earliest_retained, c.detail->'sources' AS sources
    FROM jurisdiction j
    CROSS JOIN unnest(${layers}) WITH ORDINALITY l(layer, ord)
    LEFT JOIN coverage c ON c.jurisdiction_id = j.id AND c.layer = l.layer
    LEFT JOIN LATERAL (
      SELECT count(DISTINCT au.subject)::int AS subjects FROM authority au
       WHERE l.layer = 'authority' AND au.jurisdiction_id = j.id AND upper_inf(au.known) AND au.valid @> (now() AT TIME ZONE j.timezone)::date) a ON true
) cv`;

export const coverageResource: ResourceDef = {
  name: 'coverage',
  from: ROWS,
  id: 'cv.row_key',
  select: `cv.j_id, cv.j_name, cv.j_slug, cv.j_level, cv.j_fips, cv.layer, cv.held, cv.tier, cv.row_held, cv.sources, cv.earliest_retained::text AS earliest_retained,
           to_char(cv.last_retrieved_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS last_retrieved_at,
           to_char(cv.last_changed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS last_changed_at`,
  defaultSort: 'jurisdiction.name',
  fields: {
    'jurisdiction.name': { sql: 'cv.j_name', type: 'string', sortable: true, nullable: false },
    'jurisdiction.level': { sql: 'cv.j_level', type: 'enum', enum: ['state', 'county', 'cousub', 'place'], sortable: true, nullable: false },
    layer: { sql: 'cv.layer', type: 'enum', enum: COVERAGE_LAYERS, sortable: true, nullable: false },
    held: { sql: 'cv.held', type: 'boolean', sortable: true, nullable: false },
    tier: { sql: 'cv.tier', type: 'enum', enum: ['full', 'partial', 'none'], sortable: true, nullable: false },
    last_retrieved_at: { sql: 'cv.last_retrieved_at', type: 'timestamp', sortable: true },
    last_changed_at: { sql: 'cv.last_changed_at', type: 'timestamp', sortable: true },
    earliest_retained: { sql: 'cv.earliest_retained', type: 'date', sortable: true },
  },
};

/** The rows of these jurisdictions (null: every jurisdiction held) and layers. */
export function coverageWhere(ids: string[] | null, layers: readonly string[] | null) {
  return [
    ...(ids ? [(c: SqlContext) => `cv.j_id = ANY(${c.bind(ids, 'text[]')})`] : []),
    ...(layers ? [(c: SqlContext) => `cv.layer = ANY(${c.bind(layers, 'text[]')})`] : []),
  ];
}
