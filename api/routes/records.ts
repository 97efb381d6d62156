// Permits, applications and cases (spec 4.3 "other searches", 4.12, 2.8): GET /permit and /case
// across towns in one scope, the /v1 search forms GET /v1/permit, /v1/application, /v1/case, and one
// record by id. Each record is the feed's own, cited to the feed record it was read from. A scope
// holding no feed of the kind: 200 with an empty page and coverage saying why (unversioned), 501
// not_available (/v1). An id no record has: 404, or 501 while no feed of the kind is held at all.
import { ApiError, invalid, notFound } from '../../core/errors.ts';
import { type IdKind, requireId } from '../../core/ids.ts';
import { openCursor } from '../../core/query/cursor.ts';
import { addCondition, collectionParams, type FilterSet, runCollection, timeParams, type Where } from '../../core/query/index.ts';
import type { Param } from '../../core/query/param.ts';
import { resolveScope, SCOPE_PARAMS, type Scope } from '../../core/query/scope.ts';
import { resolveKnownAsOf } from '../../core/time.ts';
import type { Queryable } from '../../store/db.ts';
import { scopeCoverage } from '../../store/search/coverage.ts';
import { CASE_OBJECTS, feedsHeld, landRecordById, landRecordResource, landRecordWhere, PERMIT_OBJECTS } from '../../store/search/records.ts';
import { searchTimes } from '../../store/search/when.ts';
import { FIELD_PARAM } from '../fields.ts';
import { defineRoutes, type Req, type Route } from '../route.ts';
import { searchExtra } from '../search/items.ts';
import { recordObjects } from '../search/records.ts';
import { APPLICATION, CASE, PERMIT, PERMIT_OR_APPLICATION } from './records-schemas.ts';

type Layer = 'permit' | 'case';
const RANGES = ['gte', 'lte'] as const;
const KNOWN = timeParams().filter((p) => p.name === 'known_as_of');
const PRICE = { credits: 1, per: 'call' as const, note: 'One credit per page.' };

const rangeParams = (fields: string[]): Param[] =>
  fields.flatMap((f) => RANGES.map((op) => ({ name: `${f}[${op}]`, in: 'query' as const, type: 'date' as const, description: `${f} ${op} this date; a record stating no ${f} date is indeterminate.` })));

function searchParams(layer: Layer, v1: boolean): Param[] {
  const permits = layer === 'permit';
  return [
    ...(permits && !v1 ? [{ name: 'object', in: 'query' as const, type: 'array' as const, items: { type: 'string' as const, enum: PERMIT_OBJECTS }, description: 'permit (an issue date is stated), application (none yet); default both.' }] : []),
    { name: 'number', in: 'query', type: 'string', description: "The publisher's record number, exactly (case and surrounding spaces ignored)." },
    { name: 'type', in: 'query', type: 'array', description: 'Type codes as the publisher prints them.' },
    { name: 'status', in: 'query', type: 'array', description: 'Status codes as the publisher prints them.' },
    { name: 'agency_type', in: 'query', type: 'array', description: 'The deciding agency: building, zoning_board, planning_board... as the feed mapping names it.' },
    { name: 'pending', in: 'query', type: 'boolean', description: 'true: no decision stated yet; false: decided.' },
    { name: 'parcel', in: 'query', type: 'array', maxItems: 100, description: 'prc_ ids: records about these parcels. Without another scope, their jurisdictions are the scope.' },
    ...rangeParams(permits ? ['applied', 'issued', 'decided'] : ['applied', 'decided']),
    ...(v1 ? [{ name: 'fips', in: 'query' as const, type: 'string' as const, description: 'Census GEOID of a state (2 digits) or county (5 digits): the scope.' }] : []),
    ...KNOWN,
    ...SCOPE_PARAMS,
    ...collectionParams(landRecordResource(layer)),
    ...(v1 ? [] : [FIELD_PARAM]),
  ];
}

