// GET /permission (spec 4.3): where a use is allowed across towns. Every district in scope whose
// use tables state the use (or a narrower one) at a level asked, as regional permissions grouped
// by jurisdiction, each cited to its cells and dated; districts whose answer cannot be decided
// counted (or listed when asked); jurisdictions in scope that cannot be answered for named.
import { invalid } from '../../core/errors.ts';
import { checkCursor, type CursorPayload, openCursor, signCursor } from '../../core/query/cursor.ts';
import type { IndeterminateMode } from '../../core/query/filter.ts';
import { collectionParams, DEFAULT_SIZE, MAX_SIZE, TOTAL_CAP, timeParams } from '../../core/query/index.ts';
import { resolveScope, SCOPE_PARAMS, type Scope } from '../../core/query/scope.ts';
import { parseSort } from '../../core/query/sort.ts';
import { stateFips } from '../../core/states.ts';
import { intervalNotice, PROVISIONAL_ZONE, resolveTimes, timeBlock } from '../../core/time.ts';
import {
  inOneSnapshot,
  LEVELS,
  type PermissionQuery,
  type PermissionTime,
  type ScopeRows,
  permissionPage,
  permissionRows,
  permissionTotals,
  scopeStanding,
  undecidedInStretch,
  useTerms,
  walkSignature,
} from '../../store/search/permission.ts';
import { FIELD_PARAM } from '../fields.ts';
import { knownUses } from '../place/common.ts';
import type { Req } from '../route.ts';
import { defineRoutes, type JsonSchema } from '../route.ts';
import { notAnsweredRow, permissionItem } from '../search/permission.ts';

const INCLUDES = ['control', 'composition'] as const;
const LAYER_LIMIT = 1000;

/** filter_indeterminate or include_unknown; here the default leaves undecided rows out and counts them. */
function modeOf(p: Req['params']): IndeterminateMode {
  let mode: IndeterminateMode | undefined = p.filter_indeterminate;
  if (p.include_unknown !== undefined) {
    const implied = p.include_unknown ? 'include' : 'exclude';
    if (mode && mode !== implied) throw invalid('include_unknown', `include_unknown=${p.include_unknown} contradicts filter_indeterminate=${mode}; send one`);
    mode = implied;
  }
  return mode ?? 'exclude';
}

/** The request as a walk: uses, levels, scope, times, order, filter and mode. */
async function walkOf(req: Req) {
  const db = req.services.pool;
  const p = req.params;
  const asked = (await knownUses(db, p.use))!;
  const terms = await useTerms(db, asked);
  const scope = await resolveScope(db, p, { organizationId: req.actor?.organizationId ?? null, asOf: p.as_of });
  const { asOf, knownAsOf } = resolveTimes(p, PROVISIONAL_ZONE);
  let time: PermissionTime;
  if (asOf.kind === 'interval') time = { kind: 'interval', from: asOf.from, to: asOf.to };
  else time = { kind: 'instant', day: p.as_of?.form === 'date' ? asOf.date : null, instant: p.as_of?.form === 'instant' ? asOf.instant : null };
  const levels: string[] = p.level ?? [...LEVELS];
  const q: PermissionQuery = {
    scope: scopeRows(scope, p),
    asked,
    slugs: terms.map((t) => t.slug),
    ranks: levels.map((l) => LEVELS.indexOf(l as (typeof LEVELS)[number]) + 1),
    time,
    snapshot: knownAsOf.basis === 'requested' ? (knownAsOf.kind === 'instant' ? knownAsOf.instant : knownAsOf.end) : null,
    knownAsked: knownAsOf.basis === 'requested',
    filter: p.filter,
    mode: modeOf(p),
    sort: p.sort ?? parseSort(permissionRows, permissionRows.defaultSort),
    size: p.size ?? DEFAULT_SIZE,
    include: { control: (p.include ?? []).includes('control'), composition: (p.include ?? []).includes('composition') },
  };
  return { q, scope, terms, asOf, knownAsOf };
}

