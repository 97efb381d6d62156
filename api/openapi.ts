// The OpenAPI 3.1 document, generated from the route table the server itself uses.
import { API_VERSION, CONTRACT_DATE, SERVICE_NAME } from '../core/contract.ts';
import { ERROR_CODES } from '../core/errors.ts';
import { BASIC_SCHEME_TEXT } from './auth.ts';
import { routeParams } from './dispatch.ts';
import { oauth2Scheme } from './oauth/scheme.ts';
import { paramSchema } from './params.ts';
import type { JsonSchema, Route } from './route.ts';

type Status = number;

/** The codes of the taxonomy answered with a status. */
const codesOf = (status: Status) => Object.entries(ERROR_CODES).filter(([, i]) => i.status === status).map(([c]) => c);

const plainErrorSchema = (status: Status): JsonSchema => ({
  type: 'object',
  required: ['detail'],
  properties: {
    detail: {
      type: 'object',
      required: ['error'],
      properties: {
        error: {
          type: 'object',
          required: ['code', 'detail', 'message', 'message_title'],
          properties: {
            code: { type: 'string', enum: codesOf(status) },
            field: { type: ['string', 'null'] },
            detail: { type: 'string' },
            message: { type: 'string' },
            message_title: { type: 'string' },
            request_id: { type: 'string' },
          },
        },
      },
    },
  },
});

const problemSchema = (status: Status): JsonSchema => ({
  type: 'object',
  required: ['code', 'detail', 'status'],
  properties: {
    type: { type: 'string' },
    title: { type: 'string' },
    status: { const: status },
    code: { type: 'string', enum: codesOf(status) },
    detail: { type: 'string' },
    request_id: { type: 'string' },
    errors: {
      type: 'array',
      items: { type: 'object', properties: { field: { type: ['string', 'null'] }, code: { type: 'string' }, detail: { type: 'string' } } },
    },
  },
});

const envelopeSchema = (item: JsonSchema, collection: boolean): JsonSchema => ({
  type: 'object',
  required: ['request', 'meta', 'item'],
  properties: {
    request: {
      type: 'object',
      properties: { path: { type: 'string' }, param: { type: 'object' }, dry_run: { const: false } },
    },
    meta: { $ref: '#/components/schemas/Meta' },
    item: collection ? { type: 'array', items: item } : { anyOf: [item, { type: 'null' }] },
    ...(collection ? { page: { $ref: '#/components/schemas/Page' } } : {}),
    coverage: { type: ['object', 'null'] },
    as_of: { type: 'object' },
    notice: { type: 'array', items: { type: 'object' } },
  },
});

const v1Schema = (item: JsonSchema, collection: boolean): JsonSchema =>
  collection
    ? {
        type: 'object',
        required: ['object', 'data', 'has_more'],
        properties: {
          object: { const: 'list' },
          data: { type: 'array', items: item },
          has_more: { type: 'boolean' },
          next_cursor: { type: ['string', 'null'] },
          suppressed: { type: 'integer' },
          total: { $ref: '#/components/schemas/Total' },
        },
      }
    : item;

/** What `dry_run=true` answers: the price and scope, not the answer (api/dispatch.ts). */
const DRY_RUN: JsonSchema = {
  type: 'object',
  required: ['request', 'meta', 'item'],
  properties: {
    request: { type: 'object', required: ['dry_run'], properties: { path: { type: 'string' }, param: { type: 'object' }, dry_run: { const: true } } },
    meta: { allOf: [{ $ref: '#/components/schemas/Meta' }, { type: 'object', required: ['cost_estimate'], properties: { cost_estimate: { type: 'integer', minimum: 0 } } }] },
    item: { description: 'null, or what the estimate rests on (an extract: object extract_estimate)', anyOf: [{ type: 'null' }, { type: 'object' }] },
  },
};

const DRY_RUN_V1: JsonSchema = {
  type: 'object',
  required: ['object', 'dry_run', 'cost_estimate', 'request_id'],
  properties: {
    object: { const: 'dry_run' },
    dry_run: { const: true },
    cost_estimate: { type: 'integer', minimum: 0 },
    request_id: { type: 'string' },
    estimate: { type: 'object' },
  },
};

function responseSchema(r: Route): JsonSchema {
  const item = r.response ?? { type: 'object' };
  if (r.form === 'v1') return v1Schema(item, Boolean(r.collection));
  if (r.form === 'bare') return { type: 'object', required: ['item'], properties: { item: { type: 'array', items: item }, page: { $ref: '#/components/schemas/Page' } } };
  if (r.form === 'raw') return item;
  return envelopeSchema(item, Boolean(r.collection));
}

