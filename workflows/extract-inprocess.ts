// Running extracts: in-process by default (the same logic bound to the real activities, with the
// same retry policies), or on Temporal when TEMPORAL_ADDRESS is set. Not part of the bundle.
import { createExtractActivities, type ExtractActivities, type ExtractDeps } from '../activities/extract.ts';
import type { Config } from '../core/config.ts';
import type { Logger } from '../core/log.ts';
import { EXTRACT_RETRY, type ExtractActs, type ExtractOutcome, runExtract } from './extract-logic.ts';
import { type RunnerHooks, retrying } from './inprocess.ts';
import { QUICK_RETRY } from './policies.ts';

export function bindExtractInProcess(a: ExtractActivities, hooks: RunnerHooks = {}): ExtractActs {
  return {
    startExtract: retrying('startExtract', a.startExtract, QUICK_RETRY, hooks),
    writeExtract: retrying('writeExtract', a.writeExtract, EXTRACT_RETRY, hooks),
    failExtract: retrying('failExtract', a.failExtract, QUICK_RETRY, hooks),
  };
}

export function runExtractInProcess(a: ExtractActivities, id: string, hooks: RunnerHooks = {}): Promise<ExtractOutcome> {
  return runExtract(bindExtractInProcess(a, hooks), id);
}

const inFlight = new Set<Promise<unknown>>();

/** Wait for the extracts this process is running in the background (tests, shutdown). */
export async function drainExtracts(): Promise<void> {
  while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
}

let temporal: Promise<import('@temporalio/client').Client> | null = null;

async function temporalClient(config: Config) {
  temporal ??= (async () => {
    const { Client, Connection } = await import('@temporalio/client');
    const connection = await Connection.connect({ address: config.temporalAddress! });
    return new Client({ connection, namespace: config.temporalNamespace });
  })();
  return temporal;
}

/** Run an extract's workflow on Temporal and wait for its outcome (the CLI). */
export async function executeOnTemporal(config: Config, id: string): Promise<ExtractOutcome> {
  const client = await temporalClient(config);
  return client.workflow.execute('extractWorkflow', { taskQueue: config.temporalTaskQueue, workflowId: `extract:${id}`, args: [id] });
}

/** Start an extract's workflow: on Temporal (workflow id extract:<id>), or in this process. */
export async function startExtractRun(config: Config, pool: ExtractDeps['pool'], log: Logger, id: string, deps: Partial<ExtractDeps> = {}): Promise<void> {
  if (config.temporalAddress) {
    const client = await temporalClient(config);
    await client.workflow.start('extractWorkflow', { taskQueue: config.temporalTaskQueue, workflowId: `extract:${id}`, args: [id] });
    return;
  }
  const activities = createExtractActivities({ pool, dir: config.extractDir, log, ...deps });
  const run = runExtractInProcess(activities, id)
    .then((o) => log.info('extract finished', { extract: id, state: o.state, rows: o.rows, error: o.error }))
    .catch((err) => log.error('extract run failed', { extract: id, err }))
    .finally(() => inFlight.delete(run));
  inFlight.add(run);
}
