// Temporal workflows: the logic of workflows/logic.ts bound to activities by proxyActivities.
// Business ids: ingest:<jurisdiction> and ingest-source:<source id>.
import { executeChild, proxyActivities } from '@temporalio/workflow';
import type { IngestActivities, SourceRef } from '../activities/ingest.ts';
import { type IngestActs, ingestJurisdiction, ingestSource, type JurisdictionOutcome, type SourceOutcome } from './logic.ts';
import { FETCH_RETRY, FETCH_TIMEOUT, LOAD_HEARTBEAT, LOAD_RETRY, LOAD_TIMEOUT, QUICK_RETRY, QUICK_TIMEOUT, temporalRetry } from './policies.ts';

const quick = proxyActivities<IngestActivities>({ startToCloseTimeout: QUICK_TIMEOUT, retry: temporalRetry(QUICK_RETRY) });
const fetcher = proxyActivities<IngestActivities>({ startToCloseTimeout: FETCH_TIMEOUT, retry: temporalRetry(FETCH_RETRY) });
const loader = proxyActivities<IngestActivities>({ startToCloseTimeout: LOAD_TIMEOUT, heartbeatTimeout: LOAD_HEARTBEAT, retry: temporalRetry(LOAD_RETRY) });

const acts: IngestActs = {
  listJurisdictions: quick.listJurisdictions,
  syncJurisdiction: quick.syncJurisdiction,
  derivedSources: quick.derivedSources,
  fetchSource: fetcher.fetchSource,
  recordVersion: quick.recordVersion,
  loadVersion: loader.loadVersion,
};

export async function ingestSourceWorkflow(src: SourceRef): Promise<SourceOutcome> {
  return ingestSource(acts, src);
}

export async function ingestJurisdictionWorkflow(slug: string): Promise<JurisdictionOutcome> {
  return ingestJurisdiction(acts, slug, (src) => executeChild(ingestSourceWorkflow, { args: [src], workflowId: `ingest-source:${src.id}` }));
}

export async function ingestAllWorkflow(): Promise<JurisdictionOutcome[]> {
  const out: JurisdictionOutcome[] = [];
  for (const slug of await acts.listJurisdictions()) {
    out.push(await executeChild(ingestJurisdictionWorkflow, { args: [slug], workflowId: `ingest:${slug}` }));
  }
  return out;
}
