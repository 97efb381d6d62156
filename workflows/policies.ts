// Retry and timeout policies shared by the Temporal workflows and the in-process runner, so both
// retry the same way. Bad input is thrown as non-retryable by the activities themselves.
export interface RetryPolicy {
  initialIntervalMs: number;
  backoffCoefficient: number;
  maximumIntervalMs: number;
  maximumAttempts: number;
}

export const FETCH_RETRY: RetryPolicy = { initialIntervalMs: 1000, backoffCoefficient: 2, maximumIntervalMs: 30_000, maximumAttempts: 3 };
export const LOAD_RETRY: RetryPolicy = { initialIntervalMs: 2000, backoffCoefficient: 2, maximumIntervalMs: 60_000, maximumAttempts: 3 };
export const QUICK_RETRY: RetryPolicy = { initialIntervalMs: 500, backoffCoefficient: 2, maximumIntervalMs: 10_000, maximumAttempts: 5 };

export const FETCH_TIMEOUT = '5 minutes';
export const LOAD_TIMEOUT = '30 minutes';
export const LOAD_HEARTBEAT = '2 minutes';
export const QUICK_TIMEOUT = '1 minute';

export const TASK_QUEUE = 'landlex';

/** Temporal's form of a policy. */
export function temporalRetry(p: RetryPolicy) {
  return {
    initialInterval: p.initialIntervalMs,
    backoffCoefficient: p.backoffCoefficient,
    maximumInterval: p.maximumIntervalMs,
    maximumAttempts: p.maximumAttempts,
    nonRetryableErrorTypes: ['BadInput', 'SourceGone', 'LoadFailed', 'SourceUnavailable'],
  };
}
