// Public property records (spec 4.4): GET and POST /property (by location, owner of record,
// jurisdiction or county), GET /property/{id} (the records on record on the date asked), and
// GET /transaction (recorded sales, transfers, mortgages and assignments). Nothing is estimated.
import { invalid, notFound } from '../../core/errors.ts';
import { requireId } from '../../core/ids.ts';
import { openCursor } from '../../core/query/cursor.ts';
import { addCondition, collectionParams, type FilterSet, runCollection, timeParams, type Where } from '../../core/query/index.ts';
import { resolveOptionalScope, SCOPE_PARAMS } from '../../core/query/scope.ts';
import { addDays, PROVISIONAL_ZONE, resolveAsOf, resolveKnownAsOf, type TimeSpec, type TimeValue, timeBlock } from '../../core/time.ts';
import { settledAnywhere } from '../../store/changes.ts';
import type { Queryable } from '../../store/db.ts';
import { factIdIs } from '../../store/fact-id.ts';
import { type CoverageRow, changeDays, deedsOf, distancesOf, firstOnRecord, inArea, onParcels, ownedBy, type PropertyWhen, propertyInForce, propertyResource, recordCoverage, transactionsOf, withSources } from '../../store/records/property.ts';
import { partyNamed, TRANSACTION_KINDS, transactionKnown, transactionResource } from '../../store/records/transaction.ts';
import { dayOf, fixedDay } from '../../store/records/when.ts';
import { FIELD_PARAM } from '../fields.ts';
import { LOCATION_KEYS, LOCATION_PARAMS } from '../location/params.ts';
import type { Param } from '../params.ts';
import { type PlaceContext, placeContextFor, resolutionBlock, settledNotice, settleKnown } from '../place/common.ts';
import { type Decoration, PROPERTY_INCLUDES, propertyItem } from '../records/property.ts';
import { transactionItem } from '../records/transaction.ts';
import { defineRoutes, type Req, type Route } from '../route.ts';
import { PROPERTY, PROPERTY_FIELDS, TRANSACTION } from './property-schemas.ts';

/**
 * One credit per call (a page), charged before the answer is made: the unit is the call, estimated
 * (so checked, under dry_run too) from the request, which refuses what it cannot answer.
 */
const PAGE = { credits: 1, per: 'item' as const, upfront: true, note: 'One credit per page.' };
/** One unit, once the request's check (the argument) has passed. */
const units = (_checked: unknown) => 1;
const staticProperty = propertyResource(null, null);

const PROPERTY_NOTE =
  'Properties are the assessor’s records in force on the date asked (as_of; an interval answers on its last day) as known at known_as_of, one per account (the latest roll’s when several hold it). Find them by a location (the properties on the parcels it resolves to, or on every parcel an area meets), by owner_name (every property whose owners of record on the date include the name, compared with case and runs of spaces folded), or by jurisdiction or county; use_raw narrows to assessor use codes. Owners of record are the roll’s, unless a deed naming a grantee was recorded on or after the roll took effect and by the date asked: the latest such deed’s grantees (ownership.basis says which). A value the roll leaves blank is withheld with why; a value it has no column for is absent; nothing is estimated. sort=distance needs point or geometry.';

/** The location asked: query parameters, or the POST form's body. */
function locationOf(req: Req): Record<string, unknown> {
  const p = req.params;
  const body = (req.body ?? {}) as { geometry?: unknown; parcel?: string[] };
  if (body.geometry !== undefined && p.geometry !== undefined) throw invalid('geometry', 'give geometry in the query or in the body, not both');
  if (body.parcel !== undefined && p.parcel !== undefined) throw invalid('parcel', 'give parcel in the query or in the body, not both');
  const geometry = p.geometry ?? (body.geometry === undefined ? undefined : typeof body.geometry === 'string' ? body.geometry : JSON.stringify(body.geometry));
  return { ...p, geometry, parcel: p.parcel ?? body.parcel };
}

const givenLocation = (p: Record<string, unknown>) => LOCATION_KEYS.filter((k) => p[k] !== undefined);

