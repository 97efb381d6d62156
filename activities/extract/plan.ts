// From an extract request to a plan: the resource, the jurisdictions in scope, the times pinned
// (defaults fixed when the extract is created, so a retry writes the same rows), the columns and
// the filter. The same plan prices the extract (row_estimate) and drives the activity.
import { parseFilter } from '../../core/query/filter.ts';
import { resolveScope } from '../../core/query/scope.ts';
import { ApiError, invalid, unknownValue } from '../../core/errors.ts';
import { parseTimeText, resolveAsOf, resolveKnownAsOf } from '../../core/time.ts';
import type { Queryable } from '../../store/db.ts';
import { settledAnywhere } from '../../store/changes.ts';
import { type ExtractFormat, FORMAT_SPECS, FORMATS } from './formats.ts';
import { type ExtractResource, RESOURCES, RESOURCE_NAMES, filterDef } from './resources.ts';
import { countQuery } from './sql.ts';

export { type ExtractFormat, FORMATS } from './formats.ts';

/** Valid time: one date per jurisdiction (its local date of the instant asked), or a date interval. */
export type AsOfPlan = { kind: 'instant'; text: string; dates: Record<string, string> } | { kind: 'interval'; text: string; from: string; to: string };

export interface ExtractPlan {
  resource: string;
  format: ExtractFormat;
  jurisdictions: string[];
  /** null for resources without valid time */
  asOf: AsOfPlan | null;
  /** ISO instant */
  knownAsOf: string;
  fields: string[];
  /** filter[<field>][<op>]=<value> texts of the collection grammar */
  filter: string[];
  /** only rows with a geometry (FlatGeobuf); `leftOut` counts the others, at the pinned times */
  geometryRequired?: boolean;
  leftOut?: number;
}

export interface ExtractRequest {
  resource: string;
  format: ExtractFormat;
  scope: Record<string, unknown>;
  filter?: Record<string, unknown>;
  as_of?: string;
  known_as_of?: string;
  field?: string[];
}

export const ROWS_PER_CREDIT = 1000;

/** One credit per 1,000 rows, at least one. */
export function creditsFor(rows: number): number {
  return Math.max(1, Math.ceil(rows / ROWS_PER_CREDIT));
}

export function resourceOf(name: string): ExtractResource {
  const r = RESOURCES[name];
  if (!r) throw unknownValue('resource', name, RESOURCE_NAMES);
  return r;
}

const LIST_OPS = new Set(['in', 'nin', 'any', 'all', 'between']);

function operandText(v: unknown, field: string): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  throw invalid(field, 'takes a string, a number or true/false');
}

/**
 * The body's filter `{"<field>": {"<op>": value}}` as texts of the query grammar. List operators
 * take an array (or a comma-separated string); others take one value, or an array of values ORed.
 */
export function filterTexts(filter: Record<string, unknown> | undefined): string[] {
  const out: string[] = [];
  for (const [name, ops] of Object.entries(filter ?? {})) {
    if (!ops || typeof ops !== 'object' || Array.isArray(ops) || Object.keys(ops).length === 0) {
      throw invalid(`filter.${name}`, 'write {"<operator>": value}, e.g. {"eq": "R-1"}');
    }
    for (const [op, value] of Object.entries(ops as Record<string, unknown>)) {
      const field = `filter.${name}.${op}`;
      const key = `filter[${name}][${op}]`;
      if (LIST_OPS.has(op) && Array.isArray(value)) out.push(`${key}=${value.map((v) => operandText(v, field)).join(',')}`);
      else if (Array.isArray(value)) for (const v of value) out.push(`${key}=${operandText(v, field)}`);
      else out.push(`${key}=${operandText(value, field)}`);
    }
  }
  return out;
}

/** Check filter texts against the resource; refusals name the body's field (filter.area_m2.gte). */
export function checkFilter(r: ExtractResource, texts: string[]): void {
  try {
    parseFilter(filterDef(r), texts);
  } catch (err) {
    if (!(err instanceof ApiError) || !err.field) throw err;
    const m = /^filter\[([^[\]]*)\](?:\[([^[\]]*)\])?$/.exec(err.field);
    const parts = m ? ['filter', m[1], err.code === 'field_unknown' ? undefined : m[2]] : [err.field];
    throw new ApiError(err.code, { field: parts.filter(Boolean).join('.'), detail: err.detail });
  }
}

/** Columns asked, in order, with the fixed ones first; every column when none is asked. */
export function selectFields(r: ExtractResource, asked: string[] | undefined): string[] {
  const all = r.columns.map((c) => c.name);
  if (!asked || asked.length === 0) return all;
  const unknown = asked.filter((n) => !all.includes(n));
  if (unknown.length) {
    throw new ApiError('field_unknown', { field: 'field', detail: `${unknown.map((u) => JSON.stringify(u)).join(', ')} ${unknown.length > 1 ? 'are not fields' : 'is not a field'} of ${r.name}. Fields: ${all.join(', ')}.` });
  }
  return [...new Set([...r.fixed, ...asked])];
}

