// Where a use is allowed, across towns (GET /permission): one row per district and use, read in
// one statement per page. A row is a district of a jurisdiction in scope and a use of the
// vocabulary (the one asked, or a narrower one under it) with the cells of the use tables that
// state it; or, where no cell decides, the district and the use asked, undecided, with why.
//
// The statement walks the jurisdictions in scope in the order asked and, for each, its districts
// and their cells through indexes (migration 024): with the default order a page stops after the
// jurisdictions it needs, whatever the scope holds. Every value is bound.
import { createHash } from 'node:crypto';
import type { CursorPayload } from '../../core/query/cursor.ts';
import { compileFilter, type FilterSet, type IndeterminateMode, modeClause } from '../../core/query/filter.ts';
import { keyset } from '../../core/query/query.ts';
import { castOf, type ResourceDef, SqlBuilder, type SqlContext } from '../../core/query/resource.ts';
import type { SortSpec } from '../../core/query/sort.ts';
import type { Client, Pool, Queryable } from '../db.ts';
import { CITATION_SQL } from '../evidence.ts';

/** The permissive levels, most permissive first; `prohibited` ranks after them and is never a match. */
export const LEVELS = ['by_right', 'permitted_with_standards', 'administrative_approval', 'conditional_use'] as const;
const RANKED = `ARRAY['by_right', 'permitted_with_standards', 'administrative_approval', 'conditional_use', 'prohibited']::text[]`;
const RANK = (level: string) => `array_position(${RANKED}, ${level})`;
/** A cell that states a level (a blank or unreadable cell is held `unknown`, status withheld). */
const STATED = `p.status <> 'withheld' AND p.level <> 'unknown'`;
const SOURCE_RANK = `CASE s.kind WHEN 'code_text' THEN 0 WHEN 'district_list' THEN 1 ELSE 2 END`;

/** Sort and filter fields of a row (alias r); the jurisdiction-level ones also bound the walk (LEAD). */
export const permissionRows: ResourceDef = {
  name: 'permission',
  from: '(rows of GET /permission) r',
  id: 'r.row_key',
  select: 'r.*',
  defaultSort: 'jurisdiction.name',
  fields: {
    'jurisdiction.name': { sql: 'r.j_name', type: 'string', sortable: true, nullable: false },
    'jurisdiction.population': { sql: 'r.j_population', type: 'integer', sortable: true },
    'jurisdiction.id': { sql: 'r.j_id', type: 'string', nullable: false },
    'district.code_normalized': { sql: 'r.d_code', type: 'string', sortable: true, nullable: false },
    'district.kind': { sql: 'r.d_kind', type: 'enum', enum: ['base', 'overlay'], nullable: false },
    'district.type': { sql: 'r.d_type', type: 'string' },
    'use.slug': { sql: 'r.u_slug', type: 'string', nullable: false },
    level: { sql: 'r.level', type: 'enum', enum: [...LEVELS, 'prohibited'] },
    level_rank: { sql: 'r.level_rank', type: 'integer', sortable: true },
    status: { sql: 'r.status', type: 'enum', enum: ['stated', 'conflicting', 'withheld'], nullable: false },
    effective_from: { sql: 'r.effective_from', type: 'date', sortable: true },
    coverage_tier: { sql: 'r.j_tier', type: 'enum', enum: ['full', 'partial', 'none'], sortable: true, nullable: false },
  },
};

const LEAD: Record<string, string> = { 'jurisdiction.name': 'j.name', 'jurisdiction.id': 'j.id', 'jurisdiction.population': 'j.population', coverage_tier: "coalesce(cv.tier, 'none')" };

/** NULLs last; a key that is never NULL says nothing of them, so a descending walk can read an index backwards. */
const direction = (k: Key) => (k.desc ? 'DESC' : 'ASC') + (k.nullable ? ' NULLS LAST' : '');

/** Whether a walk reads the jurisdictions in its order and stops (its first key is the jurisdiction's). */
const walks = (keys: Key[]) => Boolean(keys[0].field && LEAD[keys[0].field]);