/** What a property search asks, checked before any work (and under dry_run). */
function checkPropertySearch(req: Req) {
  const p = locationOf(req);
  const located = givenLocation(p);
  const scopes = [...(located.length ? [located[0]] : []), ...(['jurisdiction', 'county'] as const).filter((k) => p[k] !== undefined)];
  if (scopes.length > 1) throw invalid(scopes[1], `give one of a location, jurisdiction or county, not ${scopes.join(' and ')}`);
  if (!scopes.length && p.owner_name === undefined) {
    throw invalid('owner_name', 'name what to search: a location (address, point, geometry, parcel, apn, plss or location_token), owner_name, jurisdiction or county');
  }
  const sort = req.params.sort as { keys: Array<{ field: string }> } | undefined;
  if (sort?.keys.some((k) => k.field === 'distance') && p.point === undefined && p.geometry === undefined) {
    throw invalid('sort', 'sort=distance measures from the point or geometry asked; send point or geometry, or sort by label, land_area or year_built');
  }
  if (p.owner_name !== undefined && String(p.owner_name).trim() === '') throw invalid('owner_name', 'is empty');
  return p;
}

/** Where distance is measured from: the point asked (not its buffer), or the geometry as given. */
function distanceFrom(p: Req['params']): { text: string; json: boolean } | null {
  if (p.point) return { text: JSON.stringify({ type: 'Point', coordinates: [p.point.lon, p.point.lat] }), json: true };
  if (p.geometry) return { text: String(p.geometry).trim(), json: String(p.geometry).trim().startsWith('{') };
  return null;
}

/** The coverage block of one jurisdiction's record layers. */
function coverageBlock(rows: CoverageRow[], id: string) {
  const layer: Record<string, unknown> = {};
  for (const r of rows.filter((x) => x.jurisdiction_id === id)) {
    layer[r.layer] = r.held
      ? { held: true, tier: r.tier, last_retrieved_at: r.last_retrieved_at, last_changed_at: r.last_changed_at, earliest_retained: r.earliest_retained }
      : { held: false, tier: 'none', reason: `no public source of the ${r.layer} layer of ${r.name} is held` };
  }
  return { jurisdiction: id, layer, href: `/coverage?jurisdiction=${id}` };
}

interface Times {
  asOf: TimeValue;
  knownAsOf: TimeValue;
  /** the knowledge instant the walk is pinned to */
  known: string;
  timezone: string;
}

async function timesOf(db: Queryable, p: Req['params'], secret: Buffer, timezone: string, settled: string | null): Promise<Times> {
  const pinnedAt = p.cursor ? openCursor(p.cursor, secret).t : null;
  const k = resolveKnownAsOf(p.known_as_of);
  const asked = k.kind === 'instant' ? k.instant : k.end;
  const known = pinnedAt ?? settled ?? (await settledAnywhere(db, asked));
  const knownAsOf: TimeValue = k.kind === 'instant' ? { ...k, instant: known, date: known.slice(0, 10) } : { ...k, end: known };
  return { asOf: resolveAsOf(p.as_of, timezone, new Date(known)), knownAsOf, known, timezone };
}

const emptyPage = { size: 0, next_cursor: null, indeterminate: 0 };

