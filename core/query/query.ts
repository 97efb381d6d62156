// One page of a collection: filter, sort, keyset cursor, snapshot and total, over a resource
// definition. One SELECT per page (LIMIT size+1 tells whether more follow); `total` is a capped
// count on the first page only, never COUNT(*) on every page.
import { createHash } from 'node:crypto';
import type { Queryable } from '../../store/db.ts';
import { ApiError, invalid } from '../errors.ts';
import { type CursorPayload, checkCursor, openCursor, signCursor } from './cursor.ts';
import { compileFilter, type FilterSet, type IndeterminateMode, modeClause } from './filter.ts';
import { castOf, type ResourceDef, SqlBuilder, type SqlContext, sqlOf } from './resource.ts';
import { effectiveSort, type SortSpec } from './sort.ts';

/** A database row as pg returns it. */
// biome-ignore lint/suspicious/noExplicitAny: rows are shaped by the resource's SELECT
export type Row = Record<string, any>;

export const DEFAULT_SIZE = 25;
export const MAX_SIZE = 200;
export const TOTAL_CAP = 10_000;

/** Parsed collection parameters (collectionParams gives them these names). */
export interface CollectionParams {
  size?: number;
  cursor?: string;
  total?: boolean;
  sort?: SortSpec;
  filter?: FilterSet;
  filter_indeterminate?: IndeterminateMode;
  include_unknown?: boolean;
}

/** A route's own condition (state=, q=…): SQL over the resource, values bound through c. */
export type Where = (c: SqlContext) => string;

export interface CollectionOptions<T> {
  where?: Where[];
  /** the text query, for fields that rank against it (relevance) */
  query?: string;
  /** pin the first page to this instant (e.g. the known_as_of asked); default: the statement's time */
  snapshot?: string | null;
  /** row to item; filter_outcome is added when a filter was given */
  map?: (row: Row) => T;
  now?: Date;
  totalCap?: number;
  retentionSeconds?: number;
}

export interface Total {
  value: number;
  relation: 'eq' | 'gte';
}

export interface CollectionPage {
  size: number;
  next_cursor: string | null;
  indeterminate: number;
  total?: Total;
}

export interface CollectionResult<T> {
  items: T[];
  page: CollectionPage;
  /** the snapshot this page was pinned to (ISO, UTC); null on an empty first page */
  snapshot: string | null;
}

interface Key {
  expr: string;
  desc: boolean;
  cast: string;
  nullable: boolean;
}

function indeterminateMode(p: CollectionParams): IndeterminateMode {
  let mode = p.filter_indeterminate;
  if (p.include_unknown !== undefined) {
    const implied = p.include_unknown ? 'include' : 'exclude';
    if (mode && mode !== implied) throw invalid('include_unknown', `include_unknown=${p.include_unknown} contradicts filter_indeterminate=${mode}; send one`);
    mode = implied;
  }
  if (mode === 'only' && !p.filter?.groups.length) throw invalid('filter_indeterminate', 'only lists rows a filter cannot evaluate; send a filter');
  return mode ?? 'include';
}

/** Rows after the cursor's row in the sort order; NULLs are last in either direction. */
export function keyset(keys: Key[], values: Array<string | null>, c: SqlContext): string {
  if (values.length !== keys.length) throw invalid('cursor', 'This cursor does not fit this list; restart without cursor.');
  const uniform = keys.every((k) => k.desc === keys[0].desc && !k.nullable) && values.every((v) => v !== null);
  if (uniform) {
    const rhs = keys.map((k, i) => c.bind(values[i], k.cast));
    return `(${keys.map((k) => k.expr).join(', ')}) ${keys[0].desc ? '<' : '>'} (${rhs.join(', ')})`;
  }
  const ors: string[] = [];
  keys.forEach((k, i) => {
    const v = values[i];
    if (v === null) return; // nothing sorts after NULL but other NULLs, handled by later keys
    const eqs = keys.slice(0, i).map((p, j) => (values[j] === null ? `${p.expr} IS NULL` : `${p.expr} = ${c.bind(values[j], p.cast)}`));
    const after = `${k.expr} ${k.desc ? '<' : '>'} ${c.bind(v, k.cast)}${k.nullable ? ` OR ${k.expr} IS NULL` : ''}`;
    ors.push([...eqs, `(${after})`].join(' AND '));
  });
  return ors.length ? `(${ors.map((o) => `(${o})`).join(' OR ')})` : 'false';
}

const signature = (parts: unknown) => createHash('sha256').update(JSON.stringify(parts)).digest('base64url').slice(0, 22);

function strip(row: Row): Row {
  const out: Row = {};
  for (const [k, v] of Object.entries(row)) if (!k.startsWith('__')) out[k] = v;
  return out;
}