/** A state or a county by FIPS selects its jurisdictions in SQL; any other scope by its ids. */
function scopeRows(scope: Scope, p: Req['params']): ScopeRows {
  if (scope.kind === 'state') return { state: stateFips(p.state, 'state') };
  if (scope.kind === 'county' && /^\d{5}$/.test(String(p.county))) return { state: String(p.county).slice(0, 2), county: String(p.county).slice(2) };
  return { ids: scope.ids };
}

function scopeBlock(scope: Scope) {
  return { kind: scope.kind, label: scope.label, jurisdiction_count: scope.ids.length };
}

async function answer(req: Req) {
  const db = req.services.pool;
  const { q, scope, terms, asOf, knownAsOf } = await walkOf(req);
  if (!Number.isInteger(q.size) || q.size < 1 || q.size > MAX_SIZE) throw invalid('size', `size is 1 to ${MAX_SIZE}`);
  let cursor: CursorPayload | null = null;
  if (req.params.cursor) {
    cursor = openCursor(req.params.cursor, req.services.secret);
    checkCursor(cursor, { resource: permissionRows.name, sort: q.sort.text, filter: walkSignature(q) });
  }
  const first = !cursor;
  // one snapshot for the page and its counts, pinned to the cursor's instant, the one asked, or now
  const { page, undecided, standing, totals } = await inOneSnapshot(db, async (client, now) => {
    const walk = { ...q, snapshot: cursor?.t ?? q.snapshot ?? now };
    const page = await permissionPage(client, walk, cursor);
    return {
      page,
      undecided: walk.mode === 'exclude' ? (page.undecided ?? (await undecidedInStretch(client, walk, cursor, page))) : null,
      standing: first ? await scopeStanding(client, walk, LAYER_LIMIT) : null,
      totals: first && req.params.total ? await permissionTotals(client, walk, TOTAL_CAP) : null,
    };
  });
  const shaping = { terms: new Map(terms.map((t) => [t.slug, t])), interval: asOf.kind === 'interval' ? { from: asOf.from, to: asOf.to } : null, include: q.include };
  const item = page.rows.map((r) => permissionItem(r, shaping));
  const next = page.next ? signCursor({ v: 1, r: permissionRows.name, s: q.sort.text, f: page.signature, k: page.next.k, id: page.next.id, t: page.snapshot!, i: Math.floor(Date.now() / 1000) }, req.services.secret) : null;
  const capped = (n: number) => (n > TOTAL_CAP ? { value: TOTAL_CAP, relation: 'gte' as const } : { value: n, relation: 'eq' as const });
  const pageBlock: Record<string, unknown> = { size: item.length, next_cursor: next, indeterminate: undecided ?? item.filter((i) => i.filter_outcome === 'indeterminate').length };
  if (totals) {
    pageBlock.total = capped(totals.shown);
    pageBlock.total_indeterminate = capped(totals.undecided);
  }
  // the as_of block: each jurisdiction's dates are read in its own timezone
  const zones = [...new Set(page.rows.map((r) => r.j_tz as string))];
  const segmented = item.filter((i) => Array.isArray(i.segment) && (i.segment as unknown[]).length > 1);
  const segmentCount = Math.max(1, ...item.map((i) => (Array.isArray(i.segment) ? (i.segment as unknown[]).length : 1)));
  const notice = [intervalNotice(segmentCount, segmented.map((i) => String(i.id)))].filter(Boolean);
  const jurisdictions = new Map(page.rows.map((r) => [r.j_id, r]));
  const coverage: Record<string, unknown> = {
    scope: scopeBlock(scope),
    layer: ['zoning_text'],
    jurisdiction: [...jurisdictions.values()].map((r) => ({
      id: r.j_id,
      name: r.j_name,
      layer: { zoning_text: { held: true, tier: r.j_tier, last_retrieved_at: r.j_retrieved ? new Date(r.j_retrieved).toISOString() : null } },
      href: `/coverage?jurisdiction=${r.j_id}&layer=zoning_text`,
    })),
    href: `/coverage?${new URLSearchParams([...scopeQuery(req.params), ['layer', 'zoning_text']]).toString()}`,
  };
  const extra: Record<string, unknown> = {
    as_of: { ...timeBlock({ asOf, knownAsOf: knownAsOf.kind === 'instant' && page.snapshot ? { ...knownAsOf, instant: page.snapshot } : knownAsOf, timezone: zones.length === 1 ? zones[0] : PROVISIONAL_ZONE, segmentCount }), timezones: zones },
    coverage,
  };
  if (standing) {
    coverage.answered = standing.answered;
    coverage.not_answered = standing.not_answered_count;
    if (standing.in_scope === 0) coverage.reason = `No jurisdiction held lies in ${scope.label}.`;
    else if (standing.answered === 0) coverage.reason = `None of the ${standing.in_scope} jurisdictions in ${scope.label} has a use table held in force; layer[] says why for each.`;
    extra.layer = standing.not_answered.map(notAnsweredRow);
    if (standing.not_answered_count > standing.not_answered.length) coverage.layer_listed = standing.not_answered.length;
  }
  if (notice.length) extra.notice = notice;
  return { item, page: pageBlock, extra, charge: { units: item.length ? 1 : 0 } };
}