async function searchProperties(req: Req) {
  const db = req.services.pool;
  const p = checkPropertySearch(req);
  const include = new Set<string>(req.params.include ?? []);
  const w = { day: dayOf(p.as_of as TimeSpec | undefined) };
  const where: Where[] = [];
  const extra: Record<string, unknown> = {};
  const notice: unknown[] = [];
  let scopeIds: string[] | null = null;
  let times: Times;
  let place: PlaceContext | null = null;
  if (givenLocation(p).length) {
    place = await placeContextFor(req.services, p);
    extra.resolution = resolutionBlock(place);
    if (place.settled) notice.push(settledNotice(place.settled));
    times = await timesOf(db, p, req.services.secret, place.jurisdiction?.timezone ?? PROVISIONAL_ZONE, place.times.knownAsOf);
    const r = place.resolved;
    if (r.state === 'resolved' && r.parcels.length) where.push(onParcels(r.parcels.map((x) => x.id)));
    else if (r.state === 'resolved' && r.grain === 'area' && r.geojson) where.push(inArea(w, r.geojson));
    else {
      const why =
        r.state === 'resolved'
          ? `the location resolves to ${/^[aeiou]/.test(r.grain) ? 'an' : 'a'} ${r.grain} in no parcel: property records are held per parcel`
          : `the location ${r.state === 'ambiguous' ? 'is ambiguous' : `resolves only to ${/^[aeiou]/.test(r.grain) ? 'an' : 'a'} ${r.grain}`}: no parcel is guessed (strict=true refuses it)`;
      extra.layer = [{ layer: 'property', held: true, reason: why }];
      extra.as_of = timeBlock({ asOf: times.asOf, knownAsOf: times.knownAsOf, timezone: times.timezone });
      if (notice.length) extra.notice = notice;
      return { item: [], page: emptyPage, extra };
    }
  } else {
    const scope = await resolveOptionalScope(db, { jurisdiction: p.jurisdiction, county: p.county });
    if (scope) {
      scopeIds = scope.ids;
      where.push((c) => `p.jurisdiction_id = ANY(${c.bind(scope.ids, 'text[]')})`);
    }
    const zone = scopeIds?.length ? (await db.query('SELECT timezone FROM jurisdiction WHERE id = ANY($1::text[]) GROUP BY timezone ORDER BY count(*) DESC, timezone LIMIT 1', [scopeIds])).rows[0]?.timezone : null;
    times = await timesOf(db, p, req.services.secret, zone ?? PROVISIONAL_ZONE, null);
  }
  // a whole jurisdiction's rows find the ids two rolls hold at once; a place's or an owner's few probe each
  where.unshift(propertyInForce(w, scopeIds && !givenLocation(p).length && p.owner_name === undefined ? scopeIds : null));
  if (p.owner_name !== undefined) where.push(ownedBy(w, String(p.owner_name)));
  if (p.use_raw) where.push((c) => `upper(btrim(p.current_use->>'code')) = ANY(${c.bind((p.use_raw as string[]).map((u) => u.trim().toUpperCase()), 'text[]')})`);
  const from = distanceFrom(p);
  const r = await runCollection(db, propertyResource(w, from), req.params, req.services.secret, { snapshot: times.known, where });
  r.items = await withSources(db, r.items);
  const snapshot = r.snapshot ?? times.known;
  const facts = r.items.map((x) => Number(x.fact_id));
  const [deeds, txns, distances, cov] = await Promise.all([
    include.has('ownership') ? deedsOf(db, facts, w, snapshot) : null,
    include.has('transaction') ? transactionsOf(db, facts, w, snapshot) : null,
    from ? distancesOf(db, facts, w, snapshot, from) : null,
    recordCoverage(db, [...new Set([...r.items.map((x) => x.jurisdiction_id as string), ...(scopeIds ?? []), ...(place?.jurisdiction ? [place.jurisdiction.id] : [])])]),
  ]);
  const items = r.items.map((row) => {
    const f = Number(row.fact_id);
    const dec: Decoration = { deed: deeds?.get(f), transactions: txns?.get(f) ?? [], coverage: coverageBlock(cov, row.jurisdiction_id) };
    if (distances) dec.distanceM = distances.get(f) ?? null;
    return { ...propertyItem(row, include, dec), ...(row.filter_outcome ? { filter_outcome: row.filter_outcome } : {}) };
  });
  // jurisdictions in scope that hold no roll: named, with why (an empty page is not "none there")
  const notHeld = cov.filter((c) => c.layer === 'assessor' && !c.held && (scopeIds ?? [place?.jurisdiction?.id]).includes(c.jurisdiction_id));
  if (notHeld.length) extra.layer = notHeld.map((c) => ({ jurisdiction: c.jurisdiction_id, layer: 'assessor', held: false, reason: `no assessor roll of ${c.name} is held: its properties cannot be listed` }));
  const answered = [...new Set(r.items.map((i) => i.jurisdiction_id as string))];
  const one = place?.jurisdiction?.id ?? (answered.length === 1 ? answered[0] : scopeIds?.length === 1 ? scopeIds[0] : null);
  extra.coverage = one ? coverageBlock(cov, one) : { jurisdiction: answered, block: answered.map((id) => coverageBlock(cov, id)), href: '/coverage' };
  extra.as_of = timeBlock({ asOf: times.asOf, knownAsOf: times.knownAsOf, timezone: times.timezone, earliestRetained: earliest(cov, one) });
  if (p.as_of && (p.as_of as { form: string }).form !== 'date' && (p.as_of as { form: string }).form !== 'instant') {
    notice.push({ code: 'as_of_interval_last_day', severity: 'info', detail: 'An interval as_of lists the properties on record on its last day; GET /property/{id} with the same as_of gives each one\'s segment[].', count: 1, subject: [] });
  }
  if (notice.length) extra.notice = notice;
  return { item: items, page: r.page, extra };
}

