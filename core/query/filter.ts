// The filter grammar of spec 4.0.5: `filter[<field>][<op>]=<value>`.
// Values of one parameter repeated are ORed; different parameters (another field, or another
// operator on the same field) are ANDed, so `[gte]` and `[lte]` on one field make a range.
// Each condition compiles to boolean SQL that is NULL when the row's value is NULL: SQL's
// three-valued logic then gives match (TRUE), excluded (FALSE) and indeterminate (NULL).
import { ApiError, invalid, unknownValue } from '../errors.ts';
import { isDate, parseDateTime } from '../time.ts';
import { type FieldDef, type FieldType, type ResourceDef, type SqlContext, castOf, sqlOf } from './resource.ts';

export const OPERATORS = ['eq', 'ne', 'in', 'nin', 'lt', 'lte', 'gt', 'gte', 'between', 'prefix', 'contains', 'is_null', 'not_null', 'any', 'all', 'permits', 'forbids'] as const;
export type Operator = (typeof OPERATORS)[number];

const ORDERED: readonly Operator[] = ['eq', 'ne', 'in', 'nin', 'lt', 'lte', 'gt', 'gte', 'between', 'is_null', 'not_null'];
export const OPS_BY_TYPE: Record<FieldType, readonly Operator[]> = {
  string: [...ORDERED, 'prefix', 'contains'],
  integer: ORDERED,
  number: ORDERED,
  date: ORDERED,
  timestamp: ORDERED,
  boolean: ['eq', 'ne', 'is_null', 'not_null'],
  enum: ['eq', 'ne', 'in', 'nin', 'is_null', 'not_null'],
  'string[]': ['contains', 'any', 'all', 'is_null', 'not_null'],
  permission: ['permits', 'forbids'],
};

export const MAX_LIST = 100;

/** One parameter `filter[field][op]`; its operands (one per repetition) are ORed. */
export interface FilterGroup {
  field: string;
  op: Operator;
  param: string;
  operands: unknown[];
}

/** `text` is what request.param shows. */
export interface FilterSet {
  groups: FilterGroup[];
  text: string;
}

export type IndeterminateMode = 'include' | 'exclude' | 'only';

export function filterFields(def: ResourceDef): string[] {
  return Object.entries(def.fields)
    .filter(([, f]) => f.filterable !== false && !f.requiresQuery)
    .map(([n]) => n)
    .sort();
}

function scalar(f: FieldDef, raw: string, param: string): unknown {
  switch (f.type) {
    case 'integer': {
      const n = Number(raw);
      if (!/^-?\d+$/.test(raw) || !Number.isSafeInteger(n)) throw invalid(param, `${JSON.stringify(raw)} is not a whole number`);
      return n;
    }
    case 'number': {
      const n = Number(raw);
      if (raw.trim() === '' || !Number.isFinite(n)) throw invalid(param, `${JSON.stringify(raw)} is not a number`);
      return n;
    }
    case 'boolean':
      if (raw === 'true' || raw === '1') return true;
      if (raw === 'false' || raw === '0') return false;
      throw invalid(param, `${JSON.stringify(raw)} is not true or false`);
    case 'date':
      if (!isDate(raw)) throw invalid(param, `${JSON.stringify(raw)} is not a date (YYYY-MM-DD)`);
      return raw;
    case 'timestamp': {
      if (isDate(raw)) return `${raw}T00:00:00Z`;
      const t = parseDateTime(raw, param);
      if (!t) throw invalid(param, `${JSON.stringify(raw)} is not a timestamp (a date, or a date-time with offset)`);
      return t;
    }
    default:
      if (f.enum && !f.enum.includes(raw)) throw unknownValue(param, raw, f.enum);
      if (raw === '') throw invalid(param, 'is empty');
      if (raw.length > 2000) throw invalid(param, 'is longer than 2000 characters');
      return raw;
  }
}

function list(f: FieldDef, raw: string, param: string): unknown[] {
  const parts = raw.split(',').map((s) => s.trim());
  if (parts.some((p) => p === '')) throw invalid(param, 'takes a comma-separated list without empty values');
  if (parts.length > MAX_LIST) throw invalid(param, `takes at most ${MAX_LIST} values`);
  const element: FieldDef = f.type === 'string[]' ? { ...f, type: 'string' } : f;
  return [...new Set(parts.map((p) => scalar(element, p, param)))];
}

function operand(f: FieldDef, op: Operator, raw: string, param: string): unknown {
  switch (op) {
    case 'in':
    case 'nin':
    case 'any':
    case 'all':
      return list(f, raw, param);
    case 'between': {
      const parts = raw.split(',').map((s) => s.trim());
      if (parts.length !== 2) throw invalid(param, 'between takes two values: low,high');
      const [lo, hi] = parts.map((p) => scalar(f, p, param)) as [string | number, string | number];
      if (f.type !== 'string' && lo > hi) throw invalid(param, `the low end (${parts[0]}) is above the high end (${parts[1]})`);
      return [lo, hi];
    }
    case 'is_null':
    case 'not_null':
      if (raw === '' || raw === 'true' || raw === '1') return true;
      if (raw === 'false' || raw === '0') return false;
      throw invalid(param, `${op} takes true or false`);
    case 'contains':
    case 'prefix':
    case 'permits':
    case 'forbids':
      return scalar({ ...f, type: f.type === 'permission' ? 'permission' : 'string' }, raw, param);
    default:
      return scalar(f, raw, param);
  }
}

