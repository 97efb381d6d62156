// Lists of places (spec 2.8, 4.9, /v1 form): an organization's saved lists (lst_) of sites
// (lsi_), each a site of one or more parcels given by id or by an address resolved with the
// location matcher. Another organization's list or item is 404. Adding a site and PATCHing its
// parcels cost one credit per parcel sent with a key, free again for a day; the rest is free.
import { filterProblems } from '../../store/monitors/filter.ts';
import { etagOf, ifMatch } from '../versioned.ts';
import { ApiError, invalid, notFound } from '../../core/errors.ts';
import { newId, requireId } from '../../core/ids.ts';
import { collectionParams, runCollection, type Where } from '../../core/query/index.ts';
import { FREE } from '../plans.ts';
import type { Queryable } from '../../store/db.ts';
import {
  deleteItem,
  deleteList,
  getItem,
  getList,
  heldParcels,
  insertItem,
  insertList,
  ITEM_STATUSES,
  type ItemChange,
  type ItemView,
  ITEMS,
  itemViews,
  LISTS,
  type ListRow,
  type Outcome,
  updateItem,
  updateList,
} from '../../store/lists.ts';
import { resolveLocation } from '../../store/place/resolve.ts';
import { pointTimes } from '../place/common.ts';
import { inOwnZone } from '../place/zone.ts';
import { type Answer, defineRoutes, type JsonSchema, type Price, type Req } from '../route.ts';

const M2_PER_ACRE = 4046.8564224;
const MAX_PARCELS = 500;
const MAX_FILTER_CHARS = 20_000;
const MAX_FILTER_DEPTH = 16;
const PER_PARCEL: Price = {
  credits: 1,
  per: 'item',
  repeatFreeHours: 24,
  note: 'One credit per parcel sent (an address counts the parcels it resolves to), with an API key; the same parcel again within 24 hours is free; a person’s session is not charged.',
  estimateUnits: (req) => (Array.isArray(req.body?.parcel) ? req.body.parcel.length : req.body?.address ? 1 : 0),
};

const iso = (t: Date | string) => new Date(t).toISOString();
const acres = (m2: number | null) => (m2 === null ? null : Math.round((m2 / M2_PER_ACRE) * 1000) / 1000);
const round7 = (x: number | null) => (x === null ? null : Math.round(x * 1e7) / 1e7);

// --- schemas -----------------------------------------------------------------------------------

const NAME = { type: 'string', minLength: 1, maxLength: 200, pattern: '\\S' };
const TEXT = (max: number) => ({ type: ['string', 'null'], maxLength: max });
const STATUS = { type: 'string', enum: [...ITEM_STATUSES] };
const PARCELS = { type: 'array', maxItems: MAX_PARCELS, items: { type: 'string', maxLength: 60 } };
const FILTER = { type: ['object', 'null'], description: 'Stored as given; applies to the parcels each permit or case is about' };

const LIST: JsonSchema = {
  type: 'object',
  required: ['object', 'id', 'name', 'item_count', 'created_at', 'updated_at', 'href'],
  properties: {
    object: { const: 'list' },
    id: { type: 'string', pattern: '^lst_' },
    name: { type: 'string' },
    description: { type: ['string', 'null'] },
    item_count: { type: 'integer', minimum: 0 },
    version: { type: 'integer', description: 'Raised by every change to the list’s own fields (the ETag carries it)' },
    created_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time', description: 'Last change to the list or to which sites it holds' },
    href: { type: 'string' },
  },
};

const nullable = (t: string) => ({ type: [t, 'null'] });
const ITEM: JsonSchema = {
  type: 'object',
  required: ['object', 'id', 'list', 'kind', 'name', 'status', 'notes', 'parcel', 'address', 'acres', 'jurisdiction', 'postal_code', 'geometry', 'filter', 'centroid', 'added_by', 'created_at', 'updated_at', 'href'],
  properties: {
    object: { const: 'list_item' },
    id: { type: 'string', pattern: '^lsi_' },
    list: { type: 'string', pattern: '^lst_' },
    kind: { const: 'site' },
    name: nullable('string'),
    status: STATUS,
    notes: nullable('string'),
    parcel: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'number', 'address', 'acres', 'href', 'added_at'],
        properties: {
          id: { type: 'string' },
          number: nullable('string'),
          address: nullable('string'),
          acres: { type: ['number', 'null'], description: 'Area of the held polygon (ST_Area over geography); null when it has none' },
          href: { type: 'string' },
          added_at: { type: 'string', format: 'date-time', description: 'When the parcel joined the site' },
        },
      },
    },
    address: { type: ['string', 'null'], description: 'As given when the site was added by address; else the first parcel’s, from the assessor roll' },
    acres: { type: ['number', 'null'], description: 'Area of the union of the parcels’ polygons; null when a parcel has no polygon' },
    jurisdiction: { type: ['object', 'null'], properties: { id: { type: 'string' }, name: { type: 'string' }, type: { type: 'string' }, fips: { type: 'string' }, href: { type: 'string' } } },
    postal_code: nullable('string'),
    geometry: { type: ['object', 'null'], description: 'GeoJSON: the union of the parcels’ polygons' },
    filter: nullable('object'),
    centroid: { type: ['object', 'null'], properties: { lat: { type: 'number' }, lon: { type: 'number' } } },
    added_by: { type: 'string', description: 'usr_ of a person’s session, or the key_ (cln_ for OAuth) of the credential' },
    version: { type: 'integer' },
    created_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' },
    href: { type: 'string' },
  },
};

