// The webhook activities a Temporal worker registers (the in-process dispatcher calls the same).
import type { Logger } from '../../core/log.ts';
import type { Pool } from '../../store/db.ts';
import { outboxTidier } from '../../store/webhooks/tidy.ts';
import { type AttemptOutcome, attemptDelivery } from './attempt.ts';

export interface WebhookActivities {
  attemptDelivery(id: string): Promise<AttemptOutcome>;
}

export function createWebhookActivities(deps: { pool: Pool; log: Logger; timeoutMs?: number }): WebhookActivities {
  const tidy = outboxTidier(deps.pool, (err) => deps.log.warn('webhook outbox vacuum failed', { err }));
  return { attemptDelivery: (id) => attemptDelivery({ pool: deps.pool, timeoutMs: deps.timeoutMs, tidy }, id) };
}
