// GET /ordinance, /ordinance/{id} and /moratorium (spec 4.3): adopted and proposed instruments
// and the moratoriums they enact, across towns in one scope, each on the date asked (its status
// read from the clerk's own dates) as known at the instant asked, cited to the clerk's row.
import { notFound } from '../../core/errors.ts';
import { requireId } from '../../core/ids.ts';
import { openCursor } from '../../core/query/cursor.ts';
import { addCondition, collectionParams, type FilterSet, runCollection, timeParams, type Where } from '../../core/query/index.ts';
import { resolveScope, SCOPE_PARAMS, type Scope } from '../../core/query/scope.ts';
import { scopeCoverage } from '../../store/search/coverage.ts';
import { LAW_STATUSES, moratoriumResource, moratoriumStatusFilter, moratoriumWhere } from '../../store/search/moratorium.ts';
import { ORDINANCE_KINDS, ORDINANCE_STATUSES, ordinanceResource, ordinanceWhere, SUBJECTS, statusFilter } from '../../store/search/ordinance.ts';
import { searchTimes } from '../../store/search/when.ts';
import { FIELD_PARAM } from '../fields.ts';
import type { Param } from '../params.ts';
import { knownUses } from '../place/common.ts';
import { defineRoutes, type Req } from '../route.ts';
import { datesOf, searchExtra } from '../search/items.ts';
import { decorateMoratoriums, decorateOrdinances, moratoriumItem, moratoriumPeriods, ORDINANCE_INCLUDES, type OrdinanceItem, ordinanceItem } from '../search/ordinances.ts';
import { MORATORIUM, ORDINANCE } from './law-schemas.ts';

const RANGES = ['gte', 'lte', 'gt', 'lt'] as const;
const PRICE = { credits: 1, per: 'call' as const, note: 'One credit per page.' };

const ORDINANCE_NOTE =
  'Each ordinance is the clerk\'s list\'s current record as known at known_as_of, read on the date asked: one adopted after it was introduced then (no adoption or effective date yet); one introduced after it is not listed. An interval as_of lists those on record on some day of it, each with segment[] ({from, to, status}); status filters match a status held on some day. include=control and include=permission give the controls and permissions the change events of the ordinance name (as in force from each event\'s effective date, with the changes); include=notice those change events.';

/** adopted[gte] … adopted[lt]: adoption dates on the date asked; an ordinance not adopted then is out, one adopted without a date indeterminate. */
const adoptedParams = (what: string): Param[] =>
  RANGES.map((op) => ({ name: `adopted[${op}]`, in: 'query', type: 'date', description: `Adopted ${op} this date (${what}); one not adopted on the date asked is left out, one adopted without a date is indeterminate.` }));

function adoptedFilter(p: Record<string, any>, low: string, high: string): FilterSet | undefined {
  let filter: FilterSet | undefined = p.filter;
  for (const op of RANGES) {
    const v = p[`adopted[${op}]`];
    if (v !== undefined) filter = addCondition(filter, { field: op === 'gte' || op === 'gt' ? low : high, op, param: `adopted[${op}]`, operands: [v] });
  }
  return filter;
}

/** The scope and times of a search; a cursor's snapshot pins them to its first page's. */
async function searchContext(req: Req) {
  const db = req.services.pool;
  const p = req.params;
  const scope = await resolveScope(db, p, { organizationId: req.actor?.organizationId, asOf: p.as_of });
  const pinned = p.cursor ? openCursor(p.cursor, req.services.secret).t : null;
  const t = await searchTimes(db, p, scope.ids, pinned);
  return { db, p, scope, t };
}

async function emptyScope(req: Req, scope: Scope, t: Awaited<ReturnType<typeof searchTimes>>, layers: string[]) {
  const cov = await scopeCoverage(req.services.pool, scope, layers, []);
  return { item: [], page: { size: 0, next_cursor: null, indeterminate: 0 }, extra: searchExtra(t, cov) };
}

const ordinanceDef = ordinanceResource(null);
const moratoriumDef = moratoriumResource(null);

