// DuckDB reads the staged rows (CSV as COPY wrote it, typed column by column) and writes the
// extract's file: JSONL, GeoJSONSeq (RFC 8142: RS, a GeoJSON Feature, LF), or Parquet with
// GeoParquet 1.1 metadata on the geometry column (WKB, CRS left out, which means OGC:CRS84).
// Memory is capped; DuckDB spills to the work directory.
import { DuckDBInstance, quotedIdentifier, quotedString } from '@duckdb/node-api';
import type { ExtractFormat } from './formats.ts';
import type { OutputColumn } from './sql.ts';

export interface GeoSummary {
  bbox: [number, number, number, number] | null;
  types: string[];
}

export interface DuckOptions {
  memoryLimit?: string;
  threads?: number;
}

export interface WriteSpec {
  staged: string;
  out: string;
  format: ExtractFormat;
  columns: OutputColumn[];
  /** the geometry column of a Parquet file, and what the staged rows said of it */
  geometry: { column: string; summary: GeoSummary } | null;
  /** further key/value metadata of a Parquet file */
  metadata: Record<string, string>;
  workDir: string;
}

/** DuckDB's type for a staged column (its CSV text read back). */
function readType(c: OutputColumn, format: ExtractFormat): string {
  switch (c.type) {
    case 'integer':
      return 'BIGINT';
    case 'number':
      return 'DOUBLE';
    case 'boolean':
      return 'BOOLEAN';
    case 'date':
      return 'DATE';
    case 'timestamp':
      return format === 'parquet' ? 'TIMESTAMPTZ' : 'VARCHAR';
    case 'json':
      return 'JSON';
    case 'geometry':
      return format === 'parquet' ? 'VARCHAR' : 'JSON';
    default:
      return 'VARCHAR';
  }
}

/** The column's value as written: WKB from hex, lists from JSON arrays, the rest as read. */
function valueExpr(c: OutputColumn, format: ExtractFormat): string {
  const name = quotedIdentifier(c.name);
  if (c.type === 'geometry' && format === 'parquet') return `from_hex(${name})`;
  if (c.type === 'text[]') return `CAST(CAST(${name} AS JSON) AS VARCHAR[])`;
  return name;
}

function outputSql(c: OutputColumn, format: ExtractFormat): string {
  return `${valueExpr(c, format)} AS ${quotedIdentifier(c.name)}`;
}

/** One GeoJSON Feature per row: `id` and `geometry` as members, every other column a property. */
export function featureSql(columns: OutputColumn[]): string {
  const id = columns.find((c) => c.name === 'id');
  const geometry = columns.find((c) => c.type === 'geometry');
  const props = columns.filter((c) => c !== id && c !== geometry).map((c) => `${quotedString(c.name)}, ${valueExpr(c, 'geojsonseq')}`);
  const member = (c: OutputColumn | undefined, none: string) => (c ? quotedIdentifier(c.name) : none);
  return `json_object('type', 'Feature', 'id', ${member(id, 'NULL')}, 'geometry', ${member(geometry, 'NULL::JSON')}, 'properties', json_object(${props.join(', ')}))`;
}

/** The GeoParquet 1.1 "geo" metadata of one WKB column. */
export function geoMetadata(column: string, s: GeoSummary): Record<string, unknown> {
  const meta: Record<string, unknown> = { encoding: 'WKB', geometry_types: [...s.types].sort() };
  if (s.bbox) meta.bbox = s.bbox;
  return { version: '1.1.0', primary_column: column, columns: { [column]: meta } };
}

export function copySql(spec: WriteSpec): string {
  const types = spec.columns.map((c) => `${quotedString(c.name)}: ${quotedString(readType(c, spec.format))}`).join(', ');
  const select = spec.columns.map((c) => outputSql(c, spec.format)).join(', ');
  // PostgreSQL's CSV: NULL is an empty field, an empty string is "" (so quoted fields are never NULL)
  const source = `read_csv(${quotedString(spec.staged)}, columns = {${types}}, header = false, auto_detect = false, delim = ',', quote = '"', escape = '"', allow_quoted_nulls = false, max_line_size = 16777216, buffer_size = 16777216)`;
  if (spec.format === 'jsonl') return `COPY (SELECT ${select} FROM ${source}) TO ${quotedString(spec.out)} (FORMAT JSON)`;
  if (spec.format === 'geojsonseq') {
    // one text column, never quoted: JSON escapes every control character, so no line holds RS or LF
    const text = `chr(30) || CAST(${featureSql(spec.columns)} AS VARCHAR)`;
    return `COPY (SELECT ${text} FROM ${source}) TO ${quotedString(spec.out)} (FORMAT CSV, HEADER false, QUOTE '', ESCAPE '', DELIMITER ${quotedString('\x1f')})`;
  }
  if (spec.format !== 'parquet') throw new Error(`DuckDB does not write ${spec.format}`);
  const kv: Record<string, string> = { ...spec.metadata };
  if (spec.geometry) kv.geo = JSON.stringify(geoMetadata(spec.geometry.column, spec.geometry.summary));
  const kvSql = Object.entries(kv)
    .map(([k, v]) => `${quotedIdentifier(k)}: ${quotedString(v)}`)
    .join(', ');
  return `COPY (SELECT ${select} FROM ${source}) TO ${quotedString(spec.out)} (FORMAT PARQUET, COMPRESSION ZSTD${kvSql ? `, KV_METADATA {${kvSql}}` : ''})`;
}

/** Write the file; returns the rows DuckDB wrote. */
export async function writeWithDuckDB(spec: WriteSpec, opts: DuckOptions = {}): Promise<number> {
  const instance = await DuckDBInstance.create(':memory:', {
    memory_limit: opts.memoryLimit ?? '256MB',
    threads: String(opts.threads ?? 1),
    temp_directory: spec.workDir,
    preserve_insertion_order: 'true',
  });
  try {
    const c = await instance.connect();
    try {
      const reader = await c.runAndReadAll(copySql(spec));
      return Number(reader.getRows()[0][0]);
    } finally {
      c.closeSync();
    }
  } finally {
    instance.closeSync();
  }
}