function asOfPlan(r: ExtractResource, text: string | undefined, zones: Map<string, string>, now: Date): AsOfPlan | null {
  if (r.time !== 'bitemporal') {
    if (text !== undefined) throw invalid('as_of', `${r.name} rows have no valid time; send known_as_of only`);
    return null;
  }
  const spec = text === undefined ? undefined : parseTimeText(text, 'as_of');
  const first = [...zones.values()][0] ?? 'UTC';
  const probe = resolveAsOf(spec, first, now);
  if (probe.kind === 'interval') return { kind: 'interval', text: probe.text, from: probe.from, to: probe.to };
  const dates: Record<string, string> = {};
  for (const [id, tz] of zones) dates[id] = (resolveAsOf(spec, tz, now) as { date: string }).date;
  return { kind: 'instant', text: probe.text, dates };
}

export interface PlanOptions {
  /** the most rows of a format built in memory (Geobuf); default the format's own maxRows */
  maxRows?: number;
}

export interface PlannedExtract {
  plan: ExtractPlan;
  rowEstimate: number;
  creditEstimate: number;
}

/**
 * Resolve scope and times, check fields and filter, and count the rows the extract would write;
 * a format built in memory (Geobuf) refuses more than its row limit, naming `format`.
 * A saved region is the organization's own (none without one) and resolves at the extract's as_of.
 */
export async function planExtract(db: Queryable, req: ExtractRequest, now = new Date(), organizationId: string | null = null, opts: PlanOptions = {}): Promise<PlannedExtract> {
  const r = resourceOf(req.resource);
  if (!(FORMATS as readonly string[]).includes(req.format)) throw unknownValue('format', req.format, FORMATS);
  const scopeParams = { ...req.scope };
  if (typeof scopeParams.jurisdiction === 'string') scopeParams.jurisdiction = [scopeParams.jurisdiction];
  if (scopeParams.geometry && typeof scopeParams.geometry === 'object') scopeParams.geometry = JSON.stringify(scopeParams.geometry);
  const regionAsOf = req.as_of === undefined ? undefined : parseTimeText(req.as_of, 'as_of');
  const scope = await resolveScope(db, scopeParams, { organizationId, asOf: regionAsOf, now }).catch((err: unknown) => {
    if (err instanceof ApiError && err.field) throw new ApiError(err.code, { field: `scope.${err.field}`, detail: err.detail });
    throw err;
  });
  if (scope.ids.length === 0) throw invalid('scope', `no jurisdiction is held in ${scope.label}`);
  const { rows } = await db.query('SELECT id, timezone FROM jurisdiction WHERE id = ANY($1::text[]) ORDER BY id', [scope.ids]);
  const zones = new Map<string, string>(rows.map((j) => [j.id as string, j.timezone as string]));

  const fields = selectFields(r, req.field);
  const spec = FORMAT_SPECS[req.format];
  if (spec.geometryRequired) {
    const g = r.columns.find((c) => c.type === 'geometry');
    if (!g) throw invalid('format', `${req.format} holds features with a geometry and ${r.name} rows have none; use gpkg or geojsonseq`);
    // the geometry is what the format is for: kept like id
    if (!fields.includes(g.name)) fields.push(g.name);
  }
  const filter = filterTexts(req.filter);
  checkFilter(r, filter);
  const known = resolveKnownAsOf(req.known_as_of === undefined ? undefined : parseTimeText(req.known_as_of, 'known_as_of'), now);
  if (known.kind === 'interval') throw invalid('known_as_of', 'an extract is taken as known at one instant; send a date or a date-time');
  // inside a load's window, as known just before it began: the file is the same whenever it runs
  const knownAsOf = await settledAnywhere(db, known.instant);
  const plan: ExtractPlan = { resource: r.name, format: req.format, jurisdictions: [...zones.keys()], asOf: asOfPlan(r, req.as_of, zones, now), knownAsOf, fields, filter };
  const countRows = async (p: ExtractPlan) => {
    const count = countQuery(p);
    return Number((await db.query(count.sql, count.values)).rows[0].n);
  };
  if (spec.geometryRequired) plan.geometryRequired = true;
  const n = await countRows(plan);
  if (spec.geometryRequired) plan.leftOut = (await countRows({ ...plan, geometryRequired: false })) - n;
  const maxRows = spec.maxRows === undefined ? undefined : (opts.maxRows ?? spec.maxRows);
  if (maxRows !== undefined && n > maxRows) {
    const fmt = (x: number) => x.toLocaleString('en-US');
    throw invalid('format', `${req.format} is encoded whole in memory and holds at most ${fmt(maxRows)} rows; this extract has ${fmt(n)}. Narrow the scope or the filter, or use geojsonseq or flatgeobuf`);
  }
  return { plan, rowEstimate: n, creditEstimate: creditsFor(n) };
}
