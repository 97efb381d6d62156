// The OpenAPI 3.1 document, generated from the route table the server itself uses.
import { API_VERSION, CONTRACT_DATE, SERVICE_NAME } from '../core/contract.ts';
import { ERROR_CODES } from '../core/errors.ts';
import { routeParams } from './dispatch.ts';
import { paramSchema } from './params.ts';
import type { JsonSchema, Route } from './route.ts';

const plainErrorSchema: JsonSchema = {
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
            code: { type: 'string', enum: Object.keys(ERROR_CODES) },
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
};

const problemSchema: JsonSchema = {
  type: 'object',
  required: ['code', 'detail', 'status'],
  properties: {
    type: { type: 'string' },
    title: { type: 'string' },
    status: { type: 'integer' },
    code: { type: 'string', enum: Object.keys(ERROR_CODES) },
    detail: { type: 'string' },
    request_id: { type: 'string' },
    errors: {
      type: 'array',
      items: { type: 'object', properties: { field: { type: ['string', 'null'] }, code: { type: 'string' }, detail: { type: 'string' } } },
    },
  },
};

const envelopeSchema = (item: JsonSchema, collection: boolean): JsonSchema => ({
  type: 'object',
  required: ['request', 'meta', 'item'],
  properties: {
    request: {
      type: 'object',
      properties: { path: { type: 'string' }, param: { type: 'object' }, dry_run: { type: 'boolean' } },
    },
    meta: { $ref: '#/components/schemas/Meta' },
    item: collection ? { type: 'array', items: item } : { anyOf: [item, { type: 'null' }] },
    ...(collection ? { page: { $ref: '#/components/schemas/Page' } } : {}),
    coverage: { type: 'object' },
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

function responseSchema(r: Route): JsonSchema {
  const item = r.response ?? { type: 'object' };
  if (r.form === 'v1') return v1Schema(item, Boolean(r.collection));
  if (r.form === 'bare') return { type: 'object', properties: { item: { type: 'array', items: item }, page: { $ref: '#/components/schemas/Page' } } };
  if (r.form === 'raw') return item;
  return envelopeSchema(item, Boolean(r.collection));
}

function operation(r: Route) {
  const errorRef = r.form === 'v1' ? '#/components/schemas/Problem' : '#/components/schemas/Error';
  const errorType = r.form === 'v1' ? 'application/problem+json' : 'application/json';
  const err = (description: string) => ({ description, content: { [errorType]: { schema: { $ref: errorRef } } } });
  const status = String(r.status ?? 200);
  const responses: Record<string, unknown> = {
    [status]:
      status === '204'
        ? { description: 'Done; no body.' }
        : {
            description: r.summary,
            content: Object.fromEntries(
              [r.form === 'raw' && r.produces ? r.produces[0] : 'application/json', ...(r.produces ?? []).slice(r.form === 'raw' ? 1 : 0)].map((t) => [
                t,
                { schema: t.includes('json') ? responseSchema(r) : { type: 'string', format: 'binary' } },
              ]),
            ),
          },
    '422': err('A parameter or body field is not accepted; field names it.'),
    '429': err('Rate limited; see Retry-After. Not charged.'),
  };
  if (r.credential !== 'public') {
    responses['401'] = err('No usable credential.');
    responses['403'] = err('The credential cannot do this.');
  }
  if (r.price && r.price.credits > 0) responses['402'] = err('The balance cannot cover the call; nothing charged.');
  if (r.path.includes('{')) responses['404'] = err('No record has the id given.');
  const op: Record<string, unknown> = {
    operationId: r.id,
    summary: r.summary,
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
    security: r.credential === 'public' ? [] : r.credential === 'key' ? [{ apiKey: [] }, { bearer: [] }] : [{ bearer: [] }],
    'x-credential': r.credential,
  };
  if (r.scope) op['x-scope'] = r.scope;
  if (r.price) op['x-price'] = { credits: r.price.credits, per: r.price.per, repeat_free_hours: r.price.repeatFreeHours ?? null, note: r.price.note };
  if (r.idempotent) {
    (op.parameters as unknown[]).push({ name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', maxLength: 255 } });
  }
  if (r.body) op.requestBody = { required: true, content: { 'application/json': { schema: r.body } } };
  return op;
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
        bearer: { type: 'http', scheme: 'bearer', description: 'A console session token, or an API key' },
      },
      schemas: {
        Error: plainErrorSchema,
        Problem: problemSchema,
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