/** One scope: the scope parameters, a /v1 fips, or (alone) the parcels' own jurisdictions. */
async function recordScope(req: Req): Promise<Scope> {
  const db = req.services.pool;
  const p = { ...req.params };
  if (p.fips !== undefined) {
    const f = String(p.fips);
    if (!/^\d{2}(\d{3})?$/.test(f)) throw invalid('fips', `${JSON.stringify(f)} is not a state (2 digits) or county (5 digits) GEOID`);
    if (f.length === 2) p.state = f;
    else p.county = f;
  }
  const named = ['region', 'jurisdiction', 'state', 'county', 'geometry'].some((k) => p[k] !== undefined);
  if (!named && p.parcel) {
    const ids = p.parcel as string[];
    for (const id of ids) requireId('parcel', id, 'parcel');
    const { rows } = await db.query('SELECT DISTINCT id, jurisdiction_id FROM parcel WHERE id = ANY($1::text[])', [ids]);
    const missing = ids.filter((id) => !rows.some((r) => r.id === id));
    if (missing.length) throw invalid('parcel', `no parcel held has the id ${missing.join(', ')}`);
    return { kind: 'jurisdiction', ids: [...new Set(rows.map((r) => r.jurisdiction_id as string))], label: `parcel ${ids.join(',')}` };
  }
  return resolveScope(db, p, { organizationId: req.actor?.organizationId });
}

function filterOf(p: Record<string, any>, layer: Layer): FilterSet | undefined {
  let filter: FilterSet | undefined = p.filter;
  for (const f of layer === 'permit' ? ['applied', 'issued', 'decided'] : ['applied', 'decided']) {
    for (const op of RANGES) {
      const v = p[`${f}[${op}]`];
      if (v !== undefined) filter = addCondition(filter, { field: f, op, param: `${f}[${op}]`, operands: [v] });
    }
  }
  return filter;
}

function whereOf(p: Record<string, any>): Where[] {
  const where: Where[] = [];
  if (p.number) where.push((c) => `upper(r.number) = upper(${c.bind(p.number.trim(), 'text')})`);
  if (p.type) where.push((c) => `r.body->'type'->>'code' = ANY(${c.bind(p.type, 'text[]')})`);
  if (p.status) where.push((c) => `r.body->'status'->>'code' = ANY(${c.bind(p.status, 'text[]')})`);
  if (p.agency_type) where.push((c) => `r.body->'agency'->>'type' = ANY(${c.bind(p.agency_type, 'text[]')})`);
  if (p.pending !== undefined) where.push((c) => `((r.body->'decision') = 'null'::jsonb) = ${c.bind(p.pending, 'boolean')}`);
  if (p.parcel) where.push((c) => `r.parcel_ids && ${c.bind(p.parcel, 'text[]')}`);
  return where;
}

/** One page of records of the kinds asked in the scope asked. */
async function searchRecords(req: Req, objects: readonly string[], layer: Layer, v1: boolean) {
  const db = req.services.pool;
  const p = req.params;
  const scope = await recordScope(req);
  const pinned = p.cursor ? openCursor(p.cursor, req.services.secret).t : null;
  const t = await searchTimes(db, p, scope.ids, pinned);
  const held = scope.ids.length ? await feedsHeld(db, layer, scope.ids) : [];
  if (v1 && held.length === 0) {
    throw new ApiError('not_available', { detail: `No ${layer} feed is held for ${scope.label}: no jurisdiction in scope publishes ${layer === 'case' ? 'cases' : 'permits'} that Landlex reads. GET /coverage?layer=${layer} names what is held.` });
  }
  const asked = !v1 && p.object ? (p.object as string[]) : objects;
  if (held.length === 0) {
    const cov = await scopeCoverage(db, scope, [layer], []);
    return { items: [], page: { size: 0, next_cursor: null, indeterminate: 0 }, extra: searchExtra(t, cov) };
  }
  const r = await runCollection(db, landRecordResource(layer), { ...p, filter: filterOf(p, layer) }, req.services.secret, {
    snapshot: t.known,
    where: [...landRecordWhere(t, held, asked), ...whereOf(p)],
  });
  const items = await recordObjects(db, r.items, t.known);
  items.forEach((i, k) => {
    if ((r.items[k] as { filter_outcome?: string }).filter_outcome) i.filter_outcome = (r.items[k] as { filter_outcome?: string }).filter_outcome;
  });
  const cov = await scopeCoverage(db, scope, [layer], [...new Set(r.items.map((i) => i.jurisdiction_id as string))]);
  return { items, page: r.page, extra: searchExtra(t, cov) };
}