/**
 * Rows of a table found by an index on their keys, fenced (OFFSET 0) so that the planner probes by
 * the keys first and checks the times on what it finds, never the other way round (law.ts does
 * the same): the GiST index of the times would read every town's rows.
 */
const fence = (table: string, where: string) => `(SELECT * FROM ${table} WHERE ${where} OFFSET 0)`;

export type ScopeRows = { ids: string[] } | { state: string; county?: string };

/** The jurisdictions in scope as `j` (a FIPS code is bound once, where thousands of ids would be parsed and planned by each statement). */
function scopeFrom(q: PermissionQuery, c: SqlContext): string {
  const s = q.scope;
  if ('ids' in s) return `unnest(${c.bind(s.ids, 'text[]')}) x(id) JOIN jurisdiction j ON j.id = x.id`;
  return `(SELECT * FROM jurisdiction WHERE fips_state = ${c.bind(s.state)}${s.county ? ` AND fips_county = ${c.bind(s.county)}` : ''}) j`;
}

/** A date asked, an instant asked (read as a date in each jurisdiction's zone), or neither (the snapshot's date there); or an interval. */
export type PermissionTime = { kind: 'instant'; day: string | null; instant: string | null } | { kind: 'interval'; from: string; to: string };

export interface PermissionQuery {
  /** the jurisdictions in scope: their ids, or (a state or county scope) the FIPS codes that select them */
  scope: ScopeRows;
  /** the uses asked (slugs) */
  asked: string[];
  /** the uses asked and every narrower one */
  slugs: string[];
  /** level ranks (1 to 4) a decided row must have to match */
  ranks: number[];
  /** a date asked (null: each jurisdiction's own today at the snapshot), or an interval */
  time: PermissionTime;
  /** the instant the walk is pinned to (a cursor's, known_as_of asked, or the first page's) */
  snapshot: string | null;
  /** known_as_of was asked: whether a jurisdiction's use tables were held then is read from the facts, not from coverage (which is now) */
  knownAsked: boolean;
  filter?: FilterSet;
  mode: IndeterminateMode;
  sort: SortSpec;
  size: number;
  include: { control: boolean; composition: boolean };
}

interface Key {
  field: string | null;
  expr: string;
  desc: boolean;
  cast: string;
  nullable: boolean;
}

/** The order of a walk: the sort asked, then jurisdiction, district and row, so a jurisdiction's rows stay together. */
export function walkKeys(sort: SortSpec): Key[] {
  const named = sort.keys.map((k) => ({ name: k.field, desc: k.desc }));
  for (const name of ['jurisdiction.name', 'jurisdiction.id', 'district.code_normalized']) if (!named.some((k) => k.name === name)) named.push({ name, desc: false });
  const keys: Key[] = named.map(({ name, desc }) => {
    const f = permissionRows.fields[name];
    return { field: name, expr: `(${f.sql})`, desc, cast: castOf(f), nullable: f.nullable !== false };
  });
  keys.push({ field: null, expr: '(r.row_key)', desc: false, cast: 'text', nullable: false });
  return keys;
}

/**
 * Conditions on the jurisdiction walk: the jurisdictions at or after the cursor's and at or before
 * the page's last, by the keys that are the jurisdiction's (a prefix of the walk's, ending in its id).
 */
function leadBounds(keys: Key[], c: SqlContext, from: Array<string | null> | null, through: Array<string | null> | null): string {
  const n = keys.findIndex((k) => !(k.field && LEAD[k.field]));
  const prefix = keys.slice(0, n === -1 ? keys.length : n).map((k) => ({ ...k, expr: `(${LEAD[k.field!]})` }));
  if (prefix.length === 0) return '';
  const out: string[] = [];
  if (from) {
    const v = from.slice(0, prefix.length);
    const same = prefix.map((k, i) => `${k.expr} IS NOT DISTINCT FROM ${c.bind(v[i], k.cast)}`).join(' AND ');
    out.push(`(${keyset(prefix, v, c)} OR (${same}))`);
  }
  if (through) out.push(`(${keyset(prefix, through.slice(0, prefix.length), c)}) IS NOT TRUE`);
  return out.map((x) => ` AND ${x}`).join('');
}

