// The webhook delivery workflow on Temporal (TEMPORAL_ADDRESS set): the logic of
// workflows/delivery-logic.ts, its waits as durable timers. Business id: delivery:<dlv_ id>.
import { proxyActivities, sleep } from '@temporalio/workflow';
import type { WebhookActivities } from '../activities/webhooks/index.ts';
import type { AttemptOutcome } from '../activities/webhooks/attempt.ts';
import { ATTEMPT_TIMEOUT, runDelivery } from './delivery-logic.ts';
import { QUICK_RETRY, temporalRetry } from './policies.ts';

// An attempt never throws for a receiver's failure (that is an outcome); a throw is the store
// failing, retried as any quick activity is.
const acts = proxyActivities<WebhookActivities>({ startToCloseTimeout: ATTEMPT_TIMEOUT, retry: temporalRetry(QUICK_RETRY) });

export async function deliveryWorkflow(id: string): Promise<AttemptOutcome> {
  return runDelivery(acts, id, (ms) => sleep(ms), () => Date.now());
}
