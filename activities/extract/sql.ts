// The statements of an extract, built from its plan with every value bound: a count (the
// estimate), the row query (one text value per column, as COPY writes CSV and DuckDB reads it
// back typed) and, for Parquet, the envelope and types of the geometry column.
import { compileFilter, modeClause, parseFilter } from '../../core/query/filter.ts';
import { SqlBuilder } from '../../core/query/resource.ts';
import { type ExtractFormat, FORMAT_SPECS } from './formats.ts';
import type { ExtractPlan } from './plan.ts';
import { type Column, type ExtractResource, RESOURCES, filterDef } from './resources.ts';

const NAME = /^[a-z_][a-z0-9_]*$/;

export interface OutputColumn {
  name: string;
  type: Column['type'];
  geometryType?: Column['geometryType'];
}

export interface RowQuery {
  sql: string;
  values: unknown[];
  /** the columns of each row, in order */
  columns: OutputColumn[];
  /** the geometry column when it is sent as WKB (hex): Parquet, GeoPackage, FlatGeobuf */
  geometry: string | null;
}

function resource(plan: ExtractPlan): ExtractResource {
  const r = RESOURCES[plan.resource];
  if (!r) throw new Error(`not an extract resource: ${plan.resource}`);
  return r;
}

function where(r: ExtractResource, plan: ExtractPlan, b: SqlBuilder): { clauses: string[]; filter: string | null } {
  const a = r.alias;
  const clauses = [`${r.jurisdiction} = ANY(${b.bind(plan.jurisdictions, 'text[]')})`];
  const known = b.bind(plan.knownAsOf, 'timestamptz');
  if (r.time === 'bitemporal') {
    clauses.push(`${a}.known @> ${known}`);
    if (plan.asOf?.kind === 'interval') clauses.push(`${a}.valid && daterange(${b.bind(plan.asOf.from, 'date')}, ${b.bind(plan.asOf.to, 'date')}, '[]')`);
    else if (plan.asOf) clauses.push(`${a}.valid @> (${b.bind(JSON.stringify(plan.asOf.dates), 'jsonb')} ->> ${r.jurisdiction})::date`);
  } else if (r.time === 'detected') clauses.push(`${a}.detected_at <= ${known}`);
  else clauses.push(`${a}.created_at <= ${known}`);
  const def = filterDef(r);
  const filter = plan.filter.length ? compileFilter(def, parseFilter(def, plan.filter), b) : null;
  if (plan.geometryRequired) {
    const g = r.columns.find((c) => c.type === 'geometry');
    if (g) clauses.push(`${g.sql} IS NOT NULL AND NOT ST_IsEmpty(${g.sql})`);
  }
  // rows a filter cannot evaluate are kept and marked (spec 1.2 rule 7), never dropped
  if (filter) clauses.push(modeClause(filter, 'include'));
  return { clauses, filter };
}

/** Each column as the text DuckDB or GDAL reads back: ISO instants, JSON for json and arrays, WKB hex or GeoJSON. */
function valueSql(c: Column, format: ExtractFormat): string {
  const spec = FORMAT_SPECS[format];
  switch (c.type) {
    case 'timestamp':
      return `to_char(${c.sql} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
    case 'boolean':
      return spec.gdalDriver ? `(${c.sql})::int` : `(${c.sql})::text`;
    case 'json':
      return `(${c.sql})::text`;
    case 'text[]':
      return `to_json(${c.sql})::text`;
    case 'geometry':
      return spec.geometry === 'wkb' ? `encode(ST_AsBinary(${c.sql}), 'hex')` : `ST_AsGeoJSON(${c.sql})`;
    default:
      return c.sql;
  }
}

export function countQuery(plan: ExtractPlan): { sql: string; values: unknown[] } {
  const r = resource(plan);
  const b = new SqlBuilder();
  const { clauses } = where(r, plan, b);
  return { sql: `SELECT count(*)::bigint AS n FROM ${r.from} WHERE ${clauses.join(' AND ')}`, values: b.values };
}

export function rowQuery(plan: ExtractPlan): RowQuery {
  const r = resource(plan);
  const b = new SqlBuilder();
  const { clauses, filter } = where(r, plan, b);
  const cols = plan.fields.map((name) => {
    const c = r.columns.find((x) => x.name === name);
    if (!c || !NAME.test(name)) throw new Error(`not a column of ${r.name}: ${name}`);
    return c;
  });
  const select = cols.map((c) => `${valueSql(c, plan.format)} AS ${c.name}`);
  const columns: OutputColumn[] = cols.map((c) => ({ name: c.name, type: c.type, ...(c.geometryType ? { geometryType: c.geometryType } : {}) }));
  if (filter) {
    select.push(`CASE WHEN (${filter}) IS NULL THEN 'indeterminate' ELSE 'match' END AS filter_outcome`);
    columns.push({ name: 'filter_outcome', type: 'text' });
  }
  const geom = FORMAT_SPECS[plan.format].geometry === 'wkb' ? cols.find((c) => c.type === 'geometry') : undefined;
  const sql = `SELECT ${select.join(', ')} FROM ${r.from} WHERE ${clauses.join(' AND ')} ORDER BY ${r.order}`;
  return { sql, values: b.values, columns, geometry: geom?.name ?? null };
}

/** Envelope and geometry types (as PostGIS names them, ' Z' added for 3D) of the rows' geometry. */
export function envelopeQuery(plan: ExtractPlan, column: string): { sql: string; values: unknown[] } {
  const r = resource(plan);
  const g = r.columns.find((c) => c.name === column && c.type === 'geometry');
  if (!g) throw new Error(`not a geometry column of ${r.name}: ${column}`);
  const b = new SqlBuilder();
  const { clauses } = where(r, plan, b);
  const sql = `SELECT ST_XMin(e) AS xmin, ST_YMin(e) AS ymin, ST_XMax(e) AS xmax, ST_YMax(e) AS ymax, types FROM (
      SELECT ST_Extent(${g.sql}) AS e,
             array_remove(array_agg(DISTINCT GeometryType(${g.sql}) || CASE WHEN ST_Zmflag(${g.sql}) >= 2 THEN ' Z' ELSE '' END), NULL) AS types
        FROM ${r.from} WHERE ${clauses.join(' AND ')}) s`;
  return { sql, values: b.values };
}
