// Extracts and their files. States move queued -> running -> succeeded | failed; files are
// written to the table only in the transaction that marks the extract succeeded.
import { grantCredit } from './organizations.ts';
import { type Pool, type Queryable, withTransaction } from './db.ts';

export const RETENTION_DAYS = 7;
export const FILE_NAME = /^[a-z_]+\.(jsonl|parquet|geojsons|gpkg|fgb|pbf)$/;

export type ExtractState = 'queued' | 'running' | 'succeeded' | 'failed';

export interface ExtractFile {
  name: string;
  format: 'jsonl' | 'parquet' | 'geojsonseq' | 'gpkg' | 'flatgeobuf' | 'geobuf';
  media_type: string;
  size: number;
  rows: number;
  sha256: string;
}

// biome-ignore lint/suspicious/noExplicitAny: rows are shaped by the extract table
export type ExtractRow = Record<string, any>;

export interface NewExtract {
  id: string;
  organizationId: string | null;
  resource: string;
  format: string;
  request: unknown;
  plan: unknown;
  dir?: string | null;
  rowEstimate: number;
  creditEstimate: number;
  creditsCharged: number;
}

export async function insertExtract(db: Queryable, x: NewExtract): Promise<ExtractRow> {
  const { rows } = await db.query(
    `INSERT INTO extract (id, organization_id, resource, format, request, plan, dir, row_estimate, credit_estimate, credits_charged, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, now() + make_interval(days => $11)) RETURNING *`,
    [x.id, x.organizationId, x.resource, x.format, JSON.stringify(x.request), JSON.stringify(x.plan), x.dir ?? null, x.rowEstimate, x.creditEstimate, x.creditsCharged, RETENTION_DAYS],
  );
  return rows[0];
}

/** One extract; with an organization, only that organization's (others' are not found). */
export async function getExtract(db: Queryable, id: string, organizationId?: string | null): Promise<ExtractRow | null> {
  const { rows } = await db.query(
    organizationId === undefined ? 'SELECT * FROM extract WHERE id = $1' : 'SELECT * FROM extract WHERE id = $1 AND organization_id = $2',
    organizationId === undefined ? [id] : [id, organizationId],
  );
  return rows[0] ?? null;
}

/** Files still held, by extract id. */
export async function filesOf(db: Queryable, ids: string[]): Promise<Map<string, ExtractFile[]>> {
  const { rows } = await db.query(
    `SELECT extract_id, name, format, media_type, size, rows, sha256 FROM extract_file
      WHERE extract_id = ANY($1::text[]) AND deleted_at IS NULL ORDER BY extract_id, name`,
    [ids],
  );
  const out = new Map<string, ExtractFile[]>();
  for (const { extract_id, ...f } of rows) out.set(extract_id, [...(out.get(extract_id) ?? []), f as ExtractFile]);
  return out;
}

/** A file row, held or not (deleted_at tells), of one extract. */
export async function fileOf(db: Queryable, id: string, name: string) {
  const { rows } = await db.query('SELECT *, deleted_at IS NOT NULL AS deleted FROM extract_file WHERE extract_id = $1 AND name = $2', [id, name]);
  return rows[0] ?? null;
}

/** queued, running or failed -> running (a retry or an operator's re-run); null when absent. */
export async function markRunning(db: Queryable, id: string): Promise<ExtractState | null> {
  const { rows } = await db.query(
    `UPDATE extract SET state = 'running', started_at = COALESCE(started_at, now()), attempts = attempts + 1, error = NULL,
        finished_at = NULL, updated_at = now()
      WHERE id = $1 AND state <> 'succeeded' RETURNING state`,
    [id],
  );
  if (rows[0]) return 'running';
  const found = await db.query('SELECT state FROM extract WHERE id = $1', [id]);
  return found.rows[0]?.state ?? null;
}

/** Files and state in one transaction; false when the extract is no longer running. */
export async function completeExtract(pool: Pool, id: string, rowCount: number, files: ExtractFile[]): Promise<boolean> {
  return withTransaction(pool, async (c) => {
    const { rows } = await c.query(`SELECT state FROM extract WHERE id = $1 FOR UPDATE`, [id]);
    if (rows[0]?.state !== 'running') return false;
    for (const f of files) {
      if (!FILE_NAME.test(f.name)) throw new Error(`not an extract file name: ${f.name}`);
      await c.query(
        `INSERT INTO extract_file (extract_id, name, format, media_type, size, rows, sha256) VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (extract_id, name) DO UPDATE SET format = $3, media_type = $4, size = $5, rows = $6, sha256 = $7, created_at = now(), deleted_at = NULL`,
        [id, f.name, f.format, f.media_type, f.size, f.rows, f.sha256],
      );
    }
    await c.query('DELETE FROM extract_file WHERE extract_id = $1 AND NOT (name = ANY($2::text[]))', [id, files.map((f) => f.name)]);
    await c.query(
      `UPDATE extract SET state = 'succeeded', row_count = $2, finished_at = now(), updated_at = now(),
          expires_at = now() + make_interval(days => $3) WHERE id = $1`,
      [id, rowCount, RETENTION_DAYS],
    );
    return true;
  });
}

/**
 * Mark an extract failed and give its credits back (once). False when it had succeeded.
 * refund=false when the charge itself is being undone (an extract that never started).
 */
export async function failExtract(pool: Pool, id: string, reason: string, opts: { refund?: boolean } = {}): Promise<boolean> {
  return withTransaction(pool, async (c) => {
    const { rows } = await c.query(
      `UPDATE extract SET state = 'failed', error = $2, finished_at = now(), updated_at = now()
        WHERE id = $1 AND state <> 'succeeded' RETURNING organization_id`,
      [id, reason.slice(0, 2000)],
    );
    if (!rows[0]) return false;
    if (opts.refund === false) {
      await c.query('UPDATE extract SET credits_charged = 0 WHERE id = $1', [id]);
      return true;
    }
    const refund = await c.query(
      `UPDATE extract SET refunded_at = now() WHERE id = $1 AND refunded_at IS NULL AND credits_charged > 0 AND organization_id IS NOT NULL
        RETURNING organization_id, credits_charged`,
      [id],
    );
    if (refund.rows[0]) {
      await grantCredit(c, refund.rows[0].organization_id, refund.rows[0].credits_charged, 'adjustment', { reason: 'extract_failed', extract: id });
    }
    return true;
  });
}

/** Files of extracts past expires_at that are still on disk (oldest first). */
export async function expiredFiles(db: Queryable, limit = 100): Promise<Array<{ extract_id: string; name: string; dir: string | null }>> {
  const { rows } = await db.query(
    `SELECT f.extract_id, f.name, e.dir FROM extract_file f JOIN extract e ON e.id = f.extract_id
      WHERE f.deleted_at IS NULL AND e.expires_at < now() ORDER BY e.expires_at LIMIT $1`,
    [limit],
  );
  return rows;
}

export async function markFileDeleted(db: Queryable, extractId: string, name: string): Promise<void> {
  await db.query('UPDATE extract_file SET deleted_at = now() WHERE extract_id = $1 AND name = $2', [extractId, name]);
}
