// Running the ingestion pipeline in tests: a database and blob store of the test's own.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createIngestActivities, type IngestActivities } from '../../activities/ingest.ts';
import { createLogger } from '../../core/log.ts';
import { FsBlobStore } from '../../store/blobs.ts';
import { createPool, type Pool } from '../../store/db.ts';
import { runIngestInProcess } from '../../workflows/inprocess.ts';
import type { JurisdictionOutcome } from '../../workflows/logic.ts';
import { freshDatabase, loadedDatabase } from './databases.ts';

export { syntheticManifests } from '../../bin/synthetic-site.ts';

export interface PipelineHarness {
  url: string;
  pool: Pool;
  activities: IngestActivities;
  ingest(slugs: string[] | 'all', opts?: { now?: Date }): Promise<JurisdictionOutcome[]>;
  close(): Promise<void>;
}

/** A pipeline over a fresh database, or over `database` (e.g. a clone of ingestedDatabase's template), which close() drops. */
export async function pipelineHarness(label: string, opts: { manifestDir?: string; database?: { url: string; drop: () => Promise<void> } } = {}): Promise<PipelineHarness> {
  const db = opts.database ?? (await freshDatabase(label));
  const pool = createPool(db.url, { max: 6 });
  const blobDir = await mkdtemp(join(tmpdir(), 'landlex-blobs-'));
  let clock: Date | null = null;
  const make = () => createIngestActivities({ pool, blobs: new FsBlobStore(blobDir), log: createLogger('silent'), manifestDir: opts.manifestDir, fetchTimeoutMs: 2000, now: () => clock ?? new Date() });
  const activities = make();
  return {
    url: db.url,
    pool,
    activities,
    async ingest(slugs, o = {}) {
      clock = o.now ?? null;
      try {
        return await runIngestInProcess(activities, slugs, { sleep: async () => {} });
      } finally {
        clock = null;
      }
    },
    async close() {
      await pool.end();
      await db.drop();
      await rm(blobDir, { recursive: true, force: true });
    },
  };
}

/** A database with the given jurisdictions ingested (a clone of a template loaded once). */
export async function ingestedDatabase(label: string, slugs: string[]) {
  return loadedDatabase(label, async (url) => {
    const pool = createPool(url, { max: 4 });
    const blobDir = await mkdtemp(join(tmpdir(), 'landlex-blobs-'));
    try {
      const activities = createIngestActivities({ pool, blobs: new FsBlobStore(blobDir), log: createLogger('silent') });
      await runIngestInProcess(activities, slugs, { sleep: async () => {} });
    } finally {
      await pool.end();
      await rm(blobDir, { recursive: true, force: true });
    }
  });
}

/** A manifest directory for the synthetic town served at siteUrl (with its parent jurisdictions). */