/**
 * The jurisdictions in the walk's order as far as its keys are the jurisdiction's: then a page stops
 * after the jurisdictions it needs. They are sorted here, except a state's or county's by name: read
 * in order from its index (migration 025) by the statement's own plan, which sees the page's LIMIT.
 */
function jurisdictionOrder(keys: Key[]): string {
  const lead: string[] = [];
  for (const k of keys) {
    const expr = k.field ? LEAD[k.field] : undefined;
    if (!expr) break;
    lead.push(`${expr} ${direction(k)}`);
  }
  return lead.length ? ` ORDER BY ${lead.join(', ')}` : '';
}

/**
 * A jurisdiction (j, its zoning_text coverage cv, its date and instant t) can be answered for when
 * a use table of its zoning text was read (coverage: cells read) and what was read is retained
 * for the date; when knowledge time is asked, from the facts held then (coverage is only now).
 */
function answerable(q: PermissionQuery, c: SqlContext, at: (a: string, t: string) => string): string {
  const read = 'cv.cells_read'; // a source read a cell of a use table (migration 034)
  const last = q.time.kind === 'instant' ? 't.day' : c.bind(q.time.to, 'date');
  const retained = `(cv.earliest_retained IS NULL OR cv.earliest_retained <= ${last})`;
  const held = `coalesce(cv.held, false) AND ${read} AND ${retained}`;
  if (!q.knownAsked) return held;
  return `${held} AND EXISTS (SELECT 1 FROM ${fence('district', 'jurisdiction_id = j.id')} d CROSS JOIN LATERAL ${fence('permission', 'district_id = d.id')} p
                               WHERE ${at('d', 't')} AND ${at('p', 't')})`;
}

/** Whether a load's window holds the snapshot (then each jurisdiction's knowledge is settled before it): computed once per statement. */
const settling = (c: SqlContext) => `EXISTS (SELECT 1 FROM knowledge_load l WHERE tstzrange(l.detected_at, l.settled_at, '[)') @> ${c.snapshot})`;

/** SQL of a jurisdiction's (alias j) date: the date asked, the instant asked or the snapshot as a date in its zone, or an interval's last day. */
function dayOf(q: PermissionQuery, c: SqlContext): string {
  if (q.time.kind === 'interval') return c.bind(q.time.to, 'date');
  return `coalesce(${c.bind(q.time.day, 'date')}, (coalesce(${c.bind(q.time.instant, 'timestamptz')}, ${c.snapshot}) AT TIME ZONE j.timezone)::date)`;
}

/** SQL of "in force" for a fact alias, on the row's date (or over the interval) as known at its instant. */
function inForce(q: PermissionQuery, c: SqlContext) {
  if (q.time.kind === 'instant') return (a: string, t: string) => `${a}.valid @> ${t}.day AND ${a}.known @> ${t}.known`;
  const { from, to } = q.time;
  let range: string | null = null; // bound where first used: a statement binds no value it does not use
  return (a: string, t: string) => {
    range ??= `daterange(${c.bind(from, 'date')}, ${c.bind(to, 'date')}, '[]')`;
    return `${a}.valid && ${range} AND ${a}.known @> ${t}.known`;
  };
}

/** The jurisdictions of the scope that can be answered for (alias jx), each with its date and knowledge instant. */
function jurisdictions(q: PermissionQuery, c: SqlContext, at: (a: string, t: string) => string, tail: string): string {
  return `SELECT j.id AS j_id, j.name AS j_name, j.slug AS j_slug, j.fips_key AS j_fips_key, j.population AS j_population, j.timezone AS j_tz,
                 coalesce(cv.tier, 'none') AS j_tier, cv.last_retrieved_at AS j_retrieved, t.day, t.known
            FROM ${scopeFrom(q, c)}
            JOIN coverage cv ON cv.jurisdiction_id = j.id AND cv.layer = 'zoning_text'
            CROSS JOIN LATERAL (SELECT ${dayOf(q, c)} AS day,
                                       CASE WHEN ${settling(c)} THEN knowledge_settled(j.id, ${c.snapshot}) ELSE ${c.snapshot} END AS known) t
           WHERE ${answerable(q, c, at)}${tail}`;
}

