// The extract activities, built by a factory from their dependencies: mark an extract running,
// write its file (rows streamed from PostGIS into a staging file; DuckDB writes JSONL, GeoJSONSeq
// or Parquet, GDAL writes GeoPackage or FlatGeobuf, a worker thread encodes DuckDB's GeoJSONSeq as
// Geobuf; each to a temporary name renamed only when complete), and fail it with a refund.
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, rename, rm, stat, unlink } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { Logger } from '../core/log.ts';
import type { Pool } from '../store/db.ts';
import * as store from '../store/extracts.ts';
import { type DuckOptions, writeWithDuckDB } from './extract/duck.ts';
import { FORMAT_SPECS, fileName } from './extract/formats.ts';
import { writeWithGdal } from './extract/gdal.ts';
import { writeGeobuf } from './extract/geobuf.ts';
import type { ExtractPlan } from './extract/plan.ts';
import { envelopeQuery, rowQuery } from './extract/sql.ts';
import { stageRows } from './extract/stage.ts';

export interface ExtractProgress {
  extract: string;
  phase: 'rows' | 'writing' | 'done';
  rows: number;
  estimate: number;
}

export interface ExtractDeps {
  pool: Pool;
  /** EXTRACT_DIR: each extract writes to <dir>/<id> unless it names its own directory */
  dir: string;
  log: Logger;
  /** rows read from the cursor at a time (default 5000) */
  batchRows?: number;
  duckdb?: DuckOptions;
  /** heap of the Geobuf writer's worker thread, in MB (default GEOBUF_HEAP_MB) */
  geobufHeapMb?: number;
  onProgress?: (p: ExtractProgress) => void;
  /** test hook: called after each staged batch; throwing kills the attempt there */
  afterBatch?: (extract: string, rows: number) => void | Promise<void>;
}

export interface ExtractStart {
  state: store.ExtractState;
}

export interface ExtractWritten {
  rows: number;
  files: store.ExtractFile[];
}

/**
 * Heartbeats of the running activity, captured now: stream callbacks run in the async context of
 * the socket, where Context.current() is not found. Does nothing in-process.
 */
function heartbeats(): (detail?: unknown) => void {
  try {
    const ctx = Context.current();
    return (detail) => ctx.heartbeat(detail);
  } catch {
    return () => {};
  }
}

async function digest(path: string): Promise<{ size: number; sha256: string }> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) hash.update(chunk as Buffer);
  return { size: (await stat(path)).size, sha256: hash.digest('hex') };
}

export function extractDirOf(root: string, x: { id: string; dir: string | null }): string {
  return resolve(x.dir ?? join(root, x.id));
}