/** One record by id: 404 when none has it, 501 while no feed of its kind is held anywhere. */
async function oneRecord(db: Queryable, kind: IdKind, raw: string, field: string, knownAsOf: unknown) {
  const id = requireId(kind, raw, field);
  const k = resolveKnownAsOf(knownAsOf as never);
  const known = k.kind === 'instant' ? k.instant : k.end;
  const row = await landRecordById(db, id, known);
  const layer: Layer = kind === 'case' ? 'case' : 'permit';
  if (!row || row.kind !== kind) {
    if ((await feedsHeld(db, layer, null)).length === 0) throw new ApiError('not_available', { field, detail: `No ${layer} feed of any jurisdiction is held yet, so no ${kind} can be read.` });
    throw notFound(kind, id);
  }
  const [item] = await recordObjects(db, [row], known);
  return { item, charge: { keys: [`${kind}:${id}`] } };
}

const listRoute = (o: { id: string; path: string; summary: string; objects: readonly string[]; layer: Layer; v1: boolean; response: Record<string, unknown>; tag: string }): Route => ({
  id: o.id,
  method: 'GET',
  path: o.path,
  summary: o.summary,
  description:
    'One scope (jurisdiction, state, county, geometry or region; or parcel alone; /v1 also takes fips). Each record as its publisher\'s feed states it, as known at known_as_of, with citation: the feed record itself, quoted from the retained version. parcels and zoning name the parcels and districts held (id null where the record names one not held). Date ranges make a record stating no such date indeterminate (filter_indeterminate decides). ' +
    (o.v1 ? '501 not_available when no jurisdiction in scope publishes a feed of this kind that is held.' : 'A scope where no such feed is held answers an empty page; coverage and layer[] say which jurisdictions hold none.'),
  tag: o.tag,
  credential: 'key',
  scope: 'records:read',
  form: o.v1 ? 'v1' : 'plain',
  collection: true,
  dryRun: true,
  response: o.response,
  ...(o.v1 ? {} : { fields: { fixed: ['id', 'object'] } }),
  refuses: ['not_available'],
  price: PRICE,
  params: searchParams(o.layer, o.v1),
  handler: async (req) => {
    const r = await searchRecords(req, o.objects, o.layer, o.v1);
    if (o.v1) return { item: r.items, page: r.page };
    return { item: r.items, page: r.page, extra: r.extra };
  },
});

const oneRoute = (kind: 'permit' | 'application' | 'case', response: Record<string, unknown>): Route => ({
  id: `get${kind[0].toUpperCase()}${kind.slice(1)}`,
  method: 'GET',
  path: `/v1/${kind}/{${kind}_id}`,
  summary: `One ${kind} by id, cited to the feed record it was read from`,
  description: `404 no_such_resource when no ${kind} has the id; 501 not_available while no ${kind === 'case' ? 'case' : 'permit'} feed of any jurisdiction is held.`,
  tag: 'Permits and cases',
  credential: 'key',
  scope: 'records:read',
  form: 'v1',
  dryRun: true,
  response,
  refuses: ['not_available'],
  price: { credits: 1, per: 'call', repeatFreeHours: 24, note: 'One credit; repeats within a day are free.' },
  params: [{ name: `${kind}_id`, in: 'path', type: 'string', required: true }, ...KNOWN],
  handler: (req) => oneRecord(req.services.pool, kind, req.params[`${kind}_id`], `${kind}_id`, req.params.known_as_of),
});

export const recordRoutes = defineRoutes([
  listRoute({ id: 'listPermits', path: '/permit', summary: 'Permits and permit applications across towns in one scope', objects: PERMIT_OBJECTS, layer: 'permit', v1: false, response: PERMIT_OR_APPLICATION, tag: 'Search across towns' }),
  listRoute({ id: 'listCases', path: '/case', summary: 'Zoning board and planning board cases across towns in one scope', objects: CASE_OBJECTS, layer: 'case', v1: false, response: CASE, tag: 'Search across towns' }),
  listRoute({ id: 'listPermitsV1', path: '/v1/permit', summary: 'Permits (an issue date stated) in one scope', objects: ['permit'], layer: 'permit', v1: true, response: PERMIT, tag: 'Permits and cases' }),
  listRoute({ id: 'listApplicationsV1', path: '/v1/application', summary: 'Permit applications (no issue date yet) in one scope', objects: ['application'], layer: 'permit', v1: true, response: APPLICATION, tag: 'Permits and cases' }),
  listRoute({ id: 'listCasesV1', path: '/v1/case', summary: 'Cases in one scope', objects: CASE_OBJECTS, layer: 'case', v1: true, response: CASE, tag: 'Permits and cases' }),
  oneRoute('permit', PERMIT),
  oneRoute('application', APPLICATION),
  oneRoute('case', CASE),
]);
