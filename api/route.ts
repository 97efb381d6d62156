// Routes are declared as data: method, path, credential, scope, price, parameters, body schema
// and a handler. The server (api/app.ts) and the OpenAPI document (api/openapi.ts) are both
// built from the same list, so they cannot drift.
import type Koa from 'koa';
import type { Scope } from '../core/credentials.ts';
import type { ErrorCode } from '../core/errors.ts';
import type { Logger } from '../core/log.ts';
import type { Actor } from './auth.ts';
import type { FieldRules } from './fields.ts';
import type { Param } from './params.ts';
import type { Services } from './services.ts';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * public: no credential. key: an API key or a person's session (spec "API key").
 * bearer: a person's session only; a key is refused with person_required.
 * session: a console session only (minting keys); a key is refused with api_key_not_accepted.
 */
export type Credential = 'public' | 'key' | 'bearer' | 'session';

/** Envelope: plain (request/meta/item/page), v1 (object/data/has_more), bare (item[] and page, no envelope), raw (handler owns the body). */
export type Form = 'plain' | 'v1' | 'bare' | 'raw';

export interface Price {
  /** credits per unit; 0 = free */
  credits: number;
  /** what a unit is: the call, or each item the handler reports (parcels returned, places asked) */
  per: 'call' | 'item';
  /** a unit charged within this many hours is free again */
  repeatFreeHours?: number;
  /** one line for the price list */
  note: string;
  /** dry_run's estimate of units, from the validated request (defaults to 1); may read the store */
  estimateUnits?: (req: Req) => number | Estimate | Promise<number | Estimate>;
  /** charge the estimate before the handler runs (a job that starts work when created) */
  upfront?: boolean;
}

/** Units with what a dry run answers as its item (e.g. an extract's row_estimate). */
export interface Estimate {
  units: number;
  item?: unknown;
}

export type { JsonSchema } from '../core/query/param.ts';

import type { JsonSchema } from '../core/query/param.ts';

export interface Route {
  id: string;
  method: Method;
  path: string;
  summary: string;
  /** longer text for the OpenAPI document */
  description?: string;
  tag: string;
  credential: Credential;
  scope?: Scope;
  /** person roles allowed (sessions); keys are governed by scope only */
  roles?: Array<'owner' | 'admin' | 'member'>;
  form: Form;
  params?: Param[];
  /** unknown query parameters are refused unless this is set (OGC clients send extras) */
  allowExtraQuery?: boolean;
  /** the code a refused parameter answers with instead of 422 (OGC API Features: 400) */
  parameterRefusal?: ErrorCode;
  body?: JsonSchema;
  /**
   * An application/x-www-form-urlencoded body instead of JSON (OAuth 2's endpoints, RFC 6749):
   * handed to the handler as a FormBody (api/body.ts), checked by the handler, documented by this schema.
   */
  formBody?: JsonSchema;
  /** schema of `item` (or of each item of a collection) for the OpenAPI document */
  response?: JsonSchema;
  collection?: boolean;
  status?: number;
  price?: Price;
  /**
   * The rate bucket a call takes its token from: tiles (free map calls a viewer makes by the dozen,
   * limited apart so they never spend the priced calls' budget); else the credential's own.
   */
  bucket?: 'tiles';
  /** accepts Idempotency-Key (mutations) */
  idempotent?: boolean;
  /** supports dry_run=true */
  dryRun?: boolean;
  /**
   * field selection (api/fields.ts): fields returned by default, fields that can never be
   * suppressed, and (when declared) every name the answer can carry, checked before the handler runs
   */
  fields?: FieldRules;
  /** extra response media types for the OpenAPI document */
  produces?: string[];
  /**
   * Refusals the handler itself can give beyond those every route of its kind gives (credential,
   * parameters, price, path ids, bodies, idempotency: see api/openapi.ts), for the OpenAPI document.
   */
  refuses?: ErrorCode[];
  /** other statuses the handler answers without a body, by status (204 empty tile, 304 not modified) */
  answers?: Record<number, string>;
  /** further documented answers by status, their media types beside any the route already gives there (OAuth's own error bodies, HTML pages) */
  responses?: Record<number, { description: string; content: Record<string, JsonSchema> }>;
  handler: (req: Req) => Promise<Answer>;
}

export interface Req {
  route: Route;
  params: Record<string, any>;
  body: any;
  actor: Actor | null;
  services: Services;
  requestId: string;
  log: Logger;
  ctx: Koa.Context;
  dryRun: boolean;
}

export interface Answer {
  status?: number;
  headers?: Record<string, string>;
  /** single record, or an array for collections */
  item?: unknown;
  page?: object;
  /** top-level fields beside item (resolution, authority, coverage, layer, as_of, notice) */
  extra?: Record<string, unknown>;
  /** meta fields beside the standard ones (answer_id, answer_through, unit) */
  meta?: Record<string, unknown>;
  /** v1 collections */
  hasMore?: boolean;
  nextCursor?: string | null;
  /** raw form: the body as is (string, Buffer, stream or object) */
  body?: unknown;
  /** answer with `body` as is, whatever the route's form (e.g. an event stream) */
  raw?: boolean;
  contentType?: string;
  /** keep the rendered answer for replay under this ans_ id (GET /answer/{id}) */
  answerId?: string;
  /** units consumed for per-item prices; keys make repeats free within the price's window */
  charge?: { units?: number; keys?: string[] };
  /**
   * What the answer keeps (a batch's rows): run by the metering step only once the charge is
   * secured, so a 402 leaves nothing behind. A mutation charged after it answers writes nothing
   * itself; its handler's pool refuses writes (api/metering/charge.ts).
   */
  persist?: () => Promise<void>;
}

export function defineRoutes(routes: Route[]): Route[] {
  return routes;
}
