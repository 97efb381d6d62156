// Rows from PostGIS to a staging file, streamed: COPY (the row query) TO STDOUT as CSV, piped
// to disk, so memory holds a chunk at a time. COPY takes no bound parameters,
// so each value is bound into a transaction-local setting (set_config) that the statement reads
// once per value (an InitPlan); values never enter the SQL text. One read-only snapshot covers
// the envelope query and the rows.
import { createWriteStream } from 'node:fs';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import copyStreams from 'pg-copy-streams';
import type { Pool } from '../../store/db.ts';
import type { GeoSummary } from './duck.ts';

export interface Staged {
  rows: number;
  bytes: number;
  geo: GeoSummary | null;
}

export interface StageOptions {
  /** call onBatch about every this many rows */
  batchRows: number;
  /** after each batch is on its way to disk; throwing stops the stream there */
  onBatch?: (rows: number) => void | Promise<void>;
  /** a first line of column names (GDAL reads the file by them) */
  header?: boolean;
}

export interface Statement {
  sql: string;
  values: unknown[];
}

const TYPE_NAMES: Record<string, string> = {
  POINT: 'Point', LINESTRING: 'LineString', POLYGON: 'Polygon', MULTIPOINT: 'MultiPoint',
  MULTILINESTRING: 'MultiLineString', MULTIPOLYGON: 'MultiPolygon', GEOMETRYCOLLECTION: 'GeometryCollection',
};

/** PostGIS type names (MULTIPOLYGON, POINT Z) as GeoParquet names them (MultiPolygon, Point Z). */
export function geoParquetType(pg: string): string {
  const [base, z] = pg.split(' ');
  const name = TYPE_NAMES[base.replace(/M$/, '')] ?? base;
  return z ? `${name} Z` : name;
}

/**
 * `$3::text[]` -> the value of setting landlex.extract_3, read once (a scalar subquery), cast the
 * same way; the outer cast keeps `= ANY(…)` reading an array rather than a subquery's rows.
 */
export function settingsForm(s: Statement): { sql: string; settings: Array<[string, unknown]> } {
  const sql = s.sql.replace(/\$(\d+)((?:::[a-z_]+(?:\[\])?)?)/g, (_m, n: string, cast: string) => `(SELECT current_setting('landlex.extract_${n}')${cast})${cast}`);
  return { sql, settings: s.values.map((v, i) => [`landlex.extract_${i + 1}`, v]) };
}

export async function stageRows(pool: Pool, rows: Statement, envelope: Statement | null, path: string, opts: StageOptions): Promise<Staged> {
  const client = await pool.connect();
  let geo: GeoSummary | null = null;
  let count = 0;
  let bytes = 0;
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    await client.query('SET LOCAL statement_timeout = 0');
    await client.query(`SET LOCAL TIME ZONE 'UTC'`);
    await client.query(`SET LOCAL DateStyle = 'ISO, YMD'`);
    // every order is a unique indexed column: walk its index rather than sort wide rows
    await client.query('SET LOCAL enable_sort = off');
    if (envelope) {
      const e = (await client.query(envelope.sql, envelope.values)).rows[0];
      geo = { bbox: e.xmin === null ? null : [e.xmin, e.ymin, e.xmax, e.ymax], types: ((e.types ?? []) as string[]).map(geoParquetType) };
    }
    const { sql, settings } = settingsForm(rows);
    for (const [name, value] of settings) await client.query('SELECT set_config($1, $2::text, true)', [name, value]);
    const copy = client.query(copyStreams.to(`COPY (${sql}) TO STDOUT WITH (FORMAT csv${opts.header ? ', HEADER true' : ''})`));
    let next = opts.batchRows;
    const counter = new Transform({
      async transform(chunk: Buffer, _enc, done) {
        // lines, not rows (a quoted value may hold a line break): enough for progress
        for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) count++;
        bytes += chunk.length;
        try {
          if (count >= next) {
            next = count + opts.batchRows;
            await opts.onBatch?.(count);
          }
          done(null, chunk);
        } catch (err) {
          done(err as Error);
        }
      },
    });
    await pipeline(copy, counter, createWriteStream(path, { highWaterMark: 1 << 20 }));
    count = copy.rowCount ?? count;
    await client.query('COMMIT');
  } catch (err) {
    // a COPY cut off mid-way leaves the connection mid-protocol: close it (the server rolls back)
    client.release(err as Error);
    throw err;
  }
  client.release();
  return { rows: count, bytes, geo };
}