function earliest(cov: CoverageRow[], id: string | null): Record<string, string> {
  const out: Record<string, string> = {};
  for (const c of cov) if ((!id || c.jurisdiction_id === id) && c.earliest_retained && (!out[c.layer] || c.earliest_retained > out[c.layer])) out[c.layer] = c.earliest_retained;
  return out;
}

/** A property on one day as known at `known`, through the same statement as the search (null: no record in force then). */
async function propertyOn(req: Req, id: string, w: PropertyWhen, known: string, include: Set<string>, coverage: Record<string, unknown>) {
  const db = req.services.pool;
  const r = await runCollection(db, propertyResource(w, null), { size: 1 }, req.services.secret, { snapshot: known, where: [propertyInForce(w), (c) => factIdIs('p', c.bind(id, 'text'))] });
  const [row] = await withSources(db, r.items);
  if (!row) return null;
  const facts = [Number(row.fact_id)];
  const [deeds, txns] = await Promise.all([include.has('ownership') ? deedsOf(db, facts, w, known) : null, include.has('transaction') ? transactionsOf(db, facts, w, known) : null]);
  return propertyItem(row, include, { deed: deeds?.get(facts[0]), transactions: txns?.get(facts[0]) ?? [], coverage });
}

/** What a segment of an interval shows: the record's own dated parts (source and freshness aside, which name versions, not facts). */
function segmentOf(item: Record<string, unknown> | null, include: Set<string>) {
  if (!item) return { on_record: false };
  const out: Record<string, unknown> = { on_record: true, fiscal_year: item.fiscal_year, label: item.label, land_area: item.land_area, current_use: item.current_use };
  for (const k of include) out[k] = item[k];
  return out;
}

/**
 * One property on the date asked: the ownership, assessment and structures on record then. An
 * interval as_of gives the record on its last day and segment[]: the maximal runs of days over
 * which those parts were the same (a roll taking effect or ending, a deed recorded).
 */