const DISTRICT_COLUMNS = `d.id AS d_id, d.kind AS d_kind, d.code_normalized AS d_code, d.code_raw AS d_code_raw,
             d.local_label AS d_label, d.type AS d_type, d.precedence_rank AS d_rank, s.kind AS d_source`;
/** Each district once, from its most authoritative source (the code, the publisher's list, a map), latest first. */
const DISTRICT_ORDER = `d.id, ${SOURCE_RANK}, upper(d.valid) DESC NULLS FIRST, d.fact_id DESC`;
const CELL_AGGREGATES = `array_agg(p.fact_id ORDER BY p.table_ref NULLS FIRST, p.use_label_normalized, lower(p.valid), p.fact_id) AS cell_ids,
             min(${RANK('p.level')}) FILTER (WHERE ${STATED}) AS level_rank,
             count(DISTINCT p.level) FILTER (WHERE ${STATED}) > 1 OR bool_or(p.status = 'conflicting') AS conflicting,
             max(lower(p.valid)) AS effective_from, NULL::text AS why`;
/** A base district no cell of a use asked (or narrower) speaks for: the use undecided, the district's use table read or not. */
const silent = (at: (a: string, t: string) => string, t: string) =>
  `CASE WHEN EXISTS (SELECT 1 FROM ${fence('permission', 'district_id = d.d_id')} p WHERE ${at('p', t)}) THEN 'not_listed' ELSE 'no_use_table' END`;

function rowColumns(q: PermissionQuery, c: SqlContext): string {
  return `jx.*, d.*, g.u_slug, g.cell_ids, g.level_rank, g.effective_from,
         (${RANKED})[g.level_rank] AS level,
         CASE WHEN g.level_rank IS NULL THEN 'withheld' WHEN g.conflicting THEN 'conflicting' ELSE 'stated' END AS status,
         coalesce(g.why, CASE WHEN g.level_rank IS NULL THEN 'cell_unreadable' END) AS reason,
         d.d_id || '|' || g.u_slug AS row_key,
         CASE WHEN g.level_rank IS NULL THEN NULL ELSE g.level_rank = ANY(${c.bind(q.ranks, 'int[]')}) END AS decided`;
}

/**
 * Every row of the scope: the jurisdictions whose use tables are held, their districts in force,
 * and per district the cells of the uses asked (grouped by use) or, for a base district no cell of
 * a use asked speaks for, that use undecided: a walk, jurisdiction by jurisdiction through
 * indexes, that a page ordered by jurisdiction stops early. (A form of joins the planner could hash
 * was tried for the other orders: its estimates of the time ranges are far too low, and it chose
 * nested loops over whole sets; this form's cost per district does not depend on estimates.)
 */
function candidates(q: PermissionQuery, c: SqlContext, keys: Key[], from: Array<string | null> | null, through: Array<string | null> | null): string {
  const at = inForce(q, c);
  const slugs = c.bind(q.slugs, 'text[]');
  const asked = c.bind(q.asked, 'text[]');
  const family = (slug: string, u: string) => `(${u} = ${slug} OR starts_with(${u}, ${slug} || '.'))`;
  const lead = leadBounds(keys, c, from, through);
  return `
  SELECT ${rowColumns(q, c)}
    FROM (${jurisdictions(q, c, at, `${lead}${'ids' in q.scope || keys[0].field !== 'jurisdiction.name' ? jurisdictionOrder(keys) : ''}`)}) jx
    CROSS JOIN LATERAL (
      SELECT DISTINCT ON (d.id) ${DISTRICT_COLUMNS}
        FROM ${fence('district', 'jurisdiction_id = jx.j_id')} d JOIN source s ON s.id = d.source_id
       WHERE ${at('d', 'jx')} ORDER BY ${DISTRICT_ORDER}) d
    CROSS JOIN LATERAL (
      SELECT p.use_slug AS u_slug, ${CELL_AGGREGATES}
        FROM ${fence('permission', `district_id = d.d_id AND use_slug = ANY(${slugs})`)} p
       WHERE ${at('p', 'jx')}
       GROUP BY p.use_slug
      UNION ALL
      SELECT a.slug, NULL::bigint[], NULL::int, false, NULL::date, ${silent(at, 'jx')}
        FROM unnest(${asked}) a(slug)
       WHERE d.d_kind = 'base'
         AND NOT EXISTS (SELECT 1 FROM ${fence('permission', `district_id = d.d_id AND use_slug = ANY(${slugs})`)} p
                          WHERE ${family('a.slug', 'p.use_slug')} AND ${at('p', 'jx')})) g`;
}

