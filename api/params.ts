// Query and path parameters declared as data, parsed and validated before a handler runs.
// A bad value is 422 naming the field; a value outside an enumeration is vocabulary_value_unknown.
// Every value, declared or not, is first checked for NUL bytes (PostgreSQL cannot hold them), so
// no route or custom parser can pass one on. Dates are calendar dates (core/time.ts).
import { ApiError, type ErrorCode, invalid, unknownValue } from '../core/errors.ts';
import { isDate, parseDateTime } from '../core/time.ts';
import type { JsonSchema } from './route.ts';

export type { Param, ParamType } from '../core/query/param.ts';
import type { Param, ParamType } from '../core/query/param.ts';

export type RawQuery = Record<string, string | string[] | undefined>;

/** A real calendar date, YYYY-MM-DD (years from 1000). */
export const isValidDate = isDate;

/** Why a text cannot be taken at all, whatever the parameter (null when it can). */
export function unacceptableText(s: string): string | null {
  if (s.includes('\u0000')) return 'contains a NUL byte (%00), which no value may hold';
  return null;
}

function scalar(type: Exclude<ParamType, 'array'>, raw: string, p: Param, field: string, allowed?: readonly string[]): unknown {
  switch (type) {
    case 'integer': {
      if (!/^-?\d+$/.test(raw)) throw invalid(field, `${JSON.stringify(raw)} is not a whole number`);
      const n = Number(raw);
      if (!Number.isSafeInteger(n)) throw invalid(field, `${raw} is out of range`);
      checkRange(n, p, field);
      return n;
    }
    case 'number': {
      const n = Number(raw);
      if (raw.trim() === '' || !Number.isFinite(n)) throw invalid(field, `${JSON.stringify(raw)} is not a number`);
      checkRange(n, p, field);
      return n;
    }
    case 'boolean':
      if (raw === 'true' || raw === '1') return true;
      if (raw === 'false' || raw === '0') return false;
      throw invalid(field, `${JSON.stringify(raw)} is not true or false`);
    case 'date':
      if (!isValidDate(raw)) throw invalid(field, `${JSON.stringify(raw)} is not a calendar date (YYYY-MM-DD)`);
      return raw;
    case 'timestamp': {
      if (isValidDate(raw)) return `${raw}T00:00:00Z`;
      const t = parseDateTime(raw, field);
      if (!t) throw invalid(field, `${JSON.stringify(raw)} is not a date (YYYY-MM-DD) or a date-time with offset (2024-05-01T10:00:00Z)`);
      return t;
    }
    default:
      if (allowed && !allowed.includes(raw)) throw unknownValue(field, raw, allowed);
      if (raw === '') throw invalid(field, `${field} is empty; leave it out, or give a value`);
      if (raw.length > 2000) throw invalid(field, 'is longer than 2000 characters');
      return raw;
  }
}

function checkRange(n: number, p: Param, field: string) {
  if (p.min !== undefined && n < p.min) throw invalid(field, `must be at least ${p.min}`);
  if (p.max !== undefined && n > p.max) throw invalid(field, `must be at most ${p.max}`);
}

function asList(v: string | string[] | undefined): string[] {
  if (v === undefined) return [];
  return Array.isArray(v) ? v : [v];
}

/** Refuses any path value, query key or query value that no parameter may hold. */
function checkTexts(query: RawQuery, path: Record<string, string>) {
  for (const [name, value] of Object.entries(path)) {
    const why = unacceptableText(value);
    if (why) throw invalid(name, `${name} ${why}`);
  }
  for (const [key, value] of Object.entries(query)) {
    for (const s of [key, ...asList(value)]) {
      const why = unacceptableText(s);
      if (why) throw invalid(key, `${key} ${why}`);
    }
  }
}

export interface ParseOptions {
  /** unknown query parameters are accepted (and still checked for NUL bytes) */
  allowExtra?: boolean;
  /** the code a refused value answers with instead of 422 (OGC API Features answers 400) */
  refusal?: ErrorCode;
}

/**
 * Parse one parameter list against raw query and path values. Returns the parsed values keyed
 * by name; unknown query keys are refused unless allowExtra.
 */
export function parseParams(defs: Param[], query: RawQuery, path: Record<string, string>, opts: ParseOptions = {}): Record<string, any> {
  if (!opts.refusal) return parseAll(defs, query, path, opts);
  try {
    return parseAll(defs, query, path, opts);
  } catch (err) {
    if (err instanceof ApiError && (err.code === 'parameter_invalid' || err.code === 'vocabulary_value_unknown')) {
      throw new ApiError(opts.refusal, { field: err.field, detail: err.detail, headers: err.headers });
    }
    throw err;
  }
}

