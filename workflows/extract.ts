// The extract workflow on Temporal: the logic of workflows/extract-logic.ts bound to the
// activities by proxyActivities. Business id: extract:<ext_ id>.
import { proxyActivities } from '@temporalio/workflow';
import type { ExtractActivities } from '../activities/extract.ts';
import { EXTRACT_HEARTBEAT, EXTRACT_RETRY, EXTRACT_TIMEOUT, type ExtractActs, type ExtractOutcome, runExtract } from './extract-logic.ts';
import { QUICK_RETRY, QUICK_TIMEOUT, temporalRetry } from './policies.ts';

const quick = proxyActivities<ExtractActivities>({ startToCloseTimeout: QUICK_TIMEOUT, retry: temporalRetry(QUICK_RETRY) });
const writer = proxyActivities<ExtractActivities>({ startToCloseTimeout: EXTRACT_TIMEOUT, heartbeatTimeout: EXTRACT_HEARTBEAT, retry: temporalRetry(EXTRACT_RETRY) });

const acts: ExtractActs = {
  startExtract: quick.startExtract,
  writeExtract: writer.writeExtract,
  failExtract: quick.failExtract,
};

export async function extractWorkflow(id: string): Promise<ExtractOutcome> {
  return runExtract(acts, id);
}
