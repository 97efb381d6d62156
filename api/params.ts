// Query and path parameters declared as data, parsed and validated before a handler runs.
// A bad value is 422 naming the field; a value outside an enumeration is vocabulary_value_unknown.
import { ApiError, invalid, unknownValue } from '../core/errors.ts';
import type { JsonSchema } from './route.ts';

export type ParamType = 'string' | 'integer' | 'number' | 'boolean' | 'date' | 'array';

export interface Param {
  name: string;
  in: 'query' | 'path';
  type: ParamType;
  description?: string;
  required?: boolean;
  enum?: readonly string[];
  /** element type of an array: repeated (`a=1&a=2`) or comma-separated (`a=1,2`) */
  items?: { type: Exclude<ParamType, 'array'>; enum?: readonly string[] };
  min?: number;
  max?: number;
  maxItems?: number;
  default?: unknown;
  /** takes every key of the form name[...] (filter[field][op], deepObject) */
  prefix?: boolean;
  /** custom parser: raw text (or texts, when repeated) to value; throw ApiError to refuse */
  parse?: (raw: string[], name: string) => unknown;
  /** schema for the OpenAPI document when the type alone does not say enough */
  schema?: JsonSchema;
}

export type RawQuery = Record<string, string | string[] | undefined>;

const DATE = /^\d{4}-\d{2}-\d{2}$/;

export function isValidDate(s: string): boolean {
  if (!DATE.test(s)) return false;
  const d = new Date(`${s}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s;
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
      if (!isValidDate(raw)) throw invalid(field, `${JSON.stringify(raw)} is not a date (YYYY-MM-DD)`);
      return raw;
    default:
      if (allowed && !allowed.includes(raw)) throw unknownValue(field, raw, allowed);
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

/**
 * Parse one parameter list against raw query and path values. Returns the parsed values keyed
 * by name; unknown query keys are refused unless allowExtra.
 */
export function parseParams(
  defs: Param[],
  query: RawQuery,
  path: Record<string, string>,
  opts: { allowExtra?: boolean } = {},
): Record<string, any> {
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
    if (p.parse) {
      out[p.name] = p.parse(raws, p.name);
      continue;
    }
    if (p.type === 'array') {
      const parts = raws.flatMap((r) => r.split(',')).map((s) => s.trim()).filter((s) => s !== '');
      if (parts.length === 0 && p.required) throw invalid(p.name, `${p.name} is required`);
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

/** The JSON Schema of a parameter, for the OpenAPI document. */
export function paramSchema(p: Param): JsonSchema {
  if (p.schema) return p.schema;
  const base = (t: Exclude<ParamType, 'array'>, e?: readonly string[]): JsonSchema => {
    if (t === 'date') return { type: 'string', format: 'date' };
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