export const ordinanceRoutes = defineRoutes([
  {
    id: 'listOrdinances',
    method: 'GET',
    path: '/ordinance',
    summary: 'Adopted and proposed ordinances across towns in one scope, on the date asked',
    description: ORDINANCE_NOTE,
    tag: 'Search across towns',
    credential: 'key',
    scope: 'law:read',
    form: 'plain',
    collection: true,
    dryRun: true,
    response: ORDINANCE,
    fields: { fixed: ['id'] },
    price: PRICE,
    params: [
      { name: 'kind', in: 'query', type: 'array', items: { type: 'string', enum: ORDINANCE_KINDS }, description: 'standalone covers solar, wind, battery storage and noise ordinances.' },
      { name: 'subject', in: 'query', type: 'array', items: { type: 'string', enum: SUBJECTS } },
      { name: 'status', in: 'query', type: 'array', items: { type: 'string', enum: ORDINANCE_STATUSES }, description: 'On the date asked (on some day of an interval); proposed and introduced are what is coming.' },
      { name: 'number', in: 'query', type: 'string', description: "The clerk's number, exactly (case and surrounding spaces ignored)." },
      ...adoptedParams('the adoption on record on the date asked'),
      { name: 'include', in: 'query', type: 'array', items: { type: 'string', enum: ORDINANCE_INCLUDES } },
      ...timeParams(),
      ...SCOPE_PARAMS,
      ...collectionParams(ordinanceDef),
      FIELD_PARAM,
    ],
    handler: async (req) => {
      const { db, p, scope, t } = await searchContext(req);
      if (scope.ids.length === 0) return emptyScope(req, scope, t, ['ordinance']);
      const where: Where[] = [...ordinanceWhere(t, scope.ids)];
      if (p.kind) where.push((c) => `o.kind = ANY(${c.bind(p.kind, 'text[]')})`);
      if (p.subject) where.push((c) => `o.subject && ${c.bind(p.subject, 'text[]')}`);
      if (p.number) where.push((c) => `upper(o.number) = upper(${c.bind(p.number.trim(), 'text')})`);
      if (p.status) where.push(statusFilter(t, p.status));
      const r = await runCollection(db, ordinanceResource(t), { ...p, filter: adoptedFilter(p, 'adopted_low', 'adopted_high') }, req.services.secret, {
        snapshot: t.known,
        where,
        map: (row) => ordinanceItem(row, t) as OrdinanceItem,
      });
      await decorateOrdinances(db, r.items, t, p.include ?? []);
      const cov = await scopeCoverage(db, scope, ['ordinance'], [...new Set(r.items.map((i) => i.jurisdiction.id))]);
      const segments = r.items.map((i) => i.segment ?? []);
      return { item: r.items, page: r.page, extra: searchExtra(t, cov, segments, r.items.filter((i) => (i.segment?.length ?? 0) > 1).map((i) => i.id)) };
    },
  },
  {
    id: 'getOrdinance',
    method: 'GET',
    path: '/ordinance/{ordinance}',
    summary: 'One ordinance on the date asked, with what its own text instructs',
    description: `${ORDINANCE_NOTE} The item always carries instruction[]: what the ordinance's own text instructs, as read from its latest version known (a passage of a section struck and another inserted, a table cell, land moved on the map, or a sentence that amends in a way not read, with why), each cited. 404 when no ordinance has the id as known, or when it was not yet introduced on the date asked.`,
    tag: 'Search across towns',
    credential: 'key',
    scope: 'law:read',
    form: 'plain',
    dryRun: true,
    response: ORDINANCE,
    price: { credits: 1, per: 'call', note: 'One credit.' },
    params: [{ name: 'ordinance', in: 'path', type: 'string', required: true }, { name: 'include', in: 'query', type: 'array', items: { type: 'string', enum: ORDINANCE_INCLUDES } }, ...timeParams()],
    handler: async (req) => {
      const id = requireId('ordinance', req.params.ordinance, 'ordinance');
      return oneOrdinance(req, id);
    },
  },
  {
    id: 'listMoratoriums',
    method: 'GET',
    path: '/moratorium',
    summary: 'Moratoriums across towns in one scope: what they pause, where, and whether in force on the date asked',
    description:
      'One item per moratorium (the clerk\'s table as known), with its period (from the first day any version was in force to the last day of the latest), the uses it pauses as printed with their vocabulary slugs (null when not mapped), its area, the ordinance enacting it, and its status on the date asked: proposed (that ordinance not adopted yet), adopted (not in force yet), in_force or expired. status filters match a status held on some day of an interval as_of, and each item then carries segment[]. use (slugs or use_ ids, a parent matching its children and the reverse) keeps moratoriums pausing one of them; one that pauses only labels the vocabulary does not map is indeterminate.',
    tag: 'Search across towns',
    credential: 'key',
    scope: 'law:read',
    form: 'plain',
    collection: true,
    dryRun: true,
    response: MORATORIUM,
    fields: { fixed: ['id'] },
    price: PRICE,
    params: [
      { name: 'use', in: 'query', type: 'array', description: 'Moratoriums pausing these uses (vocabulary slugs or use_ ids).' },
      { name: 'status', in: 'query', type: 'array', items: { type: 'string', enum: LAW_STATUSES } },
      ...adoptedParams('the adoption of the ordinance enacting it'),
      ...timeParams(),
      ...SCOPE_PARAMS,
      ...collectionParams(moratoriumDef, { includeUnknown: true }),
      FIELD_PARAM,
    ],
    handler: async (req) => {
      const uses = await knownUses(req.services.pool, req.params.use);
      const { db, p, scope, t } = await searchContext(req);
      if (scope.ids.length === 0) return emptyScope(req, scope, t, ['ordinance']);
      const where: Where[] = [...moratoriumWhere(t, scope.ids)];
      if (p.status) where.push(moratoriumStatusFilter(t, p.status));
      let filter = adoptedFilter(p, 'adopted_low', 'adopted_high');
      if (uses?.length) filter = addCondition(filter, { field: 'pauses', op: 'eq', param: 'use', operands: [true] });
      const r = await runCollection(db, moratoriumResource(t, uses ?? []), { ...p, filter }, req.services.secret, { snapshot: t.known, where });
      const periods = await moratoriumPeriods(db, r.items, t);
      const items = r.items.map((row) => ({ ...moratoriumItem(row, t, periods.get(row.id)!), ...(row.filter_outcome ? { filter_outcome: row.filter_outcome } : {}) }));
      await decorateMoratoriums(db, items);
      const cov = await scopeCoverage(db, scope, ['ordinance'], [...new Set(items.map((i) => i.jurisdiction.id))]);
      return { item: items, page: r.page, extra: searchExtra(t, cov, items.map((i) => i.segment ?? []), items.filter((i) => (i.segment?.length ?? 0) > 1).map((i) => i.id)) };
    },
  },
]);