const CREATE_LIST: JsonSchema = { type: 'object', additionalProperties: false, required: ['name'], properties: { name: NAME, description: TEXT(2000) } };
const UPDATE_LIST: JsonSchema = { type: 'object', additionalProperties: false, minProperties: 1, properties: { name: NAME, description: TEXT(2000) } };
const ADD_ITEM: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  description: 'One of parcel or address names the site.',
  properties: {
    name: { ...NAME, type: ['string', 'null'] },
    status: STATUS,
    notes: TEXT(10_000),
    parcel: { ...PARCELS, description: 'prc_ ids: the site’s parcels (an assemblage)' },
    address: { type: 'string', minLength: 1, maxLength: 500, description: 'A street address resolved to its parcel' },
    filter: FILTER,
  },
};
const UPDATE_ITEM: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    name: { ...NAME, type: ['string', 'null'], description: 'null clears' },
    status: { type: ['string', 'null'], enum: [...ITEM_STATUSES, null], description: 'null returns it to new' },
    notes: { ...TEXT(10_000), description: 'null clears' },
    parcel: { ...PARCELS, type: ['array', 'null'], description: 'The complete set, replacing the current one (parcels kept keep when they joined)' },
    filter: { ...FILTER, description: 'The complete filter, replacing the current one; null clears' },
  },
};

const LIST_ID = { name: 'list_id', in: 'path' as const, type: 'string' as const, required: true, description: 'lst_ id' };
const ITEM_ID = { name: 'item_id', in: 'path' as const, type: 'string' as const, required: true, description: 'lsi_ id' };
const PAGING = (def: typeof LISTS) => collectionParams(def).filter((p) => ['cursor', 'size', 'total'].includes(p.name));

// --- views ---------------------------------------------------------------------------------------

const listHref = (id: string) => `/v1/list/${id}`;
const etag = (id: string, version: number) => etagOf({ id, version });

function listObject(r: ListRow) {
  return { object: 'list', id: r.id, name: r.name, description: r.description, item_count: r.item_count, version: r.version, created_at: iso(r.created_at), updated_at: iso(r.updated_at), href: listHref(r.id) };
}

function itemObject(v: ItemView) {
  const parcel = v.parcels.map((p) => ({ id: p.id, number: p.number, address: p.address, acres: acres(p.area_m2), href: `/parcel/${p.id}`, added_at: iso(p.added_at) }));
  const j = v.jurisdiction;
  return {
    object: 'list_item',
    id: v.id,
    list: v.list_id,
    kind: v.kind,
    name: v.name,
    status: v.status,
    notes: v.notes,
    parcel,
    address: v.address ?? v.parcels.find((p) => p.address)?.address ?? null,
    acres: acres(v.area_m2),
    jurisdiction: j ? { id: j.id, name: j.name, type: j.type, fips: j.fips_key, href: `/jurisdiction/${j.id}` } : null,
    postal_code: v.parcels.find((p) => p.postal_code)?.postal_code ?? null,
    geometry: v.geometry ? JSON.parse(v.geometry) : null,
    filter: v.filter,
    centroid: v.lat === null || v.lon === null ? null : { lat: round7(v.lat), lon: round7(v.lon) },
    added_by: v.added_by,
    version: v.version,
    created_at: iso(v.created_at),
    updated_at: iso(v.updated_at),
    href: `${listHref(v.list_id)}/item/${v.id}`,
  };
}

async function itemAnswer(db: Queryable, id: string) {
  const v = (await itemViews(db, [id])).get(id)!;
  return { item: itemObject(v), etag: etag(v.id, v.version) };
}