/** The row's outcome: TRUE match, NULL undecided (by the use tables, or by a filter), FALSE out. */
function outcome(q: PermissionQuery, c: SqlContext): string {
  const filter = compileFilter(permissionRows, q.filter, c);
  return filter ? `((r.decided) AND (${filter}))` : '(r.decided)';
}

/** What a cursor is tied to beside its sort: the scope, uses, levels, times, filter and mode of the walk. */
export const walkSignature = (q: PermissionQuery) =>
  createHash('sha256')
    .update(JSON.stringify(['ids' in q.scope ? [...q.scope.ids].sort() : q.scope, q.asked, q.slugs, q.ranks, q.time, q.filter?.text ?? '', q.mode]))
    .digest('base64url')
    .slice(0, 22);

const ISO = `'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'`;
const cite = (id: string) => `(SELECT row_to_json(x) FROM (${CITATION_SQL(id)}) x)`;

const CELL_JSON = `json_build_object('id', p.id, 'label', p.use_label_raw, 'slug', p.use_slug, 'symbol', p.symbol, 'level', p.level,
  'process', p.process, 'conditions', p.conditions, 'table', p.table_ref, 'status', p.status,
  'from', lower(p.valid), 'to', upper(p.valid), 'citation', ${cite('p.citation_id')})`;

/** What the page's rows carry beyond their keys, read for those rows only (after the LIMIT). */
function details(q: PermissionQuery, c: SqlContext): string {
  const at = inForce(q, c);
  const cells = `(SELECT json_agg(${CELL_JSON} ORDER BY array_position(r.cell_ids, p.fact_id))
                   FROM permission p WHERE p.fact_id = ANY(r.cell_ids)) AS cells`;
  const unmapped = `CASE WHEN r.reason = 'not_listed' THEN (SELECT array_agg(DISTINCT p.use_label_raw ORDER BY p.use_label_raw) FROM ${fence('permission', 'district_id = r.d_id AND use_slug IS NULL')} p
                      WHERE ${at('p', 'r')}) END AS unmapped`;
  const broader = `CASE WHEN r.reason = 'not_listed' THEN (SELECT json_agg(${CELL_JSON} ORDER BY p.use_slug, p.table_ref NULLS FIRST, p.fact_id)
                      FROM ${fence('permission', 'district_id = r.d_id AND use_slug IS NOT NULL')} p WHERE starts_with(r.u_slug, p.use_slug || '.') AND ${at('p', 'r')}) END AS broader`;
  const unlisted = `CASE WHEN r.reason IS NOT NULL THEN (SELECT json_build_object('result', u.result, 'process', u.process, 'effective_from', lower(u.valid), 'citation', ${cite('u.citation_id')})
                      FROM ${fence('unlisted_use_rule', 'jurisdiction_id = r.j_id')} u WHERE ${at('u', 'r')} ORDER BY upper(u.valid) DESC NULLS FIRST, u.fact_id DESC LIMIT 1) END AS unlisted`;
  const overlays = `CASE WHEN r.cell_ids IS NOT NULL THEN (SELECT json_agg(json_build_object('id', o.id, 'code', o.code_normalized, 'precedence_rank', o.precedence_rank, 'level_rank', x.level_rank) ORDER BY o.code_normalized)
                      FROM (SELECT DISTINCT ON (o.id) o.id, o.code_normalized, o.precedence_rank FROM ${fence('district', "jurisdiction_id = r.j_id AND kind = 'overlay'")} o
                             WHERE o.id <> r.d_id AND ${at('o', 'r')} ORDER BY o.id, o.fact_id DESC) o
                      CROSS JOIN LATERAL (SELECT min(${RANK('p.level')}) FILTER (WHERE ${STATED}) AS level_rank, count(*) AS n FROM ${fence('permission', 'district_id = o.id AND use_slug = r.u_slug')} p
                                           WHERE ${at('p', 'r')}) x
                     WHERE x.n > 0) END AS overlays`;
  const controls = q.include.control
    ? `(SELECT json_agg(json_build_object('id', k.id, 'control_type', k.control_type, 'building_type', k.building_type, 'qualifier', k.qualifier,
          'min', k.min_value::float8, 'max', k.max_value::float8, 'unit', k.unit, 'value_text', k.value_text, 'conditions', k.conditions, 'table', k.table_ref,
          'status', k.status, 'effective_from', lower(k.valid), 'citation', ${cite('k.citation_id')}) ORDER BY k.control_type, k.building_type NULLS FIRST, k.qualifier NULLS FIRST, k.id)
         FROM ${fence('control', 'district_id = r.d_id')} k WHERE k.valid @> r.day AND k.known @> r.known) AS controls`
    : 'NULL AS controls';
  const text = q.include.composition
    ? `EXISTS (SELECT 1 FROM source s JOIN document doc ON doc.source_id = s.id JOIN document_version v ON v.document_id = doc.id
                WHERE s.jurisdiction_id = r.j_id AND s.kind = 'code_text' AND v.loaded_at <= r.known) AS text_held`
    : 'NULL AS text_held';
  return [cells, unmapped, broader, unlisted, overlays, controls, text].join(',\n  ');
}

