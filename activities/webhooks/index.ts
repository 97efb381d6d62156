// The webhook activities a Temporal worker registers (the in-process dispatcher calls the same).
import type { Pool } from '../../store/db.ts';
import { type AttemptOutcome, attemptDelivery } from './attempt.ts';

export interface WebhookActivities {
  attemptDelivery(id: string): Promise<AttemptOutcome>;
}

export function createWebhookActivities(deps: { pool: Pool; timeoutMs?: number }): WebhookActivities {
  return { attemptDelivery: (id) => attemptDelivery(deps, id) };
}