async function oneProperty(req: Req) {
  const id = requireId('property', req.params.property, 'property');
  const db = req.services.pool;
  const { rows } = await db.query(`SELECT p.jurisdiction_id, j.timezone FROM property p JOIN jurisdiction j ON j.id = p.jurisdiction_id WHERE ${factIdIs('p', '$1')} LIMIT 1`, [id]);
  if (!rows[0]) throw notFound('property', id, 'property');
  const include = new Set<string>(req.params.include ?? []);
  const k = resolveKnownAsOf(req.params.known_as_of);
  const s = await settleKnown(db, k, [rows[0].jurisdiction_id]);
  const known = s.knownAsOf.kind === 'instant' ? s.knownAsOf.instant : s.knownAsOf.end;
  const times = await timesOf(db, req.params, req.services.secret, rows[0].timezone, known);
  const cov = await recordCoverage(db, [rows[0].jurisdiction_id]);
  const coverage = coverageBlock(cov, rows[0].jurisdiction_id);
  const notice: unknown[] = s.settled ? [settledNotice(s.settled)] : [];
  const last = times.asOf.kind === 'instant' ? times.asOf.date : times.asOf.to;
  const item = await propertyOn(req, id, { day: fixedDay(last) }, times.known, include, coverage);
  let segments = 1;
  let segment: Array<Record<string, unknown>> | undefined;
  if (times.asOf.kind === 'interval') {
    const { from, to } = times.asOf;
    const starts = [from, ...(await changeDays(db, id, times.known, from, to))];
    segment = [];
    let previous = '';
    for (const [i, day] of starts.entries()) {
      const at = day === last ? item : await propertyOn(req, id, { day: fixedDay(day) }, times.known, include, coverage);
      const value = segmentOf(at, include);
      const end = i + 1 < starts.length ? addDays(starts[i + 1], -1) : to;
      const text = JSON.stringify(value);
      if (segment.length && text === previous) segment[segment.length - 1].to = end;
      else segment.push({ from: day, to: end, ...value });
      previous = text;
    }
    segments = segment.length;
    if (segments > 1) notice.push({ code: 'as_of_interval_spans_change', severity: 'info', detail: `The record changed within the interval; the answer has ${segments} segments.`, count: segments, subject: [id] });
  }
  const extra: Record<string, unknown> = { coverage, as_of: timeBlock({ asOf: times.asOf, knownAsOf: times.knownAsOf, timezone: times.timezone, earliestRetained: earliest(cov, rows[0].jurisdiction_id), segmentCount: segments }) };
  if (!item) {
    const held = await firstOnRecord(db, id, times.known);
    const span = held.from ? `its records are in force from ${held.from}${held.through ? ` until ${held.through}` : ''}` : 'no record of it was known then';
    notice.push({ code: 'not_on_record', severity: 'info', detail: `${id} has no assessor record in force on ${last} as known at ${times.known}: ${span}.`, count: 1, subject: [id] });
  }
  if (notice.length) extra.notice = notice;
  return { item: item && segment ? { ...item, segment } : item, extra };
}

const RANGES: Array<[string, 'gte' | 'lte', string]> = [
  ['recorded[gte]', 'gte', 'recorded_on'],
  ['recorded[lte]', 'lte', 'recorded_on'],
  ['consideration[gte]', 'gte', 'consideration'],
  ['consideration[lte]', 'lte', 'consideration'],
];

/** recorded[…] and consideration[…] as filter conditions: a transaction that does not state the value is indeterminate, never dropped. */
function rangeFilter(p: Req['params']): FilterSet | undefined {
  let filter: FilterSet | undefined = p.filter;
  for (const [param, op, field] of RANGES) if (p[param] !== undefined) filter = addCondition(filter, { field, op, param, operands: [p[param]] });
  return filter;
}

async function checkTransactionSearch(req: Req) {
  const p = req.params;
  const given = ['region', 'jurisdiction', 'state', 'county', 'geometry'].filter((k) => p[k] !== undefined);
  if (given.length > 1) throw invalid(given[1], `give one scope, not ${given.join(' and ')}`);
  if (!given.length && !p.property && p.party_name === undefined) throw invalid('jurisdiction', 'name a scope (jurisdiction, state, county, geometry or region), property or party_name');
  if (p.party_name !== undefined && String(p.party_name).trim() === '') throw invalid('party_name', 'is empty');
  for (const [i, id] of ((p.property as string[] | undefined) ?? []).entries()) requireId('property', id, `property[${i}]`);
  const low = p['consideration[gte]'];
  const high = p['consideration[lte]'];
  if (low !== undefined && high !== undefined && low > high) throw invalid('consideration[gte]', `the low end (${low}) is above the high end (${high})`);
  if (p['recorded[gte]'] && p['recorded[lte]'] && p['recorded[gte]'] > p['recorded[lte]']) throw invalid('recorded[gte]', 'the range starts after it ends');
}