// biome-ignore lint/suspicious/noExplicitAny: rows are shaped by the statement's SELECT
export type Row = Record<string, any>;

export interface PermissionPage {
  rows: Row[];
  /** the last row's key values (the cursor's), when another page follows */
  next: { k: Array<string | null>; id: string } | null;
  /** the instant the walk is pinned to (ISO, UTC) */
  snapshot: string | null;
  signature: string;
  /** undecided rows of the page's stretch, when the page's own pass counted them (else null) */
  undecided: number | null;
}

/** One page: the rows after the cursor in the walk's order, each with its cells, citations and includes. */
export async function permissionPage(db: Queryable, q: PermissionQuery, cursor: CursorPayload | null): Promise<PermissionPage> {
  const b = new SqlBuilder().pin(q.snapshot);
  const keys = walkKeys(q.sort);
  const from = cursor ? [...cursor.k, cursor.id] : null;
  const rows = candidates(q, b, keys, from, null);
  const o = outcome(q, b);
  const after = from ? ` AND ${keyset(keys, from, b)}` : '';
  const order = keys.map((k) => `${k.expr} ${direction(k)}`).join(', ');
  const texts = keys.map((k, i) => `${k.expr}::text AS __k${i}`).join(', ');
  const size = b.bind(q.size, 'int');
  // An order that is not the jurisdiction's reads every row anyway: the rows left out as undecided
  // are counted in the same pass (those before the page's last match, or all on the last page).
  const counted = q.mode === 'exclude' && !walks(keys);
  const page = counted
    ? `w AS MATERIALIZED (
        SELECT r.*, ${o} AS __o, ${texts}, count(*) FILTER (WHERE ${o}) OVER (ORDER BY ${order}) AS __n
          FROM (${rows}) r WHERE ${o} IS NOT FALSE${after}),
      page AS MATERIALIZED (SELECT w.*, false AS undecided FROM w WHERE __o AND __n <= ${size} + 1)`
    : `page AS MATERIALIZED (
        SELECT r.*, ${o} IS NULL AS undecided, ${texts}
          FROM (${rows}) r WHERE ${modeClause(o, q.mode)}${after}
         ORDER BY ${order} LIMIT ${size} + 1)`;
  const stretch = counted
    ? `(SELECT count(*) FROM w WHERE __o IS NULL AND (__n < ${size} OR (SELECT count(*) FROM w WHERE __o) <= ${size}))::int`
    : 'NULL::int';
  const sql = `WITH ${page}
    SELECT r.*, to_char(${b.snapshot} AT TIME ZONE 'UTC', ${ISO}) AS __snap, ${stretch} AS __undecided,
      ${details(q, b)}
      FROM page r ORDER BY ${order}`;
  const { rows: all } = await db.query(sql, b.values);
  const shown = all.slice(0, q.size);
  const last = shown[shown.length - 1];
  const next = all.length > q.size ? { k: keys.slice(0, -1).map((_, i) => last[`__k${i}`] as string | null), id: last[`__k${keys.length - 1}`] as string } : null;
  // an empty page of a counted pass still says how many it left out
  const undecided = counted ? (all[0]?.__undecided ?? (await emptyStretch(db, q, keys, from))) : null;
  return { rows: shown, next, snapshot: q.snapshot, signature: walkSignature(q), undecided };
}