export async function runCollection<T = Row>(
  db: Queryable,
  def: ResourceDef,
  params: CollectionParams,
  secret: Buffer,
  opts: CollectionOptions<T> = {},
): Promise<CollectionResult<T>> {
  const size = params.size ?? DEFAULT_SIZE;
  if (!Number.isInteger(size) || size < 1 || size > MAX_SIZE) throw invalid('size', `size is 1 to ${MAX_SIZE}`);
  const sort = effectiveSort(def, params.sort, Boolean(opts.query));
  const mode = indeterminateMode(params);
  const cursor: CursorPayload | null = params.cursor ? openCursor(params.cursor, secret) : null;
  const now = opts.now ?? new Date();

  // WHERE without the keyset: the same for every page of one walk (its hash is the filter signature).
  const base = (snapshot: string | null) => {
    const b = new SqlBuilder(opts.query).pin(snapshot);
    const clauses = (opts.where ?? []).map((w) => `(${w(b)})`);
    const filter = compileFilter(def, params.filter, b);
    if (filter) clauses.push(modeClause(filter, mode));
    const sig = signature([def.name, clauses, b.values.slice(1)]);
    if (def.snapshotColumn) clauses.push(`${def.snapshotColumn} <= ${b.snapshot}`);
    return { b, clauses, filter, sig };
  };

  const { b, clauses, filter, sig } = base(cursor?.t ?? opts.snapshot ?? null);
  const keys: Key[] = sort.keys.map((k) => {
    const f = def.fields[k.field];
    return { expr: `(${sqlOf(f.sql, b)})`, desc: k.desc, cast: castOf(f), nullable: f.nullable !== false };
  });
  keys.push({ expr: `(${def.id})`, desc: sort.keys[sort.keys.length - 1]?.desc ?? false, cast: 'text', nullable: false });

  if (cursor) {
    checkCursor(cursor, { resource: def.name, sort: sort.text, filter: sig, now, retentionSeconds: opts.retentionSeconds });
    const since = def.retainedSince ? await def.retainedSince(db) : null;
    if (since && Date.parse(cursor.t) < Date.parse(since)) {
      throw new ApiError('cursor_snapshot_gone', { field: 'cursor', detail: `This walk was pinned to ${cursor.t}; history before ${since} is no longer retained. Restart from the first page.` });
    }
    clauses.push(keyset(keys, [...cursor.k, cursor.id], b));
  }

  const sql = `SELECT ${def.select}, ${filter ? `(${filter}) IS NULL` : 'false'} AS __ind,
    ${keys.map((k, i) => `${k.expr}::text AS __k${i}`).join(', ')},
    to_char(${b.snapshot} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS __snap
    FROM ${sqlOf(def.from, b)}
    WHERE ${clauses.join(' AND ') || 'true'}
    ORDER BY ${keys.map((k) => `${k.expr} ${k.desc ? 'DESC' : 'ASC'} NULLS LAST`).join(', ')}
    LIMIT ${b.bind(size + 1, 'int')}`;
  const { rows } = await db.query(sql, b.values);

  const pageRows = rows.slice(0, size);
  const last = pageRows[pageRows.length - 1];
  const snapshot: string | null = last?.__snap ?? cursor?.t ?? null;
  let next: string | null = null;
  if (rows.length > size) {
    const k = keys.map((_, i) => last[`__k${i}`] as string | null);
    const id = k.pop() as string;
    next = signCursor({ v: 1, r: def.name, s: sort.text, f: sig, k, id, t: last.__snap, i: Math.floor(now.getTime() / 1000) }, secret);
  }

  const map = opts.map ?? ((r: Row) => r as T);
  const filtered = Boolean(params.filter?.groups.length);
  const items = pageRows.map((r) => {
    const item = map(strip(r));
    if (filtered && item && typeof item === 'object') (item as Record<string, unknown>).filter_outcome = r.__ind ? 'indeterminate' : 'match';
    return item;
  });
  const page: CollectionPage = { size: items.length, next_cursor: next, indeterminate: pageRows.filter((r) => r.__ind).length };
  if (params.total && !cursor) page.total = await countTotal(db, base, pageRows.length, next !== null, snapshot, opts.totalCap ?? TOTAL_CAP, def);
  return { items, page, snapshot };
}

async function countTotal(
  db: Queryable,
  base: (s: string | null) => { b: SqlBuilder; clauses: string[] },
  onPage: number,
  more: boolean,
  snapshot: string | null,
  cap: number,
  def: ResourceDef,
): Promise<Total> {
  if (!more) return { value: onPage, relation: 'eq' };
  const { b, clauses } = base(snapshot);
  // the snapshot is named even where no clause reads it: its parameter ($1) must have a type
  const sql = `SELECT count(*)::int AS n FROM (SELECT 1 FROM ${sqlOf(def.from, b)} WHERE ${clauses.join(' AND ') || 'true'} LIMIT ${b.bind(cap + 1, 'int')}) capped WHERE ${b.snapshot} IS NOT NULL`;
  const n: number = (await db.query(sql, b.values)).rows[0].n;
  return n > cap ? { value: cap, relation: 'gte' } : { value: n, relation: 'eq' };
}