/** The scope parameters as given, for the coverage link. */
function scopeQuery(p: Req['params']): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const name of ['region', 'state', 'county', 'geometry', 'buffer']) if (p[name] !== undefined) out.push([name, String(p[name])]);
  for (const j of p.jurisdiction ?? []) out.push(['jurisdiction', j]);
  return out;
}

/** dry_run: the price of a page and what the scope holds, without answering. */
async function estimate(req: Req) {
  const { q, scope, terms } = await walkOf(req);
  const s = await inOneSnapshot(req.services.pool, (client, now) => scopeStanding(client, { ...q, snapshot: q.snapshot ?? now }, 0));
  return { units: s.answered > 0 ? 1 : 0, item: { scope: scopeBlock(scope), answered: s.answered, not_answered: s.not_answered_count, use: terms.map((t) => t.slug) } };
}

const str = { type: 'string' };
const strOrNull = { type: ['string', 'null'] };
const dateOrNull = { type: ['string', 'null'], format: 'date' };
const CITATION = { type: ['object', 'null'], properties: { id: { type: 'string', pattern: '^cit_' }, quote: str, href: str } };
const CELL = {
  type: 'object',
  required: ['id', 'label', 'level', 'status', 'citation'],
  properties: { id: str, label: str, use: strOrNull, symbol: str, level: str, process: strOrNull, conditions: strOrNull, table: strOrNull, status: str, effective_from: dateOrNull, effective_through: dateOrNull, citation: CITATION },
};
const PERMISSION: JsonSchema = {
  type: 'object',
  required: ['id', 'use', 'jurisdiction', 'district', 'district_code', 'status', 'filter_outcome'],
  properties: {
    id: { type: 'string', pattern: '^prm_' },
    use: { type: 'object', required: ['slug'], properties: { id: strOrNull, slug: str, name: strOrNull, via: { type: 'array', items: str }, match: { enum: ['exact', 'narrower'] } } },
    jurisdiction: { type: 'object', required: ['id'], properties: { id: { type: 'string', pattern: '^jur_' }, name: str, slug: str, fips_key: str, href: str } },
    district: { type: 'string', pattern: '^dst_' },
    district_code: str,
    district_kind: { enum: ['base', 'overlay'] },
    district_label: strOrNull,
    overlay: { type: ['string', 'null'] },
    private_restriction: { type: 'null' },
    level: { enum: [...LEVELS, null] },
    level_rank: { type: ['integer', 'null'], minimum: 1, maximum: 4 },
    status: { enum: ['stated', 'conflicting', 'withheld'] },
    binds: { type: ['boolean', 'null'] },
    supersession_risk: { type: 'object', properties: { basis: str, overlay: { type: 'array' } } },
    effective_from: dateOrNull,
    citation: CITATION,
    cell: { type: 'array', items: CELL },
    constant: { type: 'boolean' },
    data_horizon: dateOrNull,
    horizon_basis: { const: 'measured' },
    filter_outcome: { enum: ['match', 'indeterminate'] },
    indeterminate: { type: 'object', required: ['reason', 'detail'], properties: { reason: { enum: ['not_listed', 'no_use_table', 'cell_unreadable', 'filter'] }, detail: str } },
    segment: { type: 'array', items: { type: 'object', required: ['from', 'to', 'permission'], properties: { from: str, to: str, permission: { type: ['object', 'null'] } } } },
    control: { type: 'array' },
    composition: { type: 'object' },
    href: str,
  },
};