/** Undecided rows after the cursor, when a counted pass found no row to show. */
async function emptyStretch(db: Queryable, q: PermissionQuery, keys: Key[], from: Array<string | null> | null): Promise<number> {
  const b = new SqlBuilder().pin(q.snapshot);
  const where = [`${outcome(q, b)} IS NULL`];
  if (from) where.push(keyset(keys, from, b));
  return (await db.query(`SELECT count(*)::int AS n FROM (${candidates(q, b, keys, from, null)}) r WHERE ${where.join(' AND ')}`, b.values)).rows[0].n;
}

/**
 * The undecided rows of a page's stretch of the walk (after the cursor, up to the page's last row,
 * or to the end on the last page): what filter_indeterminate=exclude leaves out of that page.
 */
export async function undecidedInStretch(db: Queryable, q: PermissionQuery, cursor: CursorPayload | null, page: PermissionPage): Promise<number> {
  const b = new SqlBuilder().pin(q.snapshot);
  const keys = walkKeys(q.sort);
  const from = cursor ? [...cursor.k, cursor.id] : null;
  const through = page.next ? [...page.next.k, page.next.id] : null;
  const where = [`${outcome(q, b)} IS NULL`];
  if (from) where.push(keyset(keys, from, b));
  if (through) where.push(`(${keyset(keys, through, b)}) IS NOT TRUE`);
  const sql = `SELECT count(*)::int AS n FROM (${candidates(q, b, keys, from, through)}) r WHERE ${where.join(' AND ')}`;
  return (await db.query(sql, b.values)).rows[0].n;
}

/** Rows the walk returns and rows it cannot decide, each up to cap + 1 (the first page's total). */
export async function permissionTotals(db: Queryable, q: PermissionQuery, cap: number): Promise<{ shown: number; undecided: number }> {
  const b = new SqlBuilder().pin(q.snapshot);
  const o = outcome(q, b);
  const limit = b.bind(cap + 1, 'int');
  const keys = walkKeys(q.sort);
  // each count stops at the cap: a walk in no order reads only the jurisdictions it needs to get there
  const sql = `SELECT (SELECT count(*)::int FROM (SELECT 1 FROM (${candidates(q, b, keys, null, null)}) r WHERE ${modeClause(o, q.mode)} LIMIT ${limit}) x) AS shown,
                      (SELECT count(*)::int FROM (SELECT 1 FROM (${candidates(q, b, keys, null, null)}) r WHERE ${o} IS NULL LIMIT ${limit}) x) AS undecided`;
  return (await db.query(sql, b.values)).rows[0];
}

export interface ScopeStanding {
  in_scope: number;
  answered: number;
  /** the jurisdictions in scope that cannot be answered for, with their coverage (at most `limit`) */
  not_answered: Row[];
  not_answered_count: number;
}

/**
 * Which jurisdictions in scope can be answered for, on the date and as known: those whose zoning
 * text is held with a cell of a use table in force. The others with their coverage, for layer[].
 */
