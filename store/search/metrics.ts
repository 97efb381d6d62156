// Metrics computed from what is held, never estimated: each one a count or an order statistic
// over named tables, on one date (valid time) as known at one instant, per jurisdiction. Each
// states its derivation: what was counted, from which tables, as of when, and what was left out.
// A metric whose layers are not held for a jurisdiction is withheld there, never zero.
import type { ResourceDef, SqlContext } from '../../core/query/resource.ts';
import type { Queryable } from '../db.ts';

export const METRICS = ['district_count', 'district_allowing_use', 'parcel_count', 'parcel_by_district', 'property_count', 'assessed_value_median', 'permit_count', 'case_count'] as const;
export type MetricName = (typeof METRICS)[number];

export const ALLOWING_LEVELS = ['by_right', 'permitted_with_standards', 'administrative_approval', 'conditional_use'] as const;

/** One jurisdiction of a page: its id, name and the date asked there. */
export interface Place {
  id: string;
  name: string;
  date: string;
}

export interface MetricOptions {
  /** the use asked and the narrower uses it covers (district_allowing_use) */
  use?: { slug: string; covered: string[] };
  levels: string[];
}

export interface Computed {
  value: number | null;
  group: Array<{ key: string | number | null; value: number | null; count?: number }>;
  excluded: Record<string, number>;
  note?: string;
}

export interface MetricDef {
  unit: string;
  /** coverage layers one of which must be held (all of `all`) for the metric to be stated */
  any?: string[];
  all?: string[];
  tables: string[];
  counted: (o: MetricOptions) => string;
  statement: (p: Place, known: string, o: MetricOptions) => string;
  sql: string;
  params: (o: MetricOptions) => unknown[];
  /** rows of the statement to each jurisdiction's value */
  read: (rows: Array<Record<string, any>>) => Map<string, Computed>;
}

/** The page's jurisdictions and dates as a relation q(j, d); the statement's $1, $2, $3 (known). */
const Q = 'WITH q AS (SELECT * FROM unnest($1::text[], $2::date[]) q(j, d))';

const byJ = (rows: Array<Record<string, any>>, f: (rs: Array<Record<string, any>>) => Computed) => {
  const m = new Map<string, Array<Record<string, any>>>();
  for (const r of rows) m.set(r.j, [...(m.get(r.j) ?? []), r]);
  return new Map([...m].map(([j, rs]) => [j, f(rs)]));
};

const n = (v: unknown) => (v === null || v === undefined ? null : Number(v));

