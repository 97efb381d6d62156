// A query or path parameter as a route or a query-language module declares it: its type, bounds,
// enumeration and how its text is read. api/params.ts parses requests by these declarations.

/** A JSON Schema fragment (for the OpenAPI document). */
export type JsonSchema = Record<string, unknown>;

/** date: YYYY-MM-DD, a real calendar date; timestamp: a date (its 00:00Z) or a date-time with offset */
export type ParamType = 'string' | 'integer' | 'number' | 'boolean' | 'date' | 'timestamp' | 'array';

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

