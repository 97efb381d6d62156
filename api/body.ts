// Request bodies: JSON only, size-limited, validated against the route's JSON Schema. Every
// body, whatever its route, is first refused if any string (value or key) holds a NUL byte or a
// lone surrogate (PostgreSQL can hold neither); formats date and date-time are calendar-checked.
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type Koa from 'koa';
import { ApiError, type ErrorCode, invalid } from '../core/errors.ts';
import { isDate, parseDateTime } from '../core/time.ts';
import type { RequestState } from './middleware/context.ts';
import type { JsonSchema } from './route.ts';

const ajv = new Ajv2020({ allErrors: true, strict: false, strictNumbers: true });
(addFormats as unknown as (a: Ajv2020) => void)(ajv);
ajv.addFormat('date', { type: 'string', validate: isDate });
ajv.addFormat('date-time', {
  type: 'string',
  validate: (s: string) => {
    try {
      return /^\d{4}-\d{2}-\d{2}T/i.test(s) && parseDateTime(s, 'date-time') !== null;
    } catch {
      return false;
    }
  },
});
const compiled = new WeakMap<JsonSchema, ValidateFunction>();

/**
 * A form body (a route with formBody): fields as sent, a field sent without a value left out and
 * a field sent twice named in `repeated` (RFC 6749 3.1, 3.2); `form` false when the body is not
 * application/x-www-form-urlencoded. The handler decides what to refuse.
 */
export interface FormBody {
  form: boolean;
  fields: Record<string, string>;
  repeated: string[];
}

/** Fields of a form or query string by OAuth's rules: empty values left out, repeated names listed. */
export function formFields(params: URLSearchParams): Omit<FormBody, 'form'> {
  const fields: Record<string, string> = {};
  const repeated = new Set<string>();
  for (const [k, v] of params) {
    const why = textProblem(k) ?? textProblem(v);
    if (why) throw invalid(k, `${k} ${why}`);
    if (v === '') continue;
    if (Object.hasOwn(fields, k)) repeated.add(k);
    fields[k] = v;
  }
  return { fields, repeated: [...repeated] };
}

function readForm(ctx: Koa.Context, bytes: Buffer): FormBody {
  const form = /^application\/x-www-form-urlencoded\s*(;|$)/i.test(ctx.get('content-type'));
  return { form, ...(form ? formFields(new URLSearchParams(bytes.toString('utf8'))) : { fields: {}, repeated: [] }) };
}

/** The body of the matched route: JSON, or a form where the route declares one (dispatch reads it through here). */
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
  if ((ctx.state.landlex as RequestState | undefined)?.route?.formBody) return readForm(ctx, Buffer.concat(chunks));
  if (size === 0) return undefined;
  const type = ctx.get('content-type');
  if (!/^application\/([\w.+-]*\+)?json\b/i.test(type)) {
    throw new ApiError('media_type_unsupported', { field: 'Content-Type', detail: `Send bodies as application/json, not ${type || 'no type'}.` });
  }
  let body: unknown;
  try {
    body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch (err) {
    throw new ApiError('body_malformed', { field: 'body', detail: `The body is not valid JSON: ${(err as Error).message}` });
  }
  checkValues(body, []);
  return body;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function textProblem(s: string): string | null {
  if (s.includes('\u0000')) return 'contains a NUL byte (\\u0000), which no value may hold';
  if (LONE_SURROGATE.test(s)) return 'contains a lone UTF-16 surrogate, which is not text';
  return null;
}

/** Refuses, naming the field, any string or key no value may hold and any number JSON cannot carry (1e999). */
function checkValues(v: unknown, path: Array<string | number>): void {
  if (typeof v === 'string') {
    const why = textProblem(v);
    if (why) throw invalid(dotted(path), `${dotted(path)} ${why}`);
  } else if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw invalid(dotted(path), `${dotted(path)} is out of range`);
  } else if (Array.isArray(v)) {
    for (const [i, x] of v.entries()) checkValues(x, [...path, i]);
  } else if (v && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) {
      const why = textProblem(k);
      if (why) throw invalid(dotted([...path, k]), `the field name ${JSON.stringify(k)} ${why}`);
      checkValues(x, [...path, k]);
    }
  }
}

/** item[3].lat from its parts. */
function dotted(parts: Array<string | number>): string {
  let out = '';
  for (const p of parts) out += typeof p === 'number' || /^\d+$/.test(p) ? `[${p}]` : out ? `.${p}` : p;
  return out || 'body';
}

/** JSON pointer (/item/3/lat) to the dotted field name clients send (item[3].lat). */
function fieldName(e: ErrorObject): string {
  const parts = e.instancePath.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (e.keyword === 'required') parts.push(String((e.params as { missingProperty: string }).missingProperty));
  if (e.keyword === 'additionalProperties') parts.push(String((e.params as { additionalProperty: string }).additionalProperty));
  return dotted(parts);
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