export const METRIC_DEFS: Record<MetricName, MetricDef> = {
  district_count: {
    unit: 'districts',
    any: ['district_list', 'zoning_text', 'district_map', 'overlay'],
    tables: ['district'],
    counted: () => 'distinct district ids in force on the date (valid contains it) as known at the instant (known contains it), each counted once whichever sources state it; grouped by kind (base, overlay)',
    statement: (p, k) => `Districts of ${p.name} in force on ${p.date} as known at ${k}.`,
    sql: `${Q} SELECT q.j, d.kind AS key, count(DISTINCT d.id)::int AS v FROM q JOIN district d ON d.jurisdiction_id = q.j AND d.valid @> q.d AND d.known @> $3::timestamptz GROUP BY q.j, d.kind ORDER BY q.j, d.kind`,
    params: () => [],
    read: (rows) => byJ(rows, (rs) => ({ value: rs.reduce((s, r) => s + r.v, 0), group: rs.map((r) => ({ key: r.key, value: r.v })), excluded: {} })),
  },
  district_allowing_use: {
    unit: 'districts',
    all: ['zoning_text'],
    tables: ['permission', 'district', 'use_term'],
    counted: (o) =>
      `distinct base districts in force with a permission fact stated (status stated) for ${o.use?.slug} or a narrower use (${o.use?.covered.length ?? 0} vocabulary slugs) at a level in ${o.levels.join(', ')}, in force on the date as known at the instant; grouped by level (a district is counted under each level it has for one of these uses)`,
    statement: (p, k, o) => `Base districts of ${p.name} whose use table allows ${o.use?.slug} (${o.levels.join(', ')}) on ${p.date}, as known at ${k}.`,
    sql: `${Q}, b AS (
        SELECT DISTINCT q.j, d.id FROM q JOIN district d ON d.jurisdiction_id = q.j AND d.kind = 'base' AND d.valid @> q.d AND d.known @> $3::timestamptz),
      cell AS (
        SELECT b.j, b.id, pm.level, pm.status FROM b JOIN permission pm ON pm.district_id = b.id AND pm.use_slug = ANY($4::text[])
          JOIN q ON q.j = b.j AND pm.valid @> q.d AND pm.known @> $3::timestamptz)
      SELECT b.j, NULL::text AS key, count(DISTINCT b.id)::int AS v, 'in_force'::text AS what FROM b GROUP BY b.j
      UNION ALL SELECT j, NULL, count(DISTINCT id)::int, 'named' FROM cell GROUP BY j
      UNION ALL SELECT j, NULL, count(DISTINCT id)::int, 'allowing' FROM cell WHERE status = 'stated' AND level = ANY($5::text[]) GROUP BY j
      UNION ALL SELECT j, NULL, count(DISTINCT id)::int, 'undecided' FROM cell WHERE status <> 'stated' OR level = 'unknown' GROUP BY j
      UNION ALL SELECT j, level, count(DISTINCT id)::int, 'level' FROM cell WHERE status = 'stated' AND level = ANY($5::text[]) GROUP BY j, level`,
    params: (o) => [o.use?.covered ?? [], o.levels],
    read: (rows) =>
      byJ(rows, (rs) => {
        const one = (w: string) => rs.find((r) => r.what === w)?.v ?? 0;
        return {
          value: one('allowing'),
          group: rs.filter((r) => r.what === 'level').map((r) => ({ key: r.key, value: r.v })),
          excluded: { districts_in_force: one('in_force'), districts_not_naming_the_use: one('in_force') - one('named'), districts_with_an_undecided_cell: one('undecided') },
        };
      }),
  },
  parcel_count: {
    unit: 'parcels',
    all: ['parcel'],
    tables: ['parcel'],
    counted: () => 'distinct parcel ids on record on the date (valid contains it) as known at the instant',
    statement: (p, k) => `Parcels of ${p.name} on record on ${p.date} as known at ${k}.`,
    sql: `${Q} SELECT q.j, NULL::text AS key, count(DISTINCT p.id)::int AS v, count(DISTINCT p.id) FILTER (WHERE p.geom IS NULL)::int AS no_area
            FROM q JOIN parcel p ON p.jurisdiction_id = q.j AND p.valid @> q.d AND p.known @> $3::timestamptz GROUP BY q.j`,
    params: () => [],
    read: (rows) => byJ(rows, ([r]) => ({ value: r.v, group: [], excluded: {}, note: r.no_area ? `${r.no_area} of them have no polygon of any area (counted)` : undefined })),
  },
  parcel_by_district: {
    unit: 'parcels',
    all: ['parcel', 'district_map'],
    tables: ['parcel', 'district_area', 'district_area_piece', 'district'],
    counted: () =>
      "distinct parcel ids on record on the date as known at the instant, each in the base district whose mapped area in force contains its point on surface (ST_PointOnSurface); grouped by the district's code. A parcel without a polygon, or whose point lies in no base district drawn, is left out and counted in excluded; one whose point lies in two is counted in each",
    statement: (p, k) => `Parcels of ${p.name} by base zoning district on ${p.date}, as known at ${k}.`,
    sql: `${Q}, pt AS MATERIALIZED (
        SELECT q.j, q.d, p.id, ST_PointOnSurface(p.geom) AS g FROM q JOIN parcel p ON p.jurisdiction_id = q.j AND p.valid @> q.d AND p.known @> $3::timestamptz AND p.geom IS NOT NULL),
      xs AS MATERIALIZED (SELECT pt.j, pt.d, pt.id, x.fact_id FROM pt JOIN district_area_piece x ON ST_Intersects(x.geom, pt.g)),
      hit AS MATERIALIZED (
        SELECT DISTINCT xs.j, xs.id, a.district_id FROM xs JOIN district_area a ON a.fact_id = xs.fact_id
         WHERE a.jurisdiction_id = xs.j AND a.kind = 'base' AND a.valid @> xs.d AND a.known @> $3::timestamptz),
      per AS (SELECT pt.j, pt.id, count(h.district_id) AS n FROM pt LEFT JOIN hit h ON h.id = pt.id GROUP BY pt.j, pt.id)
      SELECT h.j, (SELECT d.code_normalized FROM district d WHERE d.id = h.district_id ORDER BY d.fact_id DESC LIMIT 1) AS key, count(DISTINCT h.id)::int AS v, 'district'::text AS what FROM hit h GROUP BY h.j, h.district_id
      UNION ALL SELECT q.j, NULL, count(p.id)::int, 'no_polygon' FROM q JOIN parcel p ON p.jurisdiction_id = q.j AND p.valid @> q.d AND p.known @> $3::timestamptz AND p.geom IS NULL GROUP BY q.j
      UNION ALL SELECT j, NULL, count(*) FILTER (WHERE n = 0)::int, 'in_no_district' FROM per GROUP BY j
      UNION ALL SELECT j, NULL, count(*) FILTER (WHERE n > 1)::int, 'in_several' FROM per GROUP BY j
      UNION ALL SELECT j, NULL, count(*) FILTER (WHERE n > 0)::int, 'placed' FROM per GROUP BY j`,
    params: () => [],
    read: (rows) =>
      byJ(rows, (rs) => {
        const one = (w: string) => rs.find((r) => r.what === w)?.v ?? 0;
        const group = rs.filter((r) => r.what === 'district').sort((a, b) => String(a.key).localeCompare(String(b.key)));
        return {
          value: one('placed'),
          group: group.map((r) => ({ key: r.key, value: r.v })),
          excluded: { parcels_without_polygon: one('no_polygon'), parcels_in_no_base_district: one('in_no_district'), parcels_in_two_or_more: one('in_several') },
        };
      }),
  },
  property_count: {
    unit: 'properties',
    all: ['assessor'],
    tables: ['property'],
    counted: () => "distinct property ids (assessor accounts) on record on the date as known at the instant, grouped by the roll's fiscal year",
    statement: (p, k) => `Assessor accounts of ${p.name} on record on ${p.date} as known at ${k}.`,
    sql: `${Q} SELECT q.j, p.fiscal_year AS key, count(DISTINCT p.id)::int AS v FROM q JOIN property p ON p.jurisdiction_id = q.j AND p.valid @> q.d AND p.known @> $3::timestamptz GROUP BY q.j, p.fiscal_year ORDER BY q.j, p.fiscal_year DESC NULLS LAST`,
    params: () => [],
    read: (rows) => byJ(rows, (rs) => ({ value: rs.reduce((s, r) => s + r.v, 0), group: rs.map((r) => ({ key: n(r.key), value: r.v })), excluded: {} })),
  },
  assessed_value_median: {
    unit: 'cents',
    all: ['assessor'],
    tables: ['property'],
    counted: () =>
      "the median of assessment.total_value_cents over the properties on record on the date as known at the instant that state it, per roll fiscal year (percentile_disc(0.5): the lower middle value when the count is even, so the median is a value some property states, never interpolated); value is the latest fiscal year's median",
    statement: (p, k) => `Median total assessed value of ${p.name}'s properties on record on ${p.date}, as known at ${k}.`,
    sql: `${Q} SELECT q.j, p.fiscal_year AS key,
            percentile_disc(0.5) WITHIN GROUP (ORDER BY (p.assessment->>'total_value_cents')::bigint) FILTER (WHERE p.assessment->>'total_value_cents' IS NOT NULL) AS v,
            count(*) FILTER (WHERE p.assessment->>'total_value_cents' IS NOT NULL)::int AS stated, count(*) FILTER (WHERE p.assessment->>'total_value_cents' IS NULL)::int AS unstated
            FROM q JOIN property p ON p.jurisdiction_id = q.j AND p.valid @> q.d AND p.known @> $3::timestamptz GROUP BY q.j, p.fiscal_year ORDER BY q.j, p.fiscal_year DESC NULLS LAST`,
    params: () => [],
    read: (rows) =>
      byJ(rows, (rs) => ({
        value: n(rs[0].v),
        group: rs.map((r) => ({ key: n(r.key), value: n(r.v), count: r.stated })),
        excluded: { properties_stating_no_total_value: rs.reduce((s, r) => s + r.unstated, 0) },
        note: rs.length > 1 ? `value is fiscal year ${rs[0].key}'s; ${rs.length} rolls are on record and their medians are not combined` : undefined,
      })),
  },
  permit_count: {
    unit: 'records',
    all: ['permit'],
    tables: ['land_record'],
    counted: () => 'distinct permits and permit applications (land_record kind permit or application) as known at the instant, grouped by kind',
    statement: (p, k) => `Permits and permit applications of ${p.name} as known at ${k}.`,
    sql: `${Q} SELECT q.j, r.kind AS key, count(DISTINCT r.id)::int AS v FROM q JOIN land_record r ON r.jurisdiction_id = q.j AND r.kind IN ('permit', 'application') AND r.known @> $3::timestamptz GROUP BY q.j, r.kind ORDER BY q.j, r.kind`,
    params: () => [],
    read: (rows) => byJ(rows, (rs) => ({ value: rs.reduce((s, r) => s + r.v, 0), group: rs.map((r) => ({ key: r.key, value: r.v })), excluded: {} })),
  },
  case_count: {
    unit: 'records',
    all: ['case'],
    tables: ['land_record'],
    counted: () => 'distinct cases (land_record kind case) as known at the instant, grouped by pending (no decision stated) and decided',
    statement: (p, k) => `Cases of ${p.name} as known at ${k}.`,
    sql: `${Q} SELECT q.j, CASE WHEN r.body->'decision' = 'null'::jsonb THEN 'pending' ELSE 'decided' END AS key, count(DISTINCT r.id)::int AS v
            FROM q JOIN land_record r ON r.jurisdiction_id = q.j AND r.kind = 'case' AND r.known @> $3::timestamptz GROUP BY 1, 2 ORDER BY 1, 2`,
    params: () => [],
    read: (rows) => byJ(rows, (rs) => ({ value: rs.reduce((s, r) => s + r.v, 0), group: rs.map((r) => ({ key: r.key, value: r.v })), excluded: {} })),
  },
};