// --- request helpers -----------------------------------------------------------------------------

const stale = (what: string, href: string) => new ApiError('version_conflict', { field: 'If-Match', detail: `The ${what} changed since the ETag sent was read; read it again (GET ${href}) and resend.` });

/** The outcome of a write, or the refusal it stands for. */
function settled<T>(out: Outcome<T>, missing: () => ApiError, what: string, href: string): T {
  if (out === 'missing') throw missing();
  if (out === 'stale') throw stale(what, href);
  return out;
}

const org = (req: Req) => req.actor!.organizationId;
const listIdOf = (req: Req) => requireId('list', req.params.list_id, 'list_id');
const itemIdOf = (req: Req) => requireId('list_item', req.params.item_id, 'item_id');
const noList = (id: string) => notFound('list', id, 'list_id');
const noItem = (id: string) => notFound('list item', id, 'item_id');

async function requireList(req: Req, id: string): Promise<ListRow> {
  const l = await getList(req.services.pool, org(req), id);
  if (!l) throw noList(id);
  return l;
}

/** The parcels named by id: each well formed, held, given once, all in one jurisdiction. */
async function parcelsById(db: Queryable, ids: string[], field: string): Promise<string[]> {
  if (ids.length === 0) throw invalid(field, 'a site is one or more parcels; to remove the site, DELETE the item');
  for (const [i, id] of ids.entries()) requireId('parcel', id, `${field}[${i}]`);
  const held = await heldParcels(db, ids);
  const first = new Map<string, number>();
  ids.forEach((id, i) => {
    if (first.has(id)) throw invalid(`${field}[${i}]`, `${id} is given twice (also ${field}[${first.get(id)}])`);
    first.set(id, i);
    if (!held.has(id)) throw invalid(`${field}[${i}]`, `no parcel held has the id ${id}`);
    if (held.get(id) !== held.get(ids[0])) throw invalid(`${field}[${i}]`, `${id} lies in another jurisdiction than ${ids[0]}; a site lies in one jurisdiction`);
  });
  return ids;
}

/** The parcel an address names, found as the location matcher finds it (GET /place, POST /v1/parcel/batch). */
async function parcelsOfAddress(db: Queryable, address: string): Promise<string[]> {
  const placed = await inOwnZone(db, {}, (z) => resolveLocation(db, { address }, pointTimes(z.asOf, z.knownAsOf)), (x) => x.jurisdiction);
  const r = placed.found;
  if (r.state === 'ambiguous') {
    const listed = r.candidates.map((c) => `${c.label}${c.parcel ? ` (${c.parcel}, number ${c.parcel_key})` : ' (no parcel)'}`).join('; ');
    throw new ApiError('location_ambiguous', { field: 'address', detail: `${r.detail}. Candidates: ${listed}. Add the site with parcel naming the one meant.` });
  }
  if (r.parcels.length === 0) throw new ApiError('location_insufficient_precision', { field: 'address', detail: `${JSON.stringify(address)} resolves to a ${r.grain}, not a parcel${r.detail ? `: ${r.detail}` : ''}.` });
  return r.parcels.map((p) => p.id);
}

/** What a site's parcels cost: one unit per parcel sent with a key (free again for a day); nothing for a person. */
function chargeFor(req: Req, parcels: string[] | undefined) {
  if (!parcels || req.actor?.kind !== 'key') return { units: 0, keys: [] };
  return { keys: parcels.map((id) => `list_parcel:${id}`) };
}

const depth = (v: unknown): number => (v && typeof v === 'object' ? 1 + Math.max(0, ...Object.values(v).map(depth)) : 0);

function checkFilter(filter: unknown) {
  if (!filter) return;
  if (JSON.stringify(filter).length > MAX_FILTER_CHARS) throw invalid('filter', `is longer than ${MAX_FILTER_CHARS} characters as JSON`);
  if (depth(filter) > MAX_FILTER_DEPTH) throw invalid('filter', `nests deeper than ${MAX_FILTER_DEPTH} levels`);
  // the keys a monitor reads (store/monitors/filter.ts): anything else would silently constrain nothing
  const problem = filterProblems(filter)[0];
  if (problem) throw invalid(problem.key ? `filter.${problem.key}` : 'filter', problem.detail);
}

const trimmed = (s: string | null | undefined) => (typeof s === 'string' ? s.trim() : s);

// --- handlers ------------------------------------------------------------------------------------

