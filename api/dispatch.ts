// One request through one route: match, credential, rate, scope, parameters, body,
// idempotency, dry run, charge, handler, envelope.
import type Koa from 'koa';
import { ApiError } from '../core/errors.ts';
import { type Actor, CREDENTIAL_QUERY_NAMES, credentialFromHeaders, namedForHeader, resolveCredential } from './auth.ts';
import { readJsonBody, validateBody } from './body.ts';
import { renderAnswer } from './envelope.ts';
import { selectFields } from './fields.ts';
import { withIdempotency } from './idempotency.ts';
import { answerWithCharge, estimateCost } from './metering/charge.ts';
import type { RequestState } from './middleware/context.ts';
import { addressSubject, countCall } from './middleware/rate.ts';
import { asParameterRefusal, type Param, parseParams, type RawQuery } from './params.ts';
import type { Req, Route } from './route.ts';
import type { Router } from './router.ts';
import type { Services } from './services.ts';

/**
 * One call as handlers see it. A class, not an object literal with a getter: V8 gives every
 * literal whose getter is a fresh closure a map of its own, and those maps kept each call's
 * objects alive through several young-generation collections (measured: ~2 MB promoted per
 * scavenge at tile rates, the largest part of the API's per-call cost).
 */
class HandlerRequest implements Req {
  constructor(
    readonly route: Route,
    readonly params: Req['params'],
    readonly body: Req['body'],
    readonly actor: Actor | null,
    public services: Services,
    readonly requestId: string,
    readonly ctx: Koa.Context,
    readonly dryRun: boolean,
  ) {}

  /** made when a handler logs (most never do) */
  get log() {
    return this.services.log.child({ request_id: this.requestId });
  }
}

async function authenticate(ctx: Koa.Context, route: Route, services: Services): Promise<Actor | null> {
  for (const name of Object.keys(ctx.query)) {
    if (CREDENTIAL_QUERY_NAMES.includes(name.toLowerCase())) {
      throw new ApiError('credential_invalid', {
        field: name,
        detail: 'Credentials are never accepted in a query string (they end up in logs and histories). Send the key in X-API-Key, Authorization: Bearer, or HTTP Basic as the password, and revoke the key you sent.',
      });
    }
  }
  if (route.credential === 'public') return null;
  const token = credentialFromHeaders(ctx.headers);
  if (!token) {
    throw new ApiError('credential_missing', {
      field: 'Authorization',
      detail: route.credential === 'key' ? 'Send an API key in X-API-Key (or Authorization: Bearer, or HTTP Basic with the key as the password).' : 'Send a console session token in Authorization: Bearer.',
    });
  }
  const actor = await resolveCredential(services.pool, token, services.credentials).catch((err) => Promise.reject(namedForHeader(err, ctx.headers)));
  if (actor.kind === 'key' && route.credential === 'session') {
    throw new ApiError('api_key_not_accepted', { detail: 'Keys are minted only with a console session (POST /session), never with a key.' });
  }
  if (actor.kind === 'key' && route.credential === 'bearer') {
    throw new ApiError('person_required', { detail: 'This operation acts as a person; an API key belongs to the organization, not to anyone.' });
  }
  return actor;
}

function authorize(route: Route, actor: Actor | null) {
  if (!actor) return;
  if (route.scope && !actor.scopes.includes(route.scope)) {
    throw new ApiError('scope_missing', { detail: `This operation needs the scope ${route.scope}, which this key does not have.` });
  }
  if (actor.kind === 'person' && route.roles && !route.roles.includes(actor.role!)) {
    throw new ApiError('scope_missing', { detail: `This operation needs the role ${route.roles.join(' or ')}; you are ${actor.role}.` });
  }
}

/** Priced and other calls take from the credential's bucket (an address's without one); tiles from its tile bucket. */
function rateLimit(ctx: Koa.Context, route: Route, actor: Actor | null, services: Services) {
  const subject = actor ? (actor.keyId ?? actor.personId!) : addressSubject(ctx);
  return countCall(ctx, services, subject, route.bucket ?? 'priced');
}

const DRY_RUN: Param = { name: 'dry_run', in: 'query', type: 'boolean', default: false, description: 'Price and scope the request without answering it.' };

export function routeParams(route: Route) {
  return route.dryRun ? [...(route.params ?? []), DRY_RUN] : (route.params ?? []);
}

export function dispatcher(router: Router, services: Services): Koa.Middleware {
  return async (ctx) => {
    const state = ctx.state.landlex as RequestState;
    const { route, path } = router.match(ctx.method, ctx.path);
    state.route = route;
    const actor = await authenticate(ctx, route, services);
    state.actor = actor;
    await rateLimit(ctx, route, actor, services);
    authorize(route, actor);

    const params = parseParams(routeParams(route), ctx.query as RawQuery, path, { allowExtra: route.allowExtraQuery, refusal: route.parameterRefusal });
    let body: unknown;
    if (['POST', 'PUT', 'PATCH'].includes(route.method)) {
      body = await readJsonBody(ctx, services.config.bodyLimitBytes);
      if (route.body) validateBody(route.body, body);
    }
    const dryRun = Boolean(params.dry_run);
    const req = new HandlerRequest(route, params, body, actor, services, state.requestId, ctx, dryRun);
    const context = { path: ctx.path, params, requestId: state.requestId, dryRun, cost: 0 };

    const answer = async () => {
      if (dryRun) {
        const estimate = await estimateCost(req);
        context.cost = estimate.cost;
        ctx.status = 200;
        // a dry run always answers in a form that can carry its price
        ctx.body =
          route.form === 'v1'
            ? { object: 'dry_run', dry_run: true, cost_estimate: context.cost, request_id: state.requestId, ...(estimate.item ? { estimate: estimate.item } : {}) }
            : renderAnswer('plain', { item: estimate.item ?? null, meta: { cost_estimate: context.cost } }, context);
        return;
      }
      const { answer, cost } = await answerWithCharge(req, () => route.handler(req));
      state.credits = cost;
      context.cost = cost;
      ctx.status = answer.status ?? route.status ?? 200;
      for (const [h, v] of Object.entries(answer.headers ?? {})) ctx.set(h, v);
      if (answer.contentType) ctx.type = answer.contentType;
      if (route.fields && answer.item !== undefined) answer.item = selectFields(answer.item, params.field, route.fields);
      if (route.fields?.extras && answer.extra) answer.extra = selectFields(answer.extra, params.field, route.fields) as typeof answer.extra;
      if (answer.answerId) answer.meta = { ...answer.meta, answer_id: answer.answerId };
      const rendered = renderAnswer(answer.raw ? 'raw' : route.form, answer, context);
      if (answer.answerId && actor && ctx.status !== 204) {
        // serialized once: the text kept for replay is the text served
        const text = JSON.stringify(rendered);
        await services.answers.save({ id: answer.answerId, organizationId: actor.organizationId, path: ctx.path, request: { path: ctx.path, query: ctx.querystring }, body: text });
        ctx.type = 'application/json';
        ctx.body = text;
        return;
      }
      ctx.body = ctx.status === 204 ? null : rendered;
    };
    const produce = () => answer().catch((err) => Promise.reject(asParameterRefusal(err, routeParams(route))));
    if (route.idempotent) await withIdempotency(ctx, services.pool, actor, body, produce);
    else await produce();
  };
}