/** One ordinance by id on the date asked (404 when not known, or not yet introduced then). */
export async function oneOrdinance(req: Req, id: string) {
  const db = req.services.pool;
  const { rows } = await db.query('SELECT DISTINCT jurisdiction_id FROM ordinance WHERE id = $1', [id]);
  if (!rows[0]) throw notFound('ordinance', id, 'ordinance');
  const scope: Scope = { kind: 'jurisdiction', ids: [rows[0].jurisdiction_id], label: rows[0].jurisdiction_id };
  const t = await searchTimes(db, req.params, scope.ids, null);
  const r = await runCollection(db, ordinanceResource(t), { size: 1 }, req.services.secret, {
    snapshot: t.known,
    where: [...ordinanceWhere(t, scope.ids), (c) => `o.id = ${c.bind(id, 'text')}`],
    map: (row) => ordinanceItem(row, t) as OrdinanceItem,
  });
  const item = r.items[0];
  if (!item) {
    const { from, to } = datesOf(t, scope.ids[0]);
    throw notFound('ordinance', `${id} on record ${from === to ? `on ${to}` : `between ${from} and ${to}`} as known at ${t.known}`, 'ordinance');
  }
  await decorateOrdinances(db, [item], t, req.params.include ?? [], true);
  const cov = await scopeCoverage(db, scope, ['ordinance', 'ordinance_text'], [scope.ids[0]]);
  return { item, extra: searchExtra(t, cov, [item.segment ?? []], (item.segment?.length ?? 0) > 1 ? [item.id] : []) };
}