const dryRunRef = (r: Route): JsonSchema => ({ $ref: `#/components/schemas/${r.form === 'v1' ? 'DryRunV1' : 'DryRun'}` });

/** The success schema: the answer, or (dry_run=true answers 200) its price. */
function successSchema(r: Route): JsonSchema {
  const answer = responseSchema(r);
  if (!r.dryRun || (r.status ?? 200) !== 200) return answer;
  return { anyOf: [answer, dryRunRef(r)] };
}

const BODY_METHODS = ['POST', 'PUT', 'PATCH'];
const JSONISH = /^application\/([\w.+-]*\+)?json\b/i;

const ERROR_DESCRIPTIONS: Record<Status, string> = {
  400: 'The request cannot be read: a body that is not JSON; on OGC API Features a refused parameter, on tiles a coordinate off the grid.',
  401: 'No usable credential (also a credential sent in the query string).',
  402: 'The balance cannot cover the call; nothing charged.',
  403: 'The credential cannot do this (scope, role, plan, or a key where a person is needed).',
  404: 'No record has the id given in the path.',
  409: 'A conflict: the request with this Idempotency-Key is still being answered, or the record changed since it was read.',
  410: 'Gone: the file was removed when its extract expired.',
  413: 'The body is larger than BODY_LIMIT_BYTES.',
  415: 'The body is not application/json.',
  422: 'A parameter or body field is not accepted; field names it.',
  429: 'Rate limited; see Retry-After. Not charged.',
  500: 'The service failed (a defect); nothing was charged. The request id identifies it in the logs.',
  501: 'Not available: the operation cannot answer this yet (data not held); field names what was asked.',
  503: 'The query took too long and was stopped, or the service is shutting down; retry (Retry-After).',
};

/** Every refusal a route can give: the ones every route of its kind gives, and its own. */
function refusalStatuses(r: Route): Status[] {
  const out = new Set<Status>([401, 422, 429, 500, 503]);
  const params = routeParams(r);
  if (r.credential !== 'public') out.add(403);
  if (r.price && r.price.credits > 0) out.add(402);
  if (params.some((p) => p.in === 'path')) out.add(404);
  if (BODY_METHODS.includes(r.method)) for (const s of [400, 413, 415]) out.add(s);
  if (r.idempotent) out.add(409);
  if (r.parameterRefusal) out.add(ERROR_CODES[r.parameterRefusal].status);
  // parameters whose values are understood but not answerable yet
  if (params.some((p) => p.name === 'region' || p.name === 'plss')) out.add(501);
  for (const code of r.refuses ?? []) out.add(ERROR_CODES[code].status);
  return [...out].sort();
}