async function listLists(req: Req): Promise<Answer> {
  const where: Where[] = [(c) => `l.organization_id = ${c.bind(org(req))}`];
  const r = await runCollection<ListRow>(req.services.pool, LISTS, req.params, req.services.secret, { where });
  return { item: r.items.map(listObject), page: r.page };
}

async function createList(req: Req): Promise<Answer> {
  const row = await insertList(req.services.pool, { id: newId('list'), organizationId: org(req), name: req.body.name.trim(), description: req.body.description ?? null });
  return { status: 201, item: listObject(row), headers: { Location: listHref(row.id), ETag: etag(row.id, row.version) } };
}

async function readList(req: Req): Promise<Answer> {
  const l = await requireList(req, listIdOf(req));
  return { item: listObject(l), headers: { ETag: etag(l.id, l.version) } };
}

async function changeList(req: Req): Promise<Answer> {
  const id = listIdOf(req);
  const out = await updateList(req.services.pool, org(req), id, ifMatch(req, id), { name: req.body.name?.trim(), description: req.body.description });
  const l = settled(out, () => noList(id), 'list', listHref(id));
  return { item: listObject(l), headers: { ETag: etag(l.id, l.version) } };
}

async function removeList(req: Req): Promise<Answer> {
  const id = listIdOf(req);
  settled(await deleteList(req.services.pool, org(req), id, ifMatch(req, id)), () => noList(id), 'list', listHref(id));
  return { status: 204 };
}

async function listItems(req: Req): Promise<Answer> {
  const list = await requireList(req, listIdOf(req));
  const where: Where[] = [(c) => `i.list_id = ${c.bind(list.id)}`];
  if (req.params.status) where.push((c) => `i.status = ANY(${c.bind(req.params.status, 'text[]')})`);
  const db = req.services.pool;
  const r = await runCollection<{ id: string }>(db, ITEMS, req.params, req.services.secret, { where });
  const views = await itemViews(db, r.items.map((x) => x.id));
  // an item deleted between the page and its view is left out
  const items = r.items.flatMap((x) => (views.has(x.id) ? [itemObject(views.get(x.id)!)] : []));
  return { item: items, page: r.page };
}

async function addItem(req: Req): Promise<Answer> {
  const db = req.services.pool;
  const list = await requireList(req, listIdOf(req));
  const b = req.body;
  if (b.parcel !== undefined && b.address !== undefined) throw invalid('address', 'name the site one way: parcel or address, not both');
  if (b.parcel === undefined && b.address === undefined) throw invalid('parcel', 'name the site: parcel (prc_ ids) or address');
  checkFilter(b.filter);
  const parcels = b.parcel !== undefined ? await parcelsById(db, b.parcel, 'parcel') : await parcelsOfAddress(db, b.address);
  const id = newId('list_item');
  const actor = req.actor!;
  const item = { id, listId: list.id, name: trimmed(b.name) ?? null, status: b.status ?? 'new', notes: b.notes ?? null, address: b.address?.trim() ?? null, filter: b.filter ?? null, addedBy: actor.personId ?? actor.keyId!, parcels };
  const answer: Answer = { status: 201, charge: chargeFor(req, parcels) };
  // written once the charge is secured (api/metering/charge.ts), then read back as shown
  answer.persist = async () => {
    settled(await insertItem(req.services.pool, org(req), item), () => noList(list.id), 'list', listHref(list.id));
    const shown = await itemAnswer(req.services.pool, id);
    answer.item = shown.item;
    answer.headers = { Location: shown.item.href, ETag: shown.etag };
  };
  return answer;
}

async function readItem(req: Req): Promise<Answer> {
  const listId = listIdOf(req);
  const id = itemIdOf(req);
  await requireList(req, listId);
  if (!(await getItem(req.services.pool, org(req), listId, id))) throw noItem(id);
  const shown = await itemAnswer(req.services.pool, id);
  return { item: shown.item, headers: { ETag: shown.etag } };
}

