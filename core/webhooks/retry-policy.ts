// Retry policy (spec 2.8, 6.3): how often and how long a failed delivery is tried again. Pure:
// the dispatcher asks `afterFailure` when to try next, or whether to give up.
import { invalid } from '../errors.ts';

export type Backoff = 'exponential' | 'linear' | 'fixed';

export interface RetryPolicy {
  max_attempt: number;
  backoff: Backoff;
  base_seconds: number;
  jitter: boolean;
  dead_letter_after_hours: number;
}

/** No wait between attempts exceeds this (spec 8). */
export const MAX_WAIT_SECONDS = 6 * 3600;

export const DEFAULT_POLICY: RetryPolicy = { max_attempt: 8, backoff: 'exponential', base_seconds: 60, jitter: true, dead_letter_after_hours: 72 };

const LIMITS = {
  max_attempt: [1, 50],
  base_seconds: [1, MAX_WAIT_SECONDS],
  dead_letter_after_hours: [1, 24 * 14],
} as const;

/**
 * A policy from a request body: what is given, the default for anything left out (the spec:
 * "replaces the whole policy: anything left out returns to its default"); null is every default.
 */
export function readPolicy(raw: unknown, field = 'retry_policy'): RetryPolicy {
  if (raw === null || raw === undefined) return { ...DEFAULT_POLICY };
  if (typeof raw !== 'object' || Array.isArray(raw)) throw invalid(field, 'must be an object or null');
  const given = raw as Record<string, unknown>;
  const known = Object.keys(DEFAULT_POLICY);
  for (const k of Object.keys(given)) if (!known.includes(k)) throw invalid(`${field}.${k}`, `is not a retry policy field; the fields are ${known.join(', ')}`);
  const out = { ...DEFAULT_POLICY };
  for (const [k, [lo, hi]] of Object.entries(LIMITS) as Array<[keyof typeof LIMITS, readonly [number, number]]>) {
    const v = given[k];
    if (v === undefined) continue;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < lo || v > hi) throw invalid(`${field}.${k}`, `must be an integer from ${lo} to ${hi}`);
    out[k] = v;
  }
  if (given.backoff !== undefined) {
    if (!['exponential', 'linear', 'fixed'].includes(given.backoff as string)) throw invalid(`${field}.backoff`, 'must be exponential, linear or fixed');
    out.backoff = given.backoff as Backoff;
  }
  if (given.jitter !== undefined) {
    if (typeof given.jitter !== 'boolean') throw invalid(`${field}.jitter`, 'must be true or false');
    out.jitter = given.jitter;
  }
  return out;
}

/**
 * Seconds to wait after the `failed`-th failed call (1 = after the first): exponential doubles
 * from base_seconds, linear adds base_seconds, fixed stays; capped at six hours; with jitter a
 * random half to all of it (`random` in [0, 1)).
 */
export function waitSeconds(p: RetryPolicy, failed: number, random: number): number {
  const n = Math.max(1, failed);
  const raw = p.backoff === 'exponential' ? p.base_seconds * 2 ** (n - 1) : p.backoff === 'linear' ? p.base_seconds * n : p.base_seconds;
  const capped = Math.min(raw, MAX_WAIT_SECONDS);
  return p.jitter ? capped / 2 + (capped / 2) * random : capped;
}

export type Next = { retryAt: Date } | { deadLetter: string };

/** After a failed attempt (`failed` calls made so far): when to call again, or why not. */
export function afterFailure(p: RetryPolicy, failed: number, eventCreatedAt: Date, now: Date, random: number): Next {
  if (failed >= p.max_attempt) return { deadLetter: `${failed} of max_attempt ${p.max_attempt} calls made, none answered 2xx` };
  const at = new Date(now.getTime() + waitSeconds(p, failed, random) * 1000);
  const limit = eventCreatedAt.getTime() + p.dead_letter_after_hours * 3600_000;
  if (at.getTime() > limit) return { deadLetter: `the next call would fall after dead_letter_after_hours (${p.dead_letter_after_hours} h from the event's creation)` };
  return { retryAt: at };
}