function operation(r: Route) {
  const errorRef = (s: Status) => `#/components/schemas/${r.form === 'v1' ? 'Problem' : 'Error'}${s}`;
  const errorType = r.form === 'v1' ? 'application/problem+json' : 'application/json';
  const status = r.status ?? 200;
  const types = r.form === 'raw' && r.produces ? r.produces : ['application/json', ...(r.produces ?? [])];
  const content = Object.fromEntries(
    types.map((t, i) => {
      // the route's form describes its first type; further types are other encodings of it
      if (!JSONISH.test(t)) return [t, { schema: { type: 'string', format: 'binary' } }];
      return [t, { schema: i === 0 ? successSchema(r) : { type: 'object' } }];
    }),
  );
  const responses: Record<string, unknown> = {
    [String(status)]: status === 204 ? { description: 'Done; no body.' } : { description: r.summary, content },
  };
  if (r.dryRun && status !== 200) {
    responses['200'] = { description: 'dry_run=true: the price and scope; nothing is created or charged.', content: { 'application/json': { schema: dryRunRef(r) } } };
  }
  for (const [s, description] of Object.entries(r.answers ?? {})) responses[s] = { description };
  // the HTTP server's own refusal, before any route: a request line and headers over its limit
  responses['431'] = { description: "The request line and headers exceed the server's limit (16 KB); send long geometries in a POST form's body." };
  for (const s of refusalStatuses(r)) {
    responses[String(s)] = { description: ERROR_DESCRIPTIONS[s] ?? ERROR_CODES.internal_error.title, content: { [errorType]: { schema: { $ref: errorRef(s) } } } };
  }
  for (const [s, extra] of Object.entries(r.responses ?? {})) responses[s] = withResponse(responses[s] as DocResponse | undefined, extra);
  const op: Record<string, unknown> = {
    operationId: r.id,
    summary: r.summary,
    ...(r.description ? { description: r.description } : {}),
    tags: [r.tag],
    parameters: routeParams(r).map((p) => ({
      name: p.prefix ? `${p.name}` : p.name,
      in: p.in,
      required: p.in === 'path' ? true : Boolean(p.required),
      description: p.description,
      ...(p.prefix ? { style: 'deepObject', explode: true } : {}),
      ...(p.type === 'array' ? { style: 'form', explode: true } : {}),
      schema: p.prefix ? { type: 'object', additionalProperties: true } : paramSchema(p),
    })),
    responses,
    security: r.credential === 'public' ? [] : r.credential === 'key' ? [{ apiKey: [] }, { bearer: [] }, { basic: [] }, { oauth2: r.scope ? [r.scope] : [] }] : [{ bearer: [] }],
    'x-credential': r.credential,
  };
  if (r.scope) op['x-scope'] = r.scope;
  if (r.price) op['x-price'] = { credits: r.price.credits, per: r.price.per, repeat_free_hours: r.price.repeatFreeHours ?? null, note: r.price.note };
  if (r.idempotent) {
    (op.parameters as unknown[]).push({ name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', maxLength: 255 } });
  }
  if (r.body) op.requestBody = { required: true, content: { 'application/json': { schema: r.body } } };
  if (r.formBody) op.requestBody = { required: true, content: { 'application/x-www-form-urlencoded': { schema: r.formBody } } };
  return op;
}

interface DocResponse {
  description: string;
  content?: Record<string, { schema: JsonSchema }>;
}

/** A response documented beside the generated one for the same status: either body may come. */
function withResponse(base: DocResponse | undefined, extra: { description: string; content: Record<string, JsonSchema> }): DocResponse {
  const content: Record<string, { schema: JsonSchema }> = { ...base?.content };
  for (const [type, schema] of Object.entries(extra.content)) {
    content[type] = content[type] ? { schema: { anyOf: [content[type].schema, schema] } } : { schema };
  }
  return { description: base ? `${base.description} ${extra.description}` : extra.description, content };
}

/** One error schema per status, each naming only the codes of that status. */
function errorSchemas(): Record<string, JsonSchema> {
  const statuses = [...new Set(Object.values(ERROR_CODES).map((i) => i.status))];
  return Object.fromEntries(statuses.flatMap((s) => [[`Error${s}`, plainErrorSchema(s)], [`Problem${s}`, problemSchema(s)]]));
}

/** A Koa context that knows the routes its app serves (set by makeApp). */
export interface ServedContext {
  routes?: Route[];
}

/** The routes the app answering `ctx` serves, so its document is its own. */
export function servedRoutes(ctx: unknown, fallback: Route[]): Route[] {
  return (ctx as ServedContext).routes ?? fallback;
}

export function buildOpenApi(routes: Route[], serverUrl: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    paths[r.path] ??= {};
    paths[r.path][r.method.toLowerCase()] = operation(r);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: `${SERVICE_NAME} API`,
      version: `${API_VERSION} (${CONTRACT_DATE})`,
      description: 'Land-use rules and property records from public sources; every rule cited.',
    },
    servers: [{ url: serverUrl }],
    paths,
    components: {
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        bearer: { type: 'http', scheme: 'bearer', description: 'A console session token, an API key, or an OAuth access token' },
        basic: { type: 'http', scheme: 'basic', description: BASIC_SCHEME_TEXT },
        oauth2: oauth2Scheme(serverUrl),
      },
      schemas: {
        ...errorSchemas(),
        DryRun: DRY_RUN,
        DryRunV1: DRY_RUN_V1,
        Total: { type: 'object', properties: { value: { type: 'integer' }, relation: { enum: ['eq', 'gte'] } } },
        Page: {
          type: 'object',
          properties: {
            size: { type: 'integer' },
            next_cursor: { type: ['string', 'null'] },
            indeterminate: { type: 'integer' },
            suppressed: { type: 'integer' },
            total: { $ref: '#/components/schemas/Total' },
          },
        },
        Meta: {
          type: 'object',
          required: ['contract_date', 'vocabulary_version', 'request_id', 'api_version'],
          properties: {
            contract_date: { type: 'string', format: 'date' },
            vocabulary_version: { type: 'string' },
            request_id: { type: 'string' },
            api_version: { const: 'v1' },
            answer_id: { type: 'string' },
            answer_through: { type: 'integer' },
            unit: { type: 'object' },
            cost: { type: 'string' },
          },
        },
      },
    },
  };
}