async function changeItem(req: Req): Promise<Answer> {
  const db = req.services.pool;
  const listId = listIdOf(req);
  const id = itemIdOf(req);
  await requireList(req, listId);
  const before = await getItem(db, org(req), listId, id);
  if (!before) throw noItem(id);
  const expected = ifMatch(req, id);
  if (expected && !expected.includes(before.version)) throw stale('list item', `${listHref(listId)}/item/${id}`);
  const b = req.body;
  checkFilter(b.filter);
  if (b.parcel === null) throw invalid('parcel', 'a site is one or more parcels; send the complete set, or DELETE the item');
  const change: ItemChange = { name: b.name === undefined ? undefined : trimmed(b.name), notes: b.notes, filter: b.filter };
  if (b.status !== undefined) change.status = b.status ?? 'new';
  if (b.parcel !== undefined) change.parcels = await parcelsById(db, b.parcel, 'parcel');
  const answer: Answer = { charge: chargeFor(req, change.parcels) };
  answer.persist = async () => {
    const out = await updateItem(req.services.pool, org(req), listId, id, expected, change);
    settled(out, () => noItem(id), 'list item', `${listHref(listId)}/item/${id}`);
    const shown = await itemAnswer(req.services.pool, id);
    answer.item = shown.item;
    answer.headers = { ETag: shown.etag };
  };
  return answer;
}

async function removeItem(req: Req): Promise<Answer> {
  const listId = listIdOf(req);
  const id = itemIdOf(req);
  await requireList(req, listId);
  settled(await deleteItem(req.services.pool, org(req), listId, id, ifMatch(req, id)), () => noItem(id), 'list item', `${listHref(listId)}/item/${id}`);
  return { status: 204 };
}

// --- routes --------------------------------------------------------------------------------------

const common = { tag: 'Lists', credential: 'key' as const, form: 'v1' as const };
const read = { ...common, scope: 'place:read' as const, price: FREE };
const write = { ...common, scope: 'alert:write' as const };
const ETAG = 'If-Match (optional) with the ETag read; a stale one is 409.';

export const listRoutes = defineRoutes([
  { ...read, id: 'listLists', method: 'GET', path: '/v1/list', summary: "The organization's lists, newest first", collection: true, response: LIST, params: PAGING(LISTS), handler: listLists },
  { ...write, id: 'createList', method: 'POST', path: '/v1/list', summary: 'Create a list of places', status: 201, idempotent: true, price: FREE, body: CREATE_LIST, response: LIST, handler: createList },
  { ...read, id: 'getList', method: 'GET', path: '/v1/list/{list_id}', summary: 'One list, with its item_count', response: LIST, params: [LIST_ID], handler: readList },
  { ...write, id: 'updateList', method: 'PATCH', path: '/v1/list/{list_id}', summary: `Rename a list or change its description (null clears). ${ETAG}`, price: FREE, body: UPDATE_LIST, response: LIST, refuses: ['version_conflict'], params: [LIST_ID], handler: changeList },
  { ...write, id: 'deleteList', method: 'DELETE', path: '/v1/list/{list_id}', summary: `Delete a list and every site on it. ${ETAG}`, status: 204, price: FREE, refuses: ['version_conflict'], params: [LIST_ID], handler: removeList },
  {
    ...read,
    id: 'listListItems',
    method: 'GET',
    path: '/v1/list/{list_id}/item',
    summary: "A list's sites, newest first",
    collection: true,
    response: ITEM,
    params: [LIST_ID, { name: 'status', in: 'query', type: 'array', items: { type: 'string', enum: ITEM_STATUSES }, description: 'Only sites with one of these statuses' }, ...PAGING(ITEMS)],
    handler: listItems,
  },
  {
    ...write,
    id: 'createListItem',
    method: 'POST',
    path: '/v1/list/{list_id}/item',
    summary: 'Add a site: its parcels by id (an assemblage) or the parcel an address names',
    status: 201,
    idempotent: true,
    dryRun: true,
    price: PER_PARCEL,
    body: ADD_ITEM,
    response: ITEM,
    params: [LIST_ID],
    handler: addItem,
  },
  { ...read, id: 'getListItem', method: 'GET', path: '/v1/list/{list_id}/item/{item_id}', summary: 'One site of a list', response: ITEM, params: [LIST_ID, ITEM_ID], handler: readItem },
  {
    ...write,
    id: 'updateListItem',
    method: 'PATCH',
    path: '/v1/list/{list_id}/item/{item_id}',
    summary: `Change a site: name, status, notes (null clears), parcel (the complete set), filter (replaced whole; null clears). ${ETAG}`,
    dryRun: true,
    price: PER_PARCEL,
    body: UPDATE_ITEM,
    response: ITEM,
    refuses: ['version_conflict'],
    params: [LIST_ID, ITEM_ID],
    handler: changeItem,
  },
  { ...write, id: 'deleteListItem', method: 'DELETE', path: '/v1/list/{list_id}/item/{item_id}', summary: `Remove a site from a list. ${ETAG}`, status: 204, price: FREE, refuses: ['version_conflict'], params: [LIST_ID, ITEM_ID], handler: removeItem },
]);
