// GET /law, /law/{id} and /section (spec 4.3): the law's text across towns in one scope.
// Ordinances (their titles), code sections (heading and body) and moratoriums (title and the uses
// they pause), found by words or a "phrase" (PostgreSQL full-text search, ranked) or by a regular
// expression (run under a time limit), each hit with its snippet and a citation verbatim in its
// retained version: a section found in its body is cited by the passage itself.
import { ApiError, invalid, notFound } from '../../core/errors.ts';
import { requireId } from '../../core/ids.ts';
import { openCursor } from '../../core/query/cursor.ts';
import { effectiveSort } from '../../core/query/sort.ts';
import { addCondition, collectionParams, type FilterSet, runCollection, timeParams, type Where } from '../../core/query/index.ts';
import { resolveScope, SCOPE_PARAMS, type Scope } from '../../core/query/scope.ts';
import type { Queryable } from '../../store/db.ts';
import { scopeCoverage } from '../../store/search/coverage.ts';
import { LAW_KINDS, LAW_STATUSES, type LawAsk, type LawStatus, lawResource, lawWhere } from '../../store/search/law.ts';
import { moratoriumResource, moratoriumWhere } from '../../store/search/moratorium.ts';
import { SUBJECTS } from '../../store/search/ordinance.ts';
import { type SearchTimes, searchTimes } from '../../store/search/when.ts';
import { FIELD_PARAM } from '../fields.ts';
import type { Param } from '../params.ts';
import { knownUses } from '../place/common.ts';
import { defineRoutes, type Req } from '../route.ts';
import { answered, bodyCitations, checkWords, decorateHits, type Hit, hitItem, inReadOnly, persistPassages, REGEX_TIME_LIMIT_MS, SEARCH_WORK_MEM, withRegexLimit } from '../search/hits.ts';
import { datesOf, searchExtra, statusRuns } from '../search/items.ts';
import { decorateMoratoriums, moratoriumItem, moratoriumPeriods } from '../search/ordinances.ts';
import { LAW_HIT, SECTION } from './law-schemas.ts';
import { oneOrdinance } from './ordinance.ts';

