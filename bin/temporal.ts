// Temporal side of the CLI (TEMPORAL_ADDRESS set): start workflows, run a worker, keep one
// Schedule per source from its cadence. Workflow ids are business ids.
import { resolve } from 'node:path';
import { Client, Connection, ScheduleOverlapPolicy } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import type { Config } from '../core/config.ts';
import type { Logger } from '../core/log.ts';
import { createIngestActivities } from '../activities/ingest.ts';
import { createExtractActivities } from '../activities/extract.ts';
import { CADENCE_SECONDS, type SourceManifest } from '../ingest/manifest.ts';
import { FsBlobStore } from '../store/blobs.ts';
import { settleAbandonedAtStart } from '../store/changes.ts';
import type { Pool } from '../store/db.ts';
import type { JurisdictionOutcome } from '../workflows/logic.ts';

export const WORKFLOWS_PATH = resolve(import.meta.dirname, '..', 'workflows', 'index.ts');

async function client(config: Config): Promise<Client> {
  const connection = await Connection.connect({ address: config.temporalAddress! });
  return new Client({ connection, namespace: config.temporalNamespace });
}

export async function startOnTemporal(config: Config, targets: string[] | 'all'): Promise<JurisdictionOutcome[]> {
  const c = await client(config);
  if (targets === 'all') {
    return c.workflow.execute('ingestAllWorkflow', { taskQueue: config.temporalTaskQueue, workflowId: 'ingest:all', args: [] });
  }
  const out: JurisdictionOutcome[] = [];
  for (const slug of targets) {
    out.push(await c.workflow.execute('ingestJurisdictionWorkflow', { taskQueue: config.temporalTaskQueue, workflowId: `ingest:${slug}`, args: [slug] }));
  }
  return out;
}

export async function runWorker(config: Config, pool: Pool, log: Logger): Promise<void> {
  await settleAbandonedAtStart(pool, log);
  const connection = await NativeConnection.connect({ address: config.temporalAddress! });
  const worker = await Worker.create({
    connection,
    namespace: config.temporalNamespace,
    taskQueue: config.temporalTaskQueue,
    workflowsPath: WORKFLOWS_PATH,
    activities: { ...createIngestActivities({ pool, blobs: new FsBlobStore(config.blobDir), log }), ...createExtractActivities({ pool, dir: config.extractDir, log }) },
  });
  log.info('worker running', { task_queue: config.temporalTaskQueue, address: config.temporalAddress });
  await worker.run();
}

/** One Schedule per source with a cadence: it starts ingestSourceWorkflow for that source. */
export async function syncSchedules(config: Config, pool: Pool): Promise<string[]> {
  const c = await client(config);
  const { rows } = await pool.query('SELECT id, key, kind, manifest FROM source ORDER BY id');
  const made: string[] = [];
  for (const s of rows as Array<{ id: string; key: string; kind: string; manifest: SourceManifest }>) {
    const every = CADENCE_SECONDS[s.manifest.cadence];
    if (!every) continue;
    const scheduleId = `ingest-source:${s.id}`;
    const action = { type: 'startWorkflow' as const, workflowType: 'ingestSourceWorkflow', taskQueue: config.temporalTaskQueue, args: [{ id: s.id, key: s.key, kind: s.kind }], workflowId: scheduleId };
    try {
      await c.schedule.getHandle(scheduleId).update((prev) => ({ ...prev, spec: { intervals: [{ every: every * 1000 }] }, action }));
    } catch {
      await c.schedule.create({ scheduleId, spec: { intervals: [{ every: every * 1000 }] }, action, policies: { overlap: ScheduleOverlapPolicy.SKIP } });
    }
    made.push(scheduleId);
  }
  return made;
}
