// The retry policy (spec 6.3) as pure arithmetic: the waits of each backoff, the six-hour cap,
// jitter's half-to-all range, giving up after max_attempt or past dead_letter_after_hours.
import { describe, expect, test } from 'vitest';
import { afterFailure, DEFAULT_POLICY, readPolicy, waitSeconds } from '../../core/webhooks/retry-policy.ts';

const p = (o: object) => readPolicy(o);

describe('retry policy', () => {
  test('exponential doubles, linear adds, fixed stays; none waits past six hours', () => {
    expect([1, 2, 3, 4].map((n) => waitSeconds(p({ backoff: 'exponential', base_seconds: 10, jitter: false }), n, 0))).toEqual([10, 20, 40, 80]);
    expect([1, 2, 3, 4].map((n) => waitSeconds(p({ backoff: 'linear', base_seconds: 10, jitter: false }), n, 0))).toEqual([10, 20, 30, 40]);
    expect([1, 2, 3].map((n) => waitSeconds(p({ backoff: 'fixed', base_seconds: 10, jitter: false }), n, 0))).toEqual([10, 10, 10]);
    expect(waitSeconds(p({ backoff: 'exponential', base_seconds: 3600, jitter: false }), 10, 0)).toBe(6 * 3600);
  });

  test('jitter waits a random half to all of the interval', () => {
    const j = p({ backoff: 'fixed', base_seconds: 100, jitter: true });
    expect(waitSeconds(j, 1, 0)).toBe(50);
    expect(waitSeconds(j, 1, 0.5)).toBe(75);
    expect(waitSeconds(j, 1, 0.999)).toBeCloseTo(99.95, 5);
  });

  test('gives up after max_attempt calls, or when the next call would fall past dead_letter_after_hours', () => {
    const created = new Date('2026-01-01T00:00:00Z');
    const q = p({ max_attempt: 3, backoff: 'fixed', base_seconds: 60, jitter: false, dead_letter_after_hours: 1 });
    expect(afterFailure(q, 1, created, created, 0)).toEqual({ retryAt: new Date('2026-01-01T00:01:00Z') });
    expect(afterFailure(q, 3, created, created, 0)).toMatchObject({ deadLetter: expect.stringMatching(/max_attempt 3/) });
    expect(afterFailure(q, 2, created, new Date('2026-01-01T00:59:30Z'), 0)).toMatchObject({ deadLetter: expect.stringMatching(/dead_letter_after_hours/) });
  });

  test('what is left out returns to its default; null is every default; bad fields are named', () => {
    expect(readPolicy(null)).toEqual(DEFAULT_POLICY);
    expect(readPolicy({ max_attempt: 2 })).toEqual({ ...DEFAULT_POLICY, max_attempt: 2 });
    expect(() => readPolicy({ backoff: 'random' })).toThrow(expect.objectContaining({ field: 'retry_policy.backoff' }));
    expect(() => readPolicy({ base_seconds: 0 })).toThrow(expect.objectContaining({ field: 'retry_policy.base_seconds' }));
    expect(() => readPolicy({ base_seconds: 6 * 3600 + 1 })).toThrow(expect.objectContaining({ field: 'retry_policy.base_seconds' }));
    expect(() => readPolicy({ retries: 3 })).toThrow(expect.objectContaining({ field: 'retry_policy.retries' }));
    expect(() => readPolicy([1])).toThrow(expect.objectContaining({ field: 'retry_policy' }));
  });
});