async function searchTransactions(req: Req) {
  await checkTransactionSearch(req);
  const db = req.services.pool;
  const p = req.params;
  const where: Where[] = [(c) => transactionKnown(c)];
  const scope = await resolveOptionalScope(db, p, { organizationId: req.actor?.organizationId });
  if (scope) where.push((c) => `t.jurisdiction_id = ANY(${c.bind(scope.ids, 'text[]')})`);
  if (p.property) {
    const { rows } = await db.query('SELECT DISTINCT id FROM property WHERE id_hash = ANY(ARRAY(SELECT hashtextextended(x, 0) FROM unnest($1::text[]) x)) AND id = ANY($1::text[])', [p.property]);
    const unknown = (p.property as string[]).filter((x) => !rows.some((r) => r.id === x));
    if (unknown.length) throw invalid('property', `no property has the id ${unknown.join(', ')}`);
    where.push((c) => `t.property_ids && ${c.bind(p.property, 'text[]')}`);
  }
  if (p.kind) where.push((c) => `t.kind = ANY(${c.bind(p.kind, 'text[]')})`);
  if (p.party_name !== undefined) where.push((c) => partyNamed(c, String(p.party_name)));
  const k = resolveKnownAsOf(undefined);
  const pinnedAt = p.cursor ? openCursor(p.cursor, req.services.secret).t : null;
  const known = pinnedAt ?? (await settledAnywhere(db, k.kind === 'instant' ? k.instant : k.end));
  const r = await runCollection(db, transactionResource, { ...p, filter: rangeFilter(p) }, req.services.secret, { snapshot: known, where });
  const items = (await withSources(db, r.items)).map((row) => ({ ...transactionItem(row), ...(row.filter_outcome ? { filter_outcome: row.filter_outcome } : {}) }));
  const ids = [...new Set([...items.map((i) => i.jurisdiction.id as string), ...(scope?.ids ?? [])])];
  const cov = await recordCoverage(db, ids);
  const extra: Record<string, unknown> = {};
  const notHeld = cov.filter((c) => c.layer === 'recorder' && !c.held && (scope?.ids ?? []).includes(c.jurisdiction_id));
  if (notHeld.length) extra.layer = notHeld.map((c) => ({ jurisdiction: c.jurisdiction_id, layer: 'recorder', held: false, reason: `no registry index of ${c.name} is held: its recorded transactions cannot be listed` }));
  const answered = [...new Set(items.map((i) => i.jurisdiction.id as string))];
  extra.coverage = answered.length === 1 && (!scope || scope.ids.length <= 1) ? coverageBlock(cov, answered[0]) : scope?.ids.length === 1 ? coverageBlock(cov, scope.ids[0]) : { jurisdiction: answered, block: answered.map((id) => coverageBlock(cov, id)), href: '/coverage' };
  return { item: items, page: r.page, extra: { ...extra, as_of: { known_as_of: known, known_as_of_basis: 'default' } } };
}

const PROPERTY_BODY = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: {
    geometry: { type: ['string', 'object'], minLength: 1, description: 'WKT text, or GeoJSON (text or object), Point through MultiPolygon.' },
    parcel: { type: 'array', minItems: 1, maxItems: 200, items: { type: 'string', minLength: 1, maxLength: 40 }, description: 'prc_ ids (an assemblage).' },
  },
};

const PROPERTY_PARAMS: Param[] = [
  ...LOCATION_PARAMS,
  { name: 'jurisdiction', in: 'query', type: 'array', maxItems: 100, description: 'jur_ ids, slugs or fips_keys: the properties each assessor holds.' },
  { name: 'county', in: 'query', type: 'string', description: "5-digit county FIPS or a county's jur_ id: the properties of every jurisdiction in it." },
  { name: 'owner_name', in: 'query', type: 'string', description: 'An owner of record on the date asked, exactly as the public record writes the name (case and runs of spaces do not matter).' },
  { name: 'use_raw', in: 'query', type: 'array', maxItems: 100, description: "The assessor's use or class codes, as printed (repeatable; case ignored)." },
  { name: 'include', in: 'query', type: 'array', items: { type: 'string', enum: PROPERTY_INCLUDES }, description: 'Sections to embed.' },
  ...timeParams(),
  ...collectionParams(staticProperty),
  FIELD_PARAM,
];