/** The (jurisdiction, metric) pairs of a scope, paged like any collection. */
export const metricResource: ResourceDef = {
  name: 'metric',
  from: `(SELECT j.id AS j_id, j.name AS j_name, j.slug AS j_slug, m.metric, m.ord, j.id || '/' || to_char(m.ord, 'FM00') AS row_key
           FROM jurisdiction j CROSS JOIN unnest(ARRAY[${METRICS.map((m) => `'${m}'`).join(', ')}]::text[]) WITH ORDINALITY m(metric, ord)) mj`,
  id: 'mj.row_key',
  select: 'mj.j_id, mj.j_name, mj.j_slug, mj.metric',
  defaultSort: 'jurisdiction.name',
  fields: {
    'jurisdiction.name': { sql: 'mj.j_name', type: 'string', sortable: true, nullable: false },
    metric: { sql: 'mj.metric', type: 'enum', enum: METRICS, sortable: true, nullable: false },
  },
};

export const metricWhere = (ids: string[], metrics: readonly string[]) => [(c: SqlContext) => `mj.j_id = ANY(${c.bind(ids, 'text[]')}) AND mj.metric = ANY(${c.bind(metrics, 'text[]')})`];

/** The slug asked and every narrower use under it in the vocabulary. */
export async function usesCovered(db: Queryable, slug: string): Promise<string[]> {
  const { rows } = await db.query(
    `WITH RECURSIVE u AS (SELECT slug FROM use_term WHERE slug = $1 UNION SELECT t.slug FROM use_term t JOIN u ON t.parent_slug = u.slug) SELECT slug FROM u ORDER BY slug`,
    [slug],
  );
  return rows.map((r) => r.slug);
}

/** Which coverage layers are held, per jurisdiction. */
export async function layersHeld(db: Queryable, ids: string[]): Promise<Map<string, Set<string>>> {
  const { rows } = await db.query('SELECT jurisdiction_id, layer FROM coverage WHERE jurisdiction_id = ANY($1::text[]) AND held', [ids]);
  const out = new Map<string, Set<string>>(ids.map((id) => [id, new Set()]));
  for (const r of rows) out.get(r.jurisdiction_id)?.add(r.layer);
  return out;
}

/** A metric for these jurisdictions on their dates, as known at `known`. */
export async function computeMetric(db: Queryable, name: MetricName, places: Place[], known: string, o: MetricOptions): Promise<Map<string, Computed>> {
  if (places.length === 0) return new Map();
  const def = METRIC_DEFS[name];
  const { rows } = await db.query(def.sql, [places.map((p) => p.id), places.map((p) => p.date), known, ...def.params(o)]);
  return def.read(rows);
}