function parseAll(defs: Param[], query: RawQuery, path: Record<string, string>, opts: ParseOptions): Record<string, any> {
  checkTexts(query, path);
  const out: Record<string, any> = {};
  const used = new Set<string>();

  for (const p of defs) {
    let raws: string[];
    if (p.in === 'path') {
      raws = path[p.name] === undefined ? [] : [path[p.name]];
    } else if (p.prefix) {
      const keys = Object.keys(query).filter((k) => k === p.name || k.startsWith(`${p.name}[`));
      for (const k of keys) used.add(k);
      if (keys.length === 0) {
        if (p.default !== undefined) out[p.name] = p.default;
        continue;
      }
      // prefix parsers receive "key=value" pairs so they can read the bracketed parts
      raws = keys.flatMap((k) => asList(query[k]).map((v) => `${k}=${v}`));
    } else {
      raws = asList(query[p.name]);
      used.add(p.name);
    }

    if (raws.length === 0) {
      if (p.required) throw new ApiError('parameter_invalid', { field: p.name, detail: `${p.name} is required` });
      if (p.default !== undefined) out[p.name] = p.default;
      continue;
    }
    // one value for a parameter that takes one, whoever parses it (a custom parser reading raws[0] would drop the rest)
    if (p.type !== 'array' && !p.prefix && raws.length > 1) throw invalid(p.name, `${p.name} was given ${raws.length} times; it takes one value`);
    if (p.parse) {
      out[p.name] = p.parse(raws, p.name);
      continue;
    }
    if (p.type === 'array') {
      const parts = raws.flatMap((r) => r.split(',')).map((s) => s.trim()).filter((s) => s !== '');
      if (parts.length === 0) throw invalid(p.name, p.required ? `${p.name} is required` : `${p.name} is empty; leave it out, or give a value`);
      if (p.maxItems !== undefined && parts.length > p.maxItems) throw invalid(p.name, `at most ${p.maxItems} values`);
      const itemType = p.items?.type ?? 'string';
      out[p.name] = [...new Set(parts.map((s) => scalar(itemType, s, p, p.name, p.items?.enum)))];
      continue;
    }
    if (raws.length > 1) throw invalid(p.name, `${p.name} was given ${raws.length} times; it takes one value`);
    out[p.name] = scalar(p.type, raws[0], p, p.name, p.enum);
  }

  if (!opts.allowExtra) {
    for (const key of Object.keys(query)) {
      if (!used.has(key)) {
        const known = defs.filter((d) => d.in === 'query').map((d) => d.name);
        throw new ApiError('parameter_invalid', {
          field: key,
          detail: `Unknown parameter ${key}. This operation takes: ${known.join(', ') || 'no query parameters'}.`,
        });
      }
    }
  }
  return out;
}

/**
 * 404 means that no record has the id in the path, and nothing else (spec 1.2.3): an id given in
 * the query or a body that names nothing is a parameter not accepted, 422 naming it.
 */
export function asParameterRefusal(err: unknown, defs: Param[]): unknown {
  if (!(err instanceof ApiError) || err.code !== 'no_such_resource' || err.field === null) return err;
  if (defs.some((p) => p.in === 'path' && p.name === err.field)) return err;
  return new ApiError('parameter_invalid', { field: err.field, detail: err.detail, headers: err.headers });
}

/** The JSON Schema of a parameter, for the OpenAPI document. */
export function paramSchema(p: Param): JsonSchema {
  if (p.schema) return p.schema;
  const base = (t: Exclude<ParamType, 'array'>, e?: readonly string[]): JsonSchema => {
    if (t === 'date') return { type: 'string', format: 'date' };
    if (t === 'timestamp') return { anyOf: [{ type: 'string', format: 'date' }, { type: 'string', format: 'date-time' }] };
    const s: JsonSchema = { type: t };
    if (e) s.enum = [...e];
    return s;
  };
  if (p.type === 'array') return { type: 'array', items: base(p.items?.type ?? 'string', p.items?.enum) };
  const s = base(p.type, p.enum);
  if (p.min !== undefined) s.minimum = p.min;
  if (p.max !== undefined) s.maximum = p.max;
  if (p.default !== undefined) s.default = p.default;
  return s;
}
