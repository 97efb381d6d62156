// Request bodies: JSON only, size-limited, validated against the route's JSON Schema.
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type Koa from 'koa';
import { ApiError, type ErrorCode } from '../core/errors.ts';
import type { JsonSchema } from './route.ts';

const ajv = new Ajv2020({ allErrors: true, strict: false });
(addFormats as unknown as (a: Ajv2020) => void)(ajv);
const compiled = new WeakMap<JsonSchema, ValidateFunction>();

export async function readJsonBody(ctx: Koa.Context, limit: number): Promise<unknown> {
  const length = Number(ctx.get('content-length') || 0);
  if (length > limit) throw new ApiError('body_too_large', { field: 'body', detail: `Bodies are limited to ${limit} bytes.` });
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new ApiError('body_too_large', { field: 'body', detail: `Bodies are limited to ${limit} bytes.` });
    chunks.push(chunk as Buffer);
  }
  if (size === 0) return undefined;
  const type = ctx.get('content-type');
  if (!/^application\/([\w.+-]*\+)?json\b/i.test(type)) {
    throw new ApiError('media_type_unsupported', { field: 'Content-Type', detail: `Send bodies as application/json, not ${type || 'no type'}.` });
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch (err) {
    throw new ApiError('body_malformed', { field: 'body', detail: `The body is not valid JSON: ${(err as Error).message}` });
  }
}

/** JSON pointer (/item/3/lat) to the dotted field name clients send (item[3].lat). */
function fieldName(e: ErrorObject): string {
  const parts = e.instancePath.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (e.keyword === 'required') parts.push(String((e.params as { missingProperty: string }).missingProperty));
  if (e.keyword === 'additionalProperties') parts.push(String((e.params as { additionalProperty: string }).additionalProperty));
  let out = '';
  for (const p of parts) out += /^\d+$/.test(p) ? `[${p}]` : out ? `.${p}` : p;
  return out || 'body';
}

function describe(e: ErrorObject): { code: ErrorCode; detail: string } {
  switch (e.keyword) {
    case 'required':
      return { code: 'parameter_invalid', detail: 'is required' };
    case 'additionalProperties':
      return { code: 'parameter_invalid', detail: 'is not a field of this body' };
    case 'enum':
      return { code: 'vocabulary_value_unknown', detail: `must be one of: ${(e.params as { allowedValues: unknown[] }).allowedValues.join(', ')}` };
    case 'const':
      return { code: 'vocabulary_value_unknown', detail: `must be ${JSON.stringify((e.params as { allowedValue: unknown }).allowedValue)}` };
    default:
      return { code: 'parameter_invalid', detail: e.message ?? 'is not valid' };
  }
}

/** Compile a body schema (at start-up, so a bad one fails the process, not a request). */
export function compileSchema(schema: JsonSchema): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  return validate;
}

export function validateBody(schema: JsonSchema, body: unknown): void {
  const validate = compileSchema(schema);
  if (body === undefined) body = null;
  if (validate(body)) return;
  const errors = (validate.errors ?? [])
    .filter((e) => !['if', 'anyOf', 'oneOf'].includes(e.keyword))
    .map((e) => ({ field: fieldName(e), ...describe(e) }));
  if (errors.length === 0) errors.push({ field: 'body', code: 'parameter_invalid', detail: 'does not match the expected shape' });
  const [first, ...rest] = errors;
  throw new ApiError(first.code, {
    field: first.field,
    detail: body === null ? 'A JSON body is required.' : `${first.field} ${first.detail}`,
    errors: rest.map((e) => ({ field: e.field, code: e.code, detail: `${e.field} ${e.detail}` })),
  });
}