const LIST_PROPERTIES: Route = {
  id: 'listProperties',
  method: 'GET',
  path: '/property',
  summary: 'Find properties by location, owner of record, jurisdiction or county',
  description: PROPERTY_NOTE,
  tag: 'Public property records',
  credential: 'key',
  scope: 'place:read',
  form: 'plain',
  collection: true,
  dryRun: true,
  response: PROPERTY,
  fields: PROPERTY_FIELDS,
  price: { ...PAGE, estimateUnits: (req) => units(checkPropertySearch(req)) },
  params: PROPERTY_PARAMS,
  handler: searchProperties,
};

export const propertyRoutes = defineRoutes([
  LIST_PROPERTIES,
  { ...LIST_PROPERTIES, id: 'postProperties', method: 'POST', summary: 'Find properties for a geometry or parcel list too long for a query string', body: PROPERTY_BODY },
  {
    id: 'getProperty',
    method: 'GET',
    path: '/property/{property}',
    summary: 'One property: the ownership, assessment and structures on record on the date asked',
    description: `${PROPERTY_NOTE} When none of its records is in force on the date asked (as known then), item is null and a notice not_on_record says when they are.`,
    tag: 'Public property records',
    credential: 'key',
    scope: 'place:read',
    form: 'plain',
    dryRun: true,
    response: PROPERTY,
    fields: PROPERTY_FIELDS,
    price: { ...PAGE, note: 'One credit.', estimateUnits: (req) => units(requireId('property', req.params.property, 'property')) },
    params: [{ name: 'property', in: 'path', type: 'string', required: true }, { name: 'include', in: 'query', type: 'array', items: { type: 'string', enum: PROPERTY_INCLUDES } }, ...timeParams(), FIELD_PARAM],
    handler: oneProperty,
  },
  {
    id: 'listTransactions',
    method: 'GET',
    path: '/transaction',
    summary: 'Recorded sales, transfers, mortgages and assignments; nothing estimated',
    description:
      'Each transaction as the registry’s index states it, known now, cited to the index version it was read from. recorded[gte]/[lte] (dates) and consideration[gte]/[lte] (whole cents) are conditions like filter: an instrument that does not state the value is returned with filter_outcome indeterminate (filter_indeterminate=exclude leaves it out). party_name is any party of record, compared with case and runs of spaces folded. A scope (one of region, jurisdiction, state, county, geometry), property or party_name is required.',
    tag: 'Public property records',
    credential: 'key',
    scope: 'place:read',
    form: 'plain',
    collection: true,
    dryRun: true,
    response: TRANSACTION,
    fields: { fixed: ['id'] },
    price: { ...PAGE, estimateUnits: async (req) => units(await checkTransactionSearch(req)) },
    params: [
      { name: 'kind', in: 'query', type: 'array', items: { type: 'string', enum: TRANSACTION_KINDS } },
      { name: 'property', in: 'query', type: 'array', maxItems: 100, description: 'pty_ ids: transactions affecting these properties.' },
      { name: 'party_name', in: 'query', type: 'string', description: 'Any party of record (grantor, grantee, mortgagor, mortgagee, assignor, assignee), by its public-record name.' },
      { name: 'recorded[gte]', in: 'query', type: 'date' },
      { name: 'recorded[lte]', in: 'query', type: 'date' },
      { name: 'consideration[gte]', in: 'query', type: 'integer', min: 0, description: 'Cents.' },
      { name: 'consideration[lte]', in: 'query', type: 'integer', min: 0, description: 'Cents.' },
      ...SCOPE_PARAMS,
      ...collectionParams(transactionResource),
      FIELD_PARAM,
    ],
    handler: searchTransactions,
  },
]);

