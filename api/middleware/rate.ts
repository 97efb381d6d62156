// Rate limits as the answer states them: every call takes a token from one bucket and every answer
// (2xx or refusal) carries RateLimit-Limit, -Remaining, -Reset and -Policy
// (draft-ietf-httpapi-ratelimit-headers-06); a 429 carries Retry-After.
import type Koa from 'koa';
import type { Config } from '../../core/config.ts';
import { ApiError } from '../../core/errors.ts';
import type { RateDecision, RatePolicy } from '../metering/types.ts';
import type { Services } from '../services.ts';
import type { RequestState } from './context.ts';

export type Bucket = 'priced' | 'tiles';

export function policyOf(config: Config, bucket: Bucket): RatePolicy {
  return bucket === 'tiles'
    ? { perSecond: config.tileRateLimitPerSecond, burst: config.tileRateLimitBurst }
    : { perSecond: config.rateLimitPerSecond, burst: config.rateLimitBurst };
}

/** The headers of a decision (pure). w is the seconds an empty bucket takes to fill. */
export function rateHeaders(d: RateDecision, p: RatePolicy, bucket: Bucket): Record<string, string> {
  const w = Math.max(1, Math.ceil(p.burst / p.perSecond));
  return {
    'RateLimit-Limit': String(d.limit),
    'RateLimit-Remaining': String(d.remaining),
    'RateLimit-Reset': String(d.resetSeconds),
    'RateLimit-Policy': `${p.burst};w=${w};comment="${bucket} token bucket: ${p.burst} at once, ${p.perSecond} a second after"`,
    ...(d.allowed ? {} : { 'Retry-After': String(d.retryAfterSeconds) }),
  };
}

/**
 * Take the call's token from `subject`'s bucket and state it on the answer; past the limit,
 * rate_limited (nothing is charged: no price was taken yet).
 */
export async function countCall(ctx: Koa.Context, services: Services, subject: string, bucket: Bucket): Promise<void> {
  (ctx.state.landlex as RequestState).rated = true;
  const policy = policyOf(services.config, bucket);
  const key = bucket === 'tiles' ? `tiles:${subject}` : subject;
  const d = await services.meter.hit(key, policy);
  const headers = rateHeaders(d, policy, bucket);
  ctx.set(headers);
  if (!d.allowed) {
    const what = bucket === 'tiles' ? 'tile and TileJSON calls' : 'calls';
    throw new ApiError('rate_limited', {
      detail: `More than ${policy.burst} ${what} at once or ${policy.perSecond} a second after; wait ${d.retryAfterSeconds} s. Nothing was charged.`,
      headers,
    });
  }
}

/** A call refused before its credential was known counts against its address's bucket. */
export const addressSubject = (ctx: Koa.Context) => `ip:${ctx.ip}`;