export const permissionRoutes = defineRoutes([
  {
    id: 'listPermissions',
    method: 'GET',
    path: '/permission',
    summary: 'Where a use is allowed: every district in scope whose use tables state it, grouped by jurisdiction, cited and dated',
    description: [
      'One regional permission per district and use: the use asked, or each narrower use under it (use.via names the slug asked; use.match says exact or narrower), with every cell of the use tables in force stating it (cell[], each cited) and the most permissive level they state (status conflicting when they state different levels).',
      'Rows come grouped by jurisdiction: whatever the sort, jurisdiction, district and row follow as tie-breakers. A row matches when its level is one asked (level; default the four permissive levels); prohibited rows are never listed.',
      'A district whose answer cannot be decided (no cell names the use, no use table read covers the district, or every cell is blank) is a row with filter_outcome indeterminate and indeterminate.reason; by default such rows are left out and counted in page.indeterminate (the undecided rows of the page\'s stretch of the order; the sum over a walk is their total); filter_indeterminate=include (or include_unknown=true) lists them, only lists just them.',
      'Jurisdictions in scope that cannot be answered for (no zoning text held, or no use table in force) are named in layer[] on the first page, with coverage.not_answered counting them.',
      'An interval as_of lists the rows addressed on some day of it, each with segment[] ({from, to, permission}: the level, status and cells in force, null where the use is not addressed); level and level_rank are then the most permissive of the interval.',
    ].join(' '),
    tag: 'Search across towns',
    credential: 'key',
    scope: 'law:read',
    form: 'plain',
    collection: true,
    dryRun: true,
    price: { credits: 1, per: 'item', note: 'One credit per page that lists a permission; a page that lists none is free. dry_run prices a page and counts the jurisdictions in scope that can be answered for.', estimateUnits: estimate },
    fields: { fixed: ['id'] },
    response: PERMISSION,
    refuses: ['vocabulary_value_unknown', 'cursor_expired', 'cursor_sort_mismatch', 'field_unknown', 'not_available', 'id_malformed'],
    params: [
      { name: 'use', in: 'query', type: 'array', required: true, maxItems: 20, description: 'use_ ids or vocabulary slugs; repeatable. A slug matches itself and every narrower use.' },
      { name: 'level', in: 'query', type: 'array', items: { type: 'string', enum: LEVELS }, description: 'Levels that match (default all four).' },
      { name: 'include', in: 'query', type: 'array', items: { type: 'string', enum: INCLUDES }, description: "control: the district's controls in force; composition: its precedence and the overlays stating the use." },
      ...timeParams(),
      ...SCOPE_PARAMS,
      ...collectionParams(permissionRows, { includeUnknown: true }).map((p) =>
        p.name === 'filter_indeterminate'
          ? { ...p, description: 'Rows whose answer the use tables (or a filter) cannot decide: exclude (default here: counted in page.indeterminate), include (listed, marked filter_outcome=indeterminate) or only.' }
          : p.name === 'include_unknown'
            ? { ...p, description: 'true lists undecided rows (as filter_indeterminate=include); false leaves them out (the default).' }
            : p,
      ),
      FIELD_PARAM,
    ],
    handler: answer,
  },
]);