/** Parse the "key=value" texts of the filter prefix parameter against a resource. */
export function parseFilter(def: ResourceDef, raws: string[]): FilterSet {
  const groups = new Map<string, FilterGroup>();
  for (const raw of raws) {
    const eq = raw.indexOf('=');
    const key = raw.slice(0, eq);
    const value = raw.slice(eq + 1);
    const m = /^filter\[([^[\]]*)\](?:\[([^[\]]*)\])?$/.exec(key);
    if (!m) throw invalid(key, 'a filter is written filter[<field>][<operator>]=<value>');
    const [, name, op] = m;
    const f = def.fields[name];
    const fields = filterFields(def);
    if (!f || !fields.includes(name)) {
      throw new ApiError('field_unknown', { field: key, detail: `${JSON.stringify(name)} is not a field this list filters on. Filter fields: ${fields.join(', ')}.` });
    }
    const allowed = OPS_BY_TYPE[f.type];
    if (op === undefined) throw invalid(key, `name an operator: filter[${name}][<op>] with one of ${allowed.join(', ')}`);
    if (!(OPERATORS as readonly string[]).includes(op)) throw invalid(key, `${JSON.stringify(op)} is not a filter operator. Operators: ${OPERATORS.join(', ')}.`);
    if (!allowed.includes(op as Operator)) throw invalid(key, `${name} is a ${f.type} field; its operators are ${allowed.join(', ')}`);
    const parsed = operand(f, op as Operator, value, key);
    const g = groups.get(key) ?? { field: name, op: op as Operator, param: key, operands: [] };
    g.operands.push(parsed);
    groups.set(key, g);
  }
  return { groups: [...groups.values()], text: [...raws].sort().join('&') };
}

/** Add a condition that a plain parameter stands for (e.g. `population[gte]`): ANDed with the rest. */
export function addCondition(set: FilterSet | undefined, g: FilterGroup): FilterSet {
  const groups = [...(set?.groups ?? []), g];
  const text = [set?.text, ...g.operands.map((o) => `${g.param}=${o}`)].filter(Boolean).join('&');
  return { groups, text };
}

function condition(f: FieldDef, op: Operator, v: unknown, expr: string, c: SqlContext): string {
  const cast = castOf(f);
  const b = (x: unknown) => c.bind(x, cast);
  const cmp: Partial<Record<Operator, string>> = { eq: '=', ne: '<>', lt: '<', lte: '<=', gt: '>', gte: '>=' };
  switch (op) {
    case 'in':
      return `${expr} = ANY(${c.bind(v, `${cast}[]`)})`;
    case 'nin':
      return `${expr} <> ALL(${c.bind(v, `${cast}[]`)})`;
    case 'between': {
      const [lo, hi] = v as unknown[];
      return `${expr} BETWEEN ${b(lo)} AND ${b(hi)}`;
    }
    case 'prefix':
      return `starts_with(lower(${expr}), lower(${c.bind(v, 'text')}))`;
    case 'contains':
      return f.type === 'string[]' ? `${expr} @> ARRAY[${c.bind(v, 'text')}]` : `strpos(lower(${expr}), lower(${c.bind(v, 'text')})) > 0`;
    case 'any':
      return `${expr} && ${c.bind(v, 'text[]')}`;
    case 'all':
      return `${expr} @> ${c.bind(v, 'text[]')}`;
    case 'is_null':
      return `(${expr}) IS ${v ? '' : 'NOT '}NULL`;
    case 'not_null':
      return `(${expr}) IS ${v ? 'NOT ' : ''}NULL`;
    case 'permits':
    case 'forbids':
      return `(${f.permission![op](c.bind(v, 'text'), c)})`;
    default:
      return `${expr} ${cmp[op]} ${b(v)}`;
  }
}

/** The filter as one boolean SQL expression (TRUE match, NULL indeterminate, FALSE out); null without filters. */
export function compileFilter(def: ResourceDef, set: FilterSet | undefined, c: SqlContext): string | null {
  if (!set || set.groups.length === 0) return null;
  const parts = set.groups.map((g) => {
    const f = def.fields[g.field];
    if (f.type === 'permission' && !f.permission) throw new Error(`permission field ${g.field} has no permits/forbids SQL`);
    const expr = f.type === 'permission' ? '' : `(${sqlOf(f.sql, c)})`;
    const ors = g.operands.map((v) => condition(f, g.op, v, expr, c));
    return ors.length === 1 ? ors[0] : `(${ors.join(' OR ')})`;
  });
  return parts.map((p) => `(${p})`).join(' AND ');
}

/** WHERE clause for the indeterminate mode over a compiled filter. */
export function modeClause(filter: string, mode: IndeterminateMode): string {
  if (mode === 'exclude') return `(${filter}) IS TRUE`;
  if (mode === 'only') return `(${filter}) IS NULL`;
  return `(${filter}) IS NOT FALSE`;
}