export async function scopeStanding(db: Queryable, q: PermissionQuery, limit: number): Promise<ScopeStanding> {
  const b = new SqlBuilder().pin(q.snapshot);
  const at = inForce(q, b);
  // per jurisdiction only what the counts need; the coverage of those not answered, for at most `limit`
  const sql = `WITH s AS MATERIALIZED (
      SELECT j.id, j.name, ${answerable(q, b, at)} AS answered
        FROM ${scopeFrom(q, b)}
        LEFT JOIN coverage cv ON cv.jurisdiction_id = j.id AND cv.layer = 'zoning_text'
        CROSS JOIN LATERAL (SELECT ${dayOf(q, b)} AS day,
                                   CASE WHEN ${settling(b)} THEN knowledge_settled(j.id, ${b.snapshot}) ELSE ${b.snapshot} END AS known) t)
    SELECT count(*)::int AS in_scope, (count(*) FILTER (WHERE answered))::int AS answered, (count(*) FILTER (WHERE NOT answered))::int AS not_answered_count,
           (SELECT coalesce(json_agg(x ORDER BY x.name, x.id), '[]') FROM (
              SELECT j.id, j.name, j.slug, j.fips_key, cv.held, cv.tier, cv.earliest_retained::text AS earliest_retained,
                     to_char(cv.last_retrieved_at AT TIME ZONE 'UTC', ${ISO}) AS last_retrieved_at, cv.detail->'sources' AS sources, t.day::text AS day,
                     to_char(t.known AT TIME ZONE 'UTC', ${ISO}) AS known,
                     EXISTS (SELECT 1 FROM ${fence('district', 'jurisdiction_id = j.id')} d CROSS JOIN LATERAL ${fence('permission', 'district_id = d.id')} p WHERE p.known @> t.known) AS cells_known,
                     EXISTS (SELECT 1 FROM ${fence('district', 'jurisdiction_id = j.id')} d CROSS JOIN LATERAL ${fence('permission', 'district_id = d.id')} p) AS cells_ever
                FROM (SELECT id FROM s WHERE NOT answered ORDER BY name, id LIMIT ${b.bind(limit, 'int')}) n
                CROSS JOIN LATERAL ${fence('jurisdiction', 'id = n.id')} j
                LEFT JOIN LATERAL ${fence('coverage', "jurisdiction_id = n.id AND layer = 'zoning_text'")} cv ON true
                CROSS JOIN LATERAL (SELECT ${dayOf(q, b)} AS day,
                                           CASE WHEN ${settling(b)} THEN knowledge_settled(j.id, ${b.snapshot}) ELSE ${b.snapshot} END AS known) t) x) AS not_answered
      FROM s`;
  return (await db.query(sql, b.values)).rows[0];
}

export interface UseTerm {
  slug: string;
  id: string;
  name: string;
  /** the slugs asked that this term is or falls under */
  via: string[];
}

/** The uses asked (slugs held) and every narrower use under each. */
export async function useTerms(db: Queryable, asked: string[]): Promise<UseTerm[]> {
  const { rows } = await db.query(
    `SELECT u.slug, u.id, u.name, array_agg(a.slug ORDER BY a.slug) AS via
       FROM use_term u JOIN unnest($1::text[]) a(slug) ON u.slug = a.slug OR starts_with(u.slug, a.slug || '.')
      GROUP BY u.slug, u.id, u.name ORDER BY u.slug`,
    [asked],
  );
  return rows;
}

/**
 * The statements of one answer in one read-only snapshot (the page and its counts agree), pinned
 * to the transaction's instant unless one is given, without JIT: these statements run in
 * milliseconds, and compiling them for a wide scope would take seconds.
 */
export async function inOneSnapshot<T>(pool: Pool, fn: (db: Client, now: string) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; SET LOCAL jit = off');
    const { rows } = await client.query(`SELECT to_char(transaction_timestamp() AT TIME ZONE 'UTC', ${ISO}) AS t`);
    const out = await fn(client, rows[0].t);
    await client.query('COMMIT');
    return out;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}
