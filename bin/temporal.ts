// Temporal side of the CLI (TEMPORAL_ADDRESS set): start workflows, run a worker, keep one
// Schedule per source from its cadence. Workflow ids are business ids.
import { resolve } from 'node:path';
import { Client, Connection, ScheduleOverlapPolicy, WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { createWebhookActivities } from '../activities/webhooks/index.ts';
import { inBackground } from '../core/background.ts';
import { markWorkflowStarted, unstartedDeliveries } from '../store/webhooks/deliveries.ts';
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
    activities: {
      ...createIngestActivities({ pool, blobs: new FsBlobStore(config.blobDir), log }),
      ...createExtractActivities({ pool, dir: config.extractDir, log }),
      ...createWebhookActivities({ pool, log, timeoutMs: config.webhookTimeoutMs }),
    },
  });
  const starter = startDeliveryWorkflows(config, pool, log);
  log.info('worker running', { task_queue: config.temporalTaskQueue, address: config.temporalAddress });
  try {
    await worker.run();
  } finally {
    starter.stop();
  }
}

/**
 * Start a deliveryWorkflow (id delivery:<dlv_ id>) for each pending delivery of the outbox that
 * has none, woken by the outbox's notice and every few seconds; a start that finds the workflow
 * already running counts as started, so a crash between start and mark starts nothing twice.
 */
export function startDeliveryWorkflows(config: Config, pool: Pool, log: Logger, everyMs = 2000): { stop(): void } {
  let stopped = false;
  let running = false;
  const round = async () => {
    if (running || stopped) return;
    running = true;
    try {
      const c = await client(config);
      for (;;) {
        const ids = await unstartedDeliveries(pool, 100);
        if (ids.length === 0 || stopped) break;
        for (const id of ids) {
          try {
            await c.workflow.start('deliveryWorkflow', { taskQueue: config.temporalTaskQueue, workflowId: `delivery:${id}`, args: [id] });
          } catch (err) {
            if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
          }
        }
        await markWorkflowStarted(pool, ids);
      }
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => inBackground(log, 'delivery workflow starts', round), everyMs);
  timer.unref();
  return {
    stop() {
      stopped = true;
      clearInterval(timer);
    },
  };
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
