// One webhook delivery as a workflow: attempt it; while it is still pending, wait until the
// attempt says to look again (the retry policy's wait, or until an earlier delivery of the same
// webhook is done), then attempt again. The waits are Temporal timers. No Node built-ins here.
import type { AttemptOutcome } from '../activities/webhooks/attempt.ts';

export interface DeliveryActs {
  attemptDelivery(id: string): Promise<AttemptOutcome>;
}

/** Never wait less than this between looks (a delivery behind another is looked at again soon). */
export const MIN_WAIT_MS = 1000;
export const ATTEMPT_TIMEOUT = '1 minute';

export async function runDelivery(acts: DeliveryActs, id: string, sleep: (ms: number) => Promise<void>, now: () => number): Promise<AttemptOutcome> {
  for (;;) {
    const out = await acts.attemptDelivery(id);
    if (out.state !== 'pending') return out;
    await sleep(Math.max(MIN_WAIT_MS, Date.parse(out.retryAt) - now()));
  }
}