const RANGES = ['gte', 'lte', 'gt', 'lt'] as const;
const dayBefore = (d: string) => new Date(Date.parse(`${d}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
const LAYER_OF: Record<string, string> = { ordinance: 'ordinance', moratorium: 'ordinance', section: 'zoning_text' };

const lawDef = lawResource(null);
const paging = (names: string[]) => collectionParams(lawDef, { includeUnknown: true }).filter((p) => names.includes(p.name));

const Q: Param = {
  name: 'q',
  in: 'query',
  type: 'string',
  description:
    'Words (all must occur, stemmed), a "quoted phrase", OR between alternatives and -word to exclude, as PostgreSQL websearch_to_tsquery reads them; with mode=regex a PostgreSQL regular expression (advanced, case-insensitive), run under a time limit.',
  parse: ([raw], name) => {
    if (raw.trim() === '') throw invalid(name, 'q is empty; leave it out to list without a query');
    if (raw.length > 500) throw invalid(name, 'q is longer than 500 characters');
    return raw;
  },
};

const HIT_NOTE =
  'Each hit is one version of its text as known at known_as_of: an ordinance\'s current record (its status on the date from the clerk\'s own dates: adopted after the date reads as introduced), a section\'s or moratorium\'s version (status in_force, adopted for one still to come into force, expired; a moratorium is proposed while its ordinance is not adopted). Without status, sections are those in force or still to come; with it, a status held on some day of the dates asked. With q every hit carries snippet (the passage matched; match[] gives the matched words\' offsets in it) and citation: for a section matched in its body, the passage itself (a citation kept under an id from its version and offsets, so /citation/{id} answers it), else the heading; for ordinances and moratoriums the clerk\'s row. subject, use and adopted cannot be evaluated on every kind (a section has no subject): such hits are indeterminate (filter_outcome), counted in page.indeterminate, and left out with include_unknown=false. With words and no sort, hits are ranked (sort=relevance, best first; rank is the cover-density score of the RUM index, 1 / its distance).';

/** The plain parameters that are conditions (indeterminate where a kind of hit cannot say). */
function conditions(p: Record<string, any>, uses: string[] | undefined): FilterSet | undefined {
  let filter: FilterSet | undefined;
  for (const op of RANGES) {
    const v = p[`adopted[${op}]`];
    if (v !== undefined) filter = addCondition(filter, { field: op === 'gte' || op === 'gt' ? 'adopted_low' : 'adopted_high', op, param: `adopted[${op}]`, operands: [v] });
  }
  if (p.subject) filter = addCondition(filter, { field: 'subject_match', op: 'eq', param: 'subject', operands: [true] });
  if (uses?.length) filter = addCondition(filter, { field: 'use_match', op: 'eq', param: 'use', operands: [true] });
  return filter;
}

interface Search {
  scope: Scope;
  t: SearchTimes;
  ask: LawAsk;
}

/** What /law and /section read first: the uses and query asked, the scope and the times. */
async function search(req: Req, mode: 'literal' | 'regex'): Promise<Search> {
  const db = req.services.pool;
  const p = req.params;
  const uses = (await knownUses(db, p.use)) ?? [];
  if (mode === 'regex' && p.q === undefined) throw invalid('q', 'mode=regex needs q, the regular expression');
  if (mode === 'regex' && p.sort?.keys.some((k: { field: string }) => k.field === 'relevance')) {
    throw new ApiError('sort_requires_query', { field: 'sort', detail: 'relevance ranks words; a regular expression has no rank. Sort by another field, or send words with mode=literal.' });
  }
  if (mode === 'literal' && p.q !== undefined) await checkWords(db, p.q);
  const scope = await resolveScope(db, p, { organizationId: req.actor?.organizationId, asOf: p.as_of });
  const pinned = p.cursor ? openCursor(p.cursor, req.services.secret).t : null;
  const t = await searchTimes(db, p, scope.ids, pinned);
  return { scope, t, ask: { q: p.q, mode, uses, subjects: p.subject ?? [] } };
}

/** Whether a page is sorted best match first (sort=relevance, or words with no sort). */
function rankedBy(req: Req, s: Search, defaultSort: string): boolean {
  if (s.ask.mode !== 'literal' || s.ask.q === undefined) return false;
  const [first] = effectiveSort({ ...lawDef, defaultSort }, req.params.sort, true).keys;
  return first.field === 'relevance' && !first.desc;
}

/**
 * One page of hits with their snippets and citations; a regular expression runs under its time
 * limit. Words run with room to sort in memory and, ranked, without bitmap scans: the planner's
 * guess of a query's matches is far below a wide scope's, and would rank every match from the
 * table; RUM's ordered scan (wide scopes) and the jurisdiction index (narrow ones) serve both.
 */
async function hitsPage(req: Req, s: Search, where: Where[], name: string, defaultSort: string, filter: FilterSet | undefined) {
  const ranked = rankedBy(req, s, defaultSort);
  const run = async (db: Queryable) => {
    const def = lawResource(s.t, s.ask, name, defaultSort, ranked);
    const r = await runCollection(db, def, { ...req.params, filter }, req.services.secret, {
      snapshot: s.t.known,
      where,
      query: s.ask.mode === 'literal' ? s.ask.q : undefined,
      map: (row) => hitItem(row, s.t) as Hit,
    });
    const passages = await decorateHits(db, r.items, s.t, s.ask);
    return { r, passages };
  };
  if (s.ask.mode === 'regex') return withRegexLimit(req.services.pool, Math.min(REGEX_TIME_LIMIT_MS, req.services.config.statementTimeoutMs), run);
  if (s.ask.q === undefined) return run(req.services.pool);
  return inReadOnly(req.services.pool, { work_mem: SEARCH_WORK_MEM, ...(ranked ? { enable_bitmapscan: 'off' } : {}) }, run);
}

async function emptyScope(req: Req, s: Search, layers: string[]) {
  const cov = await scopeCoverage(req.services.pool, s.scope, layers, []);
  return { item: [], page: { size: 0, next_cursor: null, indeterminate: 0 }, extra: searchExtra(s.t, cov) };
}

/** A section as the /section list and /law/{id} show it. */
function sectionItem(h: Hit) {
  const r = h._row;
  return {
    id: h.id,
    jurisdiction: h.jurisdiction,
    ref: r.ref,
    heading: r.heading,
    parent_ref: r.parent_ref,
    depth: r.depth,
    document: r.document_id,
    version: r.source_version_id,
    status: h.status,
    effective_from: h.effective_from,
    effective_through: h.effective_through,
    ordinance: h.ordinance,
    citation: h.citation,
    ...(h.snippet !== null ? { snippet: h.snippet, match: h.match } : {}),
    ...(h.rank !== undefined ? { rank: h.rank } : {}),
    href: h.href,
    ...(h.segment ? { segment: h.segment } : {}),
    ...(h.filter_outcome ? { filter_outcome: h.filter_outcome } : {}),
  };
}

export const lawRoutes = defineRoutes([
  {
    id: 'searchLaw',
    method: 'GET',
    path: '/law',
    summary: 'Search ordinances, code sections and moratoriums across towns in one scope: words, a phrase or a regular expression',
    description: HIT_NOTE,
    tag: 'Search across towns',
    credential: 'key',
    scope: 'law:read',
    form: 'plain',
    collection: true,
    dryRun: true,
    response: LAW_HIT,
    fields: { fixed: ['id'] },
    price: { credits: 1, per: 'call', note: 'One credit per page.' },
    refuses: ['sort_requires_query', 'vocabulary_value_unknown'],
    params: [
      Q,
      { name: 'mode', in: 'query', type: 'string', enum: ['literal', 'regex'], default: 'literal' },
      { name: 'kind', in: 'query', type: 'array', items: { type: 'string', enum: LAW_KINDS } },
      { name: 'status', in: 'query', type: 'array', items: { type: 'string', enum: LAW_STATUSES } },
      { name: 'subject', in: 'query', type: 'array', items: { type: 'string', enum: SUBJECTS }, description: 'Ordinances of these subjects, and moratoriums whose ordinance has one; sections are indeterminate.' },
      { name: 'use', in: 'query', type: 'array', description: 'Moratoriums that pause these uses (slugs or use_ ids); other hits are indeterminate.' },
      ...RANGES.map((op): Param => ({ name: `adopted[${op}]`, in: 'query', type: 'date', description: `Adopted ${op} this date (ordinances; moratoriums by their ordinance); sections are indeterminate.` })),
      ...timeParams(),
      ...SCOPE_PARAMS,
      ...paging(['cursor', 'size', 'total', 'sort', 'include_unknown']),
      FIELD_PARAM,
    ],
    handler: async (req) => {
      const p = req.params;
      const s = await search(req, p.mode ?? 'literal');
      const kinds: string[] = p.kind ?? [...LAW_KINDS];
      const layers = [...new Set(kinds.map((k) => LAYER_OF[k]))].sort();
      if (s.scope.ids.length === 0) return emptyScope(req, s, layers);
      const where = lawWhere(s.t, s.scope.ids, p.kind, p.status as LawStatus[] | undefined, s.ask);
      const sort = s.ask.mode === 'literal' && s.ask.q !== undefined ? 'relevance' : '-effective_from';
      const { r, passages } = await hitsPage(req, s, where, 'law', sort, conditions(p, s.ask.uses));
      const items = r.items.map(answered);
      const cov = await scopeCoverage(req.services.pool, s.scope, layers, [...new Set(items.map((i) => i.jurisdiction.id))]);
      return {
        item: items,
        page: r.page,
        extra: searchExtra(s.t, cov, items.map((i) => i.segment ?? []), items.filter((i) => (i.segment?.length ?? 0) > 1).map((i) => i.id)),
        persist: () => persistPassages(req.services.pool, passages),
      };
    },
  },
  {
    id: 'getLaw',
    method: 'GET',
    path: '/law/{law}',
    summary: 'One ordinance (ord_), code section (sec_) or moratorium (mor_) on the date asked, as known',
    description:
      'object names what the id is. An ordinance as GET /ordinance/{id} answers it. A section: the version in force on the date, with its body, its heading citation and body_citation (the whole body, cited); an interval as_of gives segment[] ({from, to, section}, null where not in force). A moratorium as GET /moratorium lists it. 404 when no record has the id as known, or none of its versions is on record on the date.',
    tag: 'Search across towns',
    credential: 'key',
    scope: 'law:read',
    form: 'plain',
    dryRun: true,
    price: { credits: 1, per: 'call', note: 'One credit.' },
    params: [{ name: 'law', in: 'path', type: 'string', required: true }, ...timeParams()],
    handler: async (req) => {
      const id = requireId(['ordinance', 'section', 'moratorium'], req.params.law, 'law');
      if (id.startsWith('ord_')) {
        const a = await oneOrdinance(req, id);
        return { ...a, item: { object: 'ordinance', ...a.item } };
      }
      return id.startsWith('sec_') ? oneSection(req, id) : oneMoratorium(req, id);
    },
  },
  {
    id: 'listSections',
    method: 'GET',
    path: '/section',
    summary: 'Code sections across towns in one scope: in force on the date, by words, ref or document',
    description:
      'Sections of the code texts held, in force on the date asked (or still to come; an interval lists each version in force on some day of it, with segment[]). q finds words or a "phrase" in heading and body (ranked, with snippet and the passage cited); ref gives a section and those under it (3.1 gives 3.1, 3.1.2 …, not 3.10); document one code text (doc_). Without q the order is the code\'s own within each jurisdiction. include=body adds each section\'s text.',
    tag: 'Search across towns',
    credential: 'key',
    scope: 'law:read',
    form: 'plain',
    collection: true,
    dryRun: true,
    response: SECTION,
    fields: { fixed: ['id'] },
    price: { credits: 1, per: 'call', note: 'One credit per page.' },
    params: [
      { ...Q, description: 'Words, a "quoted phrase", OR and -word, over heading and body (PostgreSQL websearch_to_tsquery).' },
      { name: 'ref', in: 'query', type: 'string', description: 'A section ref: it and the sections under it.' },
      { name: 'document', in: 'query', type: 'string', description: 'A code text (doc_ id).' },
      { name: 'include', in: 'query', type: 'array', items: { type: 'string', enum: ['body'] } },
      ...timeParams(),
      ...SCOPE_PARAMS,
      ...paging(['cursor', 'size', 'total', 'sort']),
      FIELD_PARAM,
    ],
    handler: async (req) => {
      const p = req.params;
      if (p.document !== undefined) requireId('document', p.document, 'document');
      const s = await search(req, 'literal');
      if (s.scope.ids.length === 0) return emptyScope(req, s, ['zoning_text']);
      const where = [...lawWhere(s.t, s.scope.ids, ['section'], undefined, s.ask)];
      if (p.ref) where.push((c) => `(h.ref = ${c.bind(p.ref, 'text')} OR starts_with(h.ref, ${c.bind(`${p.ref}.`, 'text')}))`);
      if (p.document) where.push((c) => `h.document_id = ${c.bind(p.document, 'text')}`);
      const sort = s.ask.q !== undefined ? 'relevance' : 'jurisdiction.name,ordinal';
      const { r, passages } = await hitsPage(req, s, where, 'section', sort, undefined);
      const items: Array<Record<string, unknown>> = r.items.map(sectionItem);
      if (p.include?.includes('body')) {
        const { rows } = await req.services.pool.query('SELECT fact_id, body FROM section WHERE fact_id = ANY($1::bigint[])', [r.items.map((h) => h._row.fact_id)]);
        r.items.forEach((h, i) => {
          items[i].body = rows.find((x) => Number(x.fact_id) === Number(h._row.fact_id))?.body ?? null;
        });
      }
      const cov = await scopeCoverage(req.services.pool, s.scope, ['zoning_text'], [...new Set(r.items.map((i) => i.jurisdiction.id))]);
      return {
        item: items,
        page: r.page,
        extra: searchExtra(s.t, cov, r.items.map((i) => i.segment ?? []), r.items.filter((i) => (i.segment?.length ?? 0) > 1).map((i) => i.id)),
        persist: () => persistPassages(req.services.pool, passages),
      };
    },
  },
]);

/** The jurisdiction holding a record of this id, its times and its coverage; 404 when none is held. */
async function single(req: Req, table: 'section' | 'moratorium', id: string, layers: string[]) {
  const db = req.services.pool;
  const { rows } = await db.query(`SELECT DISTINCT jurisdiction_id FROM ${table} WHERE id = $1`, [id]);
  if (!rows[0]) throw notFound(table, id, 'law');
  const scope: Scope = { kind: 'jurisdiction', ids: [rows[0].jurisdiction_id], label: rows[0].jurisdiction_id };
  const t = await searchTimes(db, req.params, scope.ids, null);
  const cov = await scopeCoverage(db, scope, layers, scope.ids);
  return { db, scope, t, cov };
}

/** A section's versions on the dates asked (each with body and the body cited); segment[] over an interval. */
async function oneSection(req: Req, id: string) {
  const { db, scope, t, cov } = await single(req, 'section', id, ['zoning_text']);
  const s: Search = { scope, t, ask: { mode: 'literal', uses: [], subjects: [] } };
  const where = [...lawWhere(t, scope.ids, ['section'], ['in_force', 'adopted', 'expired'], s.ask), (c: Parameters<Where>[0]) => `h.id = ${c.bind(id, 'text')}`];
  const { r } = await hitsPage(req, s, where, 'section', 'effective_from', undefined);
  const bodies = await bodyCitations(db, r.items);
  const passages = [...bodies.values()].flatMap((b) => (b.passage ? [b.passage] : []));
  const version = (h: Hit) => {
    const { snippet: _s, match: _m, ...rest } = sectionItem(h);
    const b = bodies.get(Number(h._row.fact_id));
    return { object: 'section', ...rest, body: b?.body ?? '', body_citation: b?.passage?.view ?? null };
  };
  const { from, to } = datesOf(t, scope.ids[0]);
  const inForce = (d: string) => r.items.find((h) => (!h._row.valid_from || h._row.valid_from <= d) && (!h._row.valid_to || h._row.valid_to > d)) ?? null;
  const persist = () => persistPassages(req.services.pool, passages);
  if (!t.interval) {
    const h = inForce(to);
    if (!h) throw notFound('section', `${id} in force on ${to}${r.items.length ? ` (its versions held are in force ${r.items.map((x) => `${x._row.valid_from ? `from ${x._row.valid_from}` : ''}${x._row.valid_to ? ` through ${dayBefore(x._row.valid_to)}` : ' on'}`).join('; ')})` : ''}`, 'law');
    return { item: version(h), extra: searchExtra(t, cov), persist };
  }
  const changes = r.items.flatMap((h) => [h._row.valid_from, h._row.valid_to]);
  const runs = statusRuns(from, to, changes, (d) => (inForce(d) ? `${inForce(d)!._row.fact_id}` : null));
  if (runs.every((x) => x.status === null)) throw notFound('section', `${id} between ${from} and ${to}`, 'law');
  const segment = runs.map((x) => ({ from: x.from, to: x.to, section: x.status === null ? null : version(r.items.find((h) => `${h._row.fact_id}` === x.status)!) }));
  return { item: { object: 'section', id, segment }, extra: searchExtra(t, cov, [segment], segment.length > 1 ? [id] : []), persist };
}

/** A moratorium on the dates asked. */
async function oneMoratorium(req: Req, id: string) {
  const { db, scope, t, cov } = await single(req, 'moratorium', id, ['ordinance']);
  const r = await runCollection(db, moratoriumResource(t), { size: 1 }, req.services.secret, {
    snapshot: t.known,
    where: [...moratoriumWhere(t, scope.ids), (c) => `m.id = ${c.bind(id, 'text')}`],
  });
  if (!r.items[0]) {
    const { from, to } = datesOf(t, scope.ids[0]);
    throw notFound('moratorium', `${id} on record ${from === to ? `on ${to}` : `between ${from} and ${to}`} as known at ${t.known}`, 'law');
  }
  const periods = await moratoriumPeriods(db, r.items, t);
  const item = { object: 'moratorium', ...moratoriumItem(r.items[0], t, periods.get(id)!) };
  await decorateMoratoriums(db, [item]);
  return { item, extra: searchExtra(t, cov, [item.segment ?? []], (item.segment?.length ?? 0) > 1 ? [id] : []) };
}

