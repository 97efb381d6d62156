// First middleware: request id, one structured log line per request, usage recording, and
// rendering of every refusal in the shape of the path's form. Postgres errors never leak.
import type Koa from 'koa';
import { ApiError } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import { type Actor, CREDENTIAL_QUERY_NAMES } from '../auth.ts';
import { plainError, problem } from '../envelope.ts';
import type { Route } from '../route.ts';
import type { Services } from '../services.ts';
import { addressSubject, countCall } from './rate.ts';

export interface RequestState {
  requestId: string;
  route?: Route;
  actor?: Actor | null;
  credits: number;
  /** the call took its token from a rate bucket (api/middleware/rate.ts) */
  rated?: boolean;
}

/** The path and query as logged: credential-like parameters are replaced, never written. */
export function loggablePath(ctx: Koa.Context): string {
  const q = new URLSearchParams(ctx.querystring);
  for (const name of [...q.keys()]) {
    if (CREDENTIAL_QUERY_NAMES.includes(name.toLowerCase())) q.set(name, '[redacted]');
  }
  const s = q.toString();
  return s ? `${ctx.path}?${s}` : ctx.path;
}

function toApiError(err: unknown, services: Services, requestId: string): ApiError {
  if (err instanceof ApiError) return err;
  const e = err as { code?: string; status?: number; message?: string; expose?: boolean };
  if (e?.code === '57014') {
    return new ApiError('service_unavailable', { detail: 'The query took too long and was stopped; narrow the request or retry.', headers: { 'Retry-After': '1' } });
  }
  services.log.error('unhandled error', { request_id: requestId, err });
  return new ApiError('internal_error');
}

/**
 * A call refused before it took a token (no such path, no usable credential) takes one from its
 * address's bucket, so the refusal states the limit too and guessing keys is limited; past the
 * limit it is rate_limited instead. A meter that cannot answer leaves the refusal as it was.
 */
async function countRefusal(ctx: Koa.Context, services: Services, err: ApiError): Promise<ApiError> {
  try {
    await countCall(ctx, services, addressSubject(ctx), 'priced');
    return err;
  } catch (limited) {
    return limited instanceof ApiError && limited.code === 'rate_limited' ? limited : err;
  }
}

export function requestContext(services: Services): Koa.Middleware {
  return async (ctx, next) => {
    const state: RequestState = { requestId: newId('request'), credits: 0 };
    ctx.state.landlex = state;
    ctx.set('X-Request-Id', state.requestId);
    const started = performance.now();
    try {
      await next();
    } catch (raw) {
      let err = toApiError(raw, services, state.requestId);
      if (!state.rated && ctx.method !== 'OPTIONS') err = await countRefusal(ctx, services, err);
      const v1 = state.route?.form === 'v1' || ctx.path.startsWith('/v1/');
      ctx.status = err.status;
      for (const [h, v] of Object.entries(err.headers)) ctx.set(h, v);
      ctx.body = v1 ? problem(err, state.requestId) : plainError(err, state.requestId);
      if (v1) ctx.type = 'application/problem+json';
      state.credits = 0;
    } finally {
      const actor = state.actor;
      if (actor && state.route) {
        services.meter.record({
          organizationId: actor.organizationId,
          keyId: actor.keyId ?? null,
          personId: actor.personId ?? null,
          requestId: state.requestId,
          endpoint: `${state.route.method} ${state.route.path}`,
          status: ctx.status,
          credits: state.credits,
          at: new Date(),
        });
      }
      if (services.log.enabled('info')) services.log.info('request', {
        request_id: state.requestId,
        method: ctx.method,
        path: loggablePath(ctx),
        route: state.route ? `${state.route.method} ${state.route.path}` : null,
        status: ctx.status,
        ms: Math.round((performance.now() - started) * 10) / 10,
        organization_id: actor?.organizationId ?? null,
        key_id: actor?.keyId ?? null,
        credits: state.credits,
      });
    }
  };
}