export function createExtractActivities(deps: ExtractDeps) {
  const batchRows = deps.batchRows ?? 5000;

  /** Remove files of extracts past their retention (best effort, a few at a time). */
  async function sweepExpired() {
    for (const f of await store.expiredFiles(deps.pool, 50)) {
      await unlink(join(extractDirOf(deps.dir, { id: f.extract_id, dir: f.dir }), f.name)).catch(() => {});
      await store.markFileDeleted(deps.pool, f.extract_id, f.name);
    }
  }

  async function write(x: store.ExtractRow): Promise<ExtractWritten> {
    const plan = x.plan as ExtractPlan;
    const dir = extractDirOf(deps.dir, { id: x.id, dir: x.dir });
    const work = join(dir, '.work');
    await rm(work, { recursive: true, force: true });
    await mkdir(work, { recursive: true });
    const spec = FORMAT_SPECS[plan.format];
    const name = fileName(plan.resource, plan.format);
    // hidden, and ending as the file does (GDAL checks a GeoPackage's extension)
    const tmp = join(dir, `.${randomBytes(6).toString('hex')}.${name}`);
    const progress = (phase: ExtractProgress['phase'], rows: number) => deps.onProgress?.({ extract: x.id, phase, rows, estimate: Number(x.row_estimate) });
    const beat = heartbeats();
    const ticker = setInterval(() => beat({ phase: 'working' }), 10_000);
    try {
      const q = rowQuery(plan);
      const staged = join(work, 'rows.csv');
      const envelope = plan.format === 'parquet' && q.geometry ? envelopeQuery(plan, q.geometry) : null;
      const s = await stageRows(deps.pool, q, envelope, staged, {
        batchRows,
        header: spec.gdalDriver !== undefined,
        onBatch: async (rows) => {
          beat({ rows });
          progress('rows', rows);
          await deps.afterBatch?.(x.id, rows);
        },
      });
      progress('writing', s.rows);
      const landlex = JSON.stringify({ extract: x.id, resource: plan.resource, as_of: plan.asOf, known_as_of: plan.knownAsOf, filter: plan.filter });
      const geometry = q.geometry && s.geo ? { column: q.geometry, summary: s.geo } : null;
      const writer = spec.gdalDriver ? 'GDAL' : spec.fromGeoJsonSeq ? 'the Geobuf writer' : 'DuckDB';
      let written: number;
      if (spec.gdalDriver) {
        written = await writeWithGdal({ staged, out: tmp, driver: spec.gdalDriver, layer: plan.resource, columns: q.columns, description: landlex, workDir: work });
      } else if (spec.fromGeoJsonSeq) {
        // the very features of the GeoJSONSeq extract, then encoded whole
        const seq = join(work, 'features.geojsons');
        const features = await writeWithDuckDB({ staged, out: seq, format: 'geojsonseq', columns: q.columns, geometry: null, metadata: {}, workDir: work }, deps.duckdb);
        if (features !== s.rows) throw new Error(`DuckDB wrote ${features} features of the ${s.rows} rows staged`);
        written = await writeGeobuf({ seq, out: tmp, heapMb: deps.geobufHeapMb });
      } else {
        written = await writeWithDuckDB({ staged, out: tmp, format: plan.format, columns: q.columns, geometry, metadata: { landlex }, workDir: work }, deps.duckdb);
      }
      if (written !== s.rows) throw new Error(`${writer} wrote ${written} rows of the ${s.rows} staged`);
      const { size, sha256 } = await digest(tmp);
      await rename(tmp, join(dir, name));
      const files: store.ExtractFile[] = [{ name, format: plan.format, media_type: spec.mediaType, size, rows: s.rows, sha256 }];
      if (!(await store.completeExtract(deps.pool, x.id, s.rows, files))) {
        throw ApplicationFailure.nonRetryable(`extract ${x.id} is no longer running`, 'BadInput');
      }
      progress('done', s.rows);
      return { rows: s.rows, files };
    } finally {
      clearInterval(ticker);
      await rm(tmp, { force: true });
      await rm(work, { recursive: true, force: true });
    }
  }

  return {
    async startExtract(id: string): Promise<ExtractStart> {
      const state = await store.markRunning(deps.pool, id);
      if (!state) throw ApplicationFailure.nonRetryable(`no extract ${id}`, 'BadInput');
      await sweepExpired().catch((err) => deps.log.warn('extract sweep failed', { err }));
      return { state };
    },

    async writeExtract(id: string): Promise<ExtractWritten> {
      const x = await store.getExtract(deps.pool, id);
      if (!x) throw ApplicationFailure.nonRetryable(`no extract ${id}`, 'BadInput');
      if (x.state === 'succeeded') {
        // a retry after the attempt that completed it: answer with what it wrote
        return { rows: Number(x.row_count), files: (await store.filesOf(deps.pool, [id])).get(id) ?? [] };
      }
      if (x.state !== 'running') throw ApplicationFailure.nonRetryable(`extract ${id} is ${x.state}, not running`, 'BadInput');
      return write(x);
    },

    async failExtract(id: string, reason: string): Promise<void> {
      await store.failExtract(deps.pool, id, reason);
    },
  };
}

export type ExtractActivities = ReturnType<typeof createExtractActivities>;
/** A written file of an extract, as workflows see it (they read no store of their own). */
export type ExtractFile = store.ExtractFile;
