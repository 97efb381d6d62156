// OGC API Features under /map/ogc (spec 4.11): landing page, conformance, the OpenAPI 3.0
// description, collections, queryables, items and single features. Declared as routes like any
// other, so they share credentials, rate limits, metering and error rendering; they differ in
// that unknown query parameters are accepted (GIS clients send extras) and a refused parameter is
// 400 ogc_parameter_invalid, as OGC API Features requires, instead of 422.
import { createHash } from 'node:crypto';
import { type Param, parseParams } from '../api/params.ts';
import { type Answer, defineRoutes, type Req, type Route } from '../api/route.ts';
import { ApiError } from '../core/errors.ts';
import { acceptsGeobuf, GEOBUF_TYPE, toGeobuf } from '../core/geobuf.ts';
import { checkCursor, openCursor, signCursor } from '../core/query/cursor.ts';
import { resolveKnownAsOf, type TimeSpec } from '../core/time.ts';
import { settledAnywhere } from '../store/changes.ts';
import type { Queryable } from '../store/db.ts';
import { COLLECTIONS, type Collection, collectionById, queryablesOf, queryablesSchema } from './collections.ts';
import { CONFORMS_TO } from './conformance.ts';
import { compileCql2, Params } from './cql2-sql.ts';
import { contentCrs, parseBboxIn, parseCrs } from './crs.ts';
import { collectionDoc, GEOJSON_TYPE, JSON_TYPE, type Link, landingPage, OPENAPI_30_TYPE, ogcBase, origin, SCHEMA_TYPE, selfUrl } from './documents.ts';
import { readExtents } from './extents.ts';
import { readFeature, readPage, type Selection } from './items.ts';
import { ogcOpenApi } from './openapi.ts';
import { COLLECTION_ID, DEFAULT_LIMIT, F_PARAM, GEOBUF_F_VALUES, ITEM_PARAMS, ITEMS_PARAMS, NUMBER_MATCHED_CAP, type ValidAt } from './params.ts';
import { blockKeys, FEATURE_PRICE, ITEMS_PRICE } from './pricing.ts';

const TAG = 'OGC API Features';
const FREE = { credits: 0, per: 'call', note: 'Free.' } as const;

/** Runs `f`; a refused parameter (422 parameter_invalid or vocabulary_value_unknown) becomes 400. */
async function as400<T>(f: () => T | Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (err) {
    throw toOgcError(err);
  }
}

function toOgcError(err: unknown): unknown {
  if (err instanceof ApiError && (err.code === 'parameter_invalid' || err.code === 'vocabulary_value_unknown')) {
    return new ApiError('ogc_parameter_invalid', { field: err.field, detail: err.detail, headers: err.headers });
  }
  return err;
}

/** A query parameter whose refusal is 400: parsed as declared, inside a custom parser. */
function ogcParam(p: Param): Param {
  if (p.in === 'path') return p;
  const inner: Param = { ...p, parse: undefined, required: false, default: undefined };
  return {
    ...p,
    parse: (raw, name) => {
      try {
        return p.parse ? p.parse(raw, name) : parseParams([inner], { [name]: raw }, {}, { allowExtra: true })[name];
      } catch (err) {
        throw toOgcError(err);
      }
    },
  };
}

const ogcParams = (ps: Param[]) => ps.map(ogcParam);

type OgcRoute = Omit<Route, 'method' | 'tag' | 'form' | 'allowExtraQuery' | 'handler'> & { handler: (req: Req) => Promise<Answer> };

function ogcRoute(r: OgcRoute): Route {
  return {
    method: 'GET',
    tag: TAG,
    form: 'raw',
    allowExtraQuery: true,
    parameterRefusal: 'ogc_parameter_invalid',
    ...r,
    params: ogcParams(r.params ?? []),
    handler: (req) => as400(() => r.handler(req)),
  };
}

function collectionOf(req: Req): Collection {
  const c = collectionById(req.params.collectionId);
  if (!c) throw new ApiError('no_such_resource', { field: 'collectionId', detail: `No collection ${JSON.stringify(req.params.collectionId)}; collections: districts, overlays, parcels, jurisdictions.` });
  return c;
}

const json = (body: unknown, contentType = JSON_TYPE, headers: Record<string, string> = {}): Answer => ({ body, contentType, headers });

/**
 * The knowledge instant a request reads at: known_as_of (an interval reads at its end), else now;
 * inside a load's window, just before the load began, so that a walk of pages pinned to it sees
 * the same rows whether or not the load has committed since.
 */
async function knownInstant(db: Queryable, spec: TimeSpec | undefined): Promise<string> {
  const k = resolveKnownAsOf(spec);
  return settledAnywhere(db, k.kind === 'instant' ? k.instant : k.end);
}

const validAt = (req: Req): ValidAt => (req.params.datetime ? (req.params.datetime as { at: ValidAt }).at : { kind: 'now' });

/** property=value queryables as CQL2 text (values quoted or checked as numbers), one per parameter. */
function propertyConditions(req: Req, c: Collection): string[] {
  const out: string[] = [];
  const taken = new Set(ITEMS_PARAMS.map((p) => p.name));
  for (const q of queryablesOf(c)) {
    if (q.type === 'geometry' || taken.has(q.name)) continue;
    const raw = req.ctx.query[q.name];
    if (raw === undefined) continue;
    const values = Array.isArray(raw) ? raw : [raw];
    if (values.length > 1) throw new ApiError('ogc_parameter_invalid', { field: q.name, detail: `${q.name} was given ${values.length} times; it takes one value` });
    const v = values[0];
    if (q.type === 'number' || q.type === 'integer') {
      if (v.trim() === '' || !Number.isFinite(Number(v))) throw new ApiError('ogc_parameter_invalid', { field: q.name, detail: `${JSON.stringify(v)} is not a number` });
      out.push(`"${q.name}" = ${Number(v)}`);
    } else {
      out.push(`"${q.name}" = '${v.replaceAll("'", "''")}'`);
    }
  }
  return out;
}

/** What rows a request selects, without keyset or limit. */
function selectionOf(req: Req, c: Collection, snapshot: string): Selection {
  const crs = parseCrs(req.params.crs, 'crs');
  const bboxCrs = parseCrs(req.params['bbox-crs'], 'bbox-crs');
  const filterCrs = parseCrs(req.params['filter-crs'], 'filter-crs');
  const selection: Selection = { collection: c, crs, at: validAt(req), snapshot };
  if (req.params.bbox !== undefined) selection.bbox = { box: parseBboxIn(req.params.bbox, bboxCrs, 'bbox'), crs: bboxCrs };
  const conditions = propertyConditions(req, c);
  const filter: string | undefined = req.params.filter;
  if (filter !== undefined) {
    // compiled alone first, so a refusal gives the position in the text the client sent
    compileCql2(filter, queryablesOf(c), new Params(), filterCrs);
  }
  const parts = [...(filter !== undefined ? [`(${filter})`] : []), ...conditions];
  if (parts.length) selection.filter = { text: parts.join(' AND '), crs: filterCrs };
  return selection;
}

/** The walk a cursor belongs to: collection, bbox, filters and times (not crs or limit). */
function walkSignature(req: Req, s: Selection): string {
  const parts = [s.collection.id, s.bbox ?? null, s.filter ?? null, req.params.datetime?.text ?? null, req.params.known_as_of?.text ?? null];
  return createHash('sha256').update(JSON.stringify(parts)).digest('base64url').slice(0, 22);
}

/** This request's URL with the cursor and limit of the next page (and f when given), as an absolute link. */
function nextUrl(req: Req, cursor: string, limit: number, f?: string): string {
  const q = new URLSearchParams(req.ctx.querystring);
  q.delete('cursor');
  q.set('cursor', cursor);
  q.set('limit', String(limit));
  if (f) q.set('f', f);
  return `${origin(req)}${req.ctx.path}?${q}`;
}

/** This request's URL in another encoding. */
function alternateUrl(req: Req, f: string): string {
  const q = new URLSearchParams(req.ctx.querystring);
  q.set('f', f);
  return `${origin(req)}${req.ctx.path}?${q}`;
}

/**
 * The encoding of features asked: Geobuf when f names it, or when f is not given and Accept asks
 * application/vnd.geobuf above application/geo+json; else GeoJSON. Answers vary with Accept.
 */
function featureEncoding(req: Req) {
  req.ctx.vary('Accept');
  const f: string | undefined = req.params.f;
  const geobuf = f !== undefined ? (GEOBUF_F_VALUES as readonly string[]).includes(f) : acceptsGeobuf(req.ctx.get('accept'));
  return geobuf
    ? { geobuf, type: GEOBUF_TYPE, other: { type: GEOJSON_TYPE, f: 'geojson', title: 'GeoJSON' } }
    : { geobuf, type: GEOJSON_TYPE, other: { type: GEOBUF_TYPE, f: 'geobuf', title: 'Geobuf' } };
}

/** A next link longer than this goes in the body only (a long filter): clients limit header sizes. */
const LINK_HEADER_MAX = 4096;

/** The Link header (RFC 8288) of a page's next link, when it fits. */
function linkHeader(next: Link | undefined): Record<string, string> {
  if (!next || next.href.length > LINK_HEADER_MAX) return {};
  return { Link: `<${next.href}>; rel="next"; type="${next.type}"` };
}

async function items(req: Req): Promise<Answer> {
  const c = collectionOf(req);
  const secret = req.services.secret;
  const cursor = req.params.cursor ? openCursor(req.params.cursor, secret) : null;
  const snapshot = cursor?.t ?? (await knownInstant(req.services.pool, req.params.known_as_of));
  const selection = selectionOf(req, c, snapshot);
  const sig = walkSignature(req, selection);
  const resource = `ogc:${c.id}`;
  const order = c.keys.map((k) => k.sql).join(',');
  if (cursor) {
    checkCursor(cursor, { resource, sort: order, filter: sig });
    if (cursor.k.length !== c.keys.length || cursor.k.some((k) => k === null)) throw new ApiError('ogc_parameter_invalid', { field: 'cursor', detail: 'This cursor does not fit this collection; restart without cursor.' });
  }
  const limit: number = req.params.limit;
  // features of the walk served before this page (a cursor from before pricing by walk has none)
  const before = typeof cursor?.n === 'number' && cursor.n >= 0 ? cursor.n : 0;
  const page = await readPage(req.services.pool, {
    ...selection,
    limit,
    after: cursor ? (cursor.k as string[]) : undefined,
    countCap: cursor ? undefined : NUMBER_MATCHED_CAP,
  });
  const enc = featureEncoding(req);
  const links: Link[] = [
    { href: selfUrl(req), rel: 'self', type: enc.type, title: 'This page' },
    { href: alternateUrl(req, enc.other.f), rel: 'alternate', type: enc.other.type, title: `This page in ${enc.other.title}` },
    { href: `${ogcBase(req)}/collections/${c.id}`, rel: 'collection', type: JSON_TYPE, title: c.title },
  ];
  let nextLink: Link | undefined;
  if (page.nextKey) {
    const served = before + page.features.length;
    const next = signCursor({ v: 1, r: resource, s: order, f: sig, k: page.nextKey, id: page.nextKey[0], t: snapshot, i: Math.floor(Date.now() / 1000), n: served }, secret);
    // a Geobuf walk names f in its next links, so they ask Geobuf whatever Accept follows them
    nextLink = { href: nextUrl(req, next, Math.max(limit, DEFAULT_LIMIT), enc.geobuf ? 'geobuf' : undefined), rel: 'next', type: enc.type, title: 'Next page' };
    links.push(nextLink);
  }
  // on a first page that holds every match, the count is the page itself
  const matched = page.matched ?? (!cursor && !page.nextKey ? page.features.length : null);
  const tail = {
    links,
    timeStamp: new Date().toISOString(),
    ...(matched !== null ? { numberMatched: matched } : {}),
    numberReturned: page.features.length,
  };
  const text = `{"type":"FeatureCollection","features":[${page.features.join(',')}],${JSON.stringify(tail).slice(1)}`;
  const body = enc.geobuf ? toGeobuf(JSON.parse(text)) : text;
  const headers = { 'Content-Crs': contentCrs(selection.crs), ...linkHeader(nextLink) };
  return { ...json(body, enc.type, headers), charge: { keys: blockKeys(`${resource}:${sig}`, before, page.features.length) } };
}

async function item(req: Req): Promise<Answer> {
  const c = collectionOf(req);
  const selection: Selection = { collection: c, crs: parseCrs(req.params.crs, 'crs'), at: validAt(req), snapshot: await knownInstant(req.services.pool, req.params.known_as_of) };
  const id: string = req.params.featureId;
  const text = await readFeature(req.services.pool, selection, id);
  if (!text) throw new ApiError('no_such_resource', { field: 'featureId', detail: `No feature of ${c.id} has the id ${id}.` });
  const href = `${ogcBase(req)}/collections/${c.id}`;
  const enc = featureEncoding(req);
  const links: Link[] = [
    { href: selfUrl(req), rel: 'self', type: enc.type, title: 'This feature' },
    { href: alternateUrl(req, enc.other.f), rel: 'alternate', type: enc.other.type, title: `This feature in ${enc.other.title}` },
    { href, rel: 'collection', type: JSON_TYPE, title: c.title },
  ];
  const feature = `${text.slice(0, -1)},"links":${JSON.stringify(links)}}`;
  return json(enc.geobuf ? toGeobuf(JSON.parse(feature)) : feature, enc.type, { 'Content-Crs': contentCrs(selection.crs) });
}

const OGC_ROUTES: OgcRoute[] = [
  {
    id: 'ogcLandingPage',
    path: '/map/ogc',
    summary: 'OGC API Features landing page: links to the API definition, conformance and collections',
    credential: 'public',
    price: FREE,
    params: [F_PARAM],
    handler: async (req) => json(landingPage(req)),
  },
  {
    // OWSLib asks for the landing page with a trailing slash; no other path takes one
    id: 'ogcLandingPageSlash',
    path: '/map/ogc/',
    summary: 'The OGC API Features landing page, asked with a trailing slash (as OWSLib asks)',
    credential: 'public',
    price: FREE,
    params: [F_PARAM],
    handler: async (req) => json(landingPage(req)),
  },
  {
    id: 'ogcConformance',
    path: '/map/ogc/conformance',
    summary: 'OGC API Features conformance classes implemented (Part 1 Core, GeoJSON, OAS30; Part 2 CRS; Part 3 CQL2 text)',
    credential: 'public',
    price: FREE,
    params: [F_PARAM],
    handler: async () => json({ conformsTo: CONFORMS_TO }),
  },
  {
    id: 'ogcApiDefinition',
    path: '/map/ogc/api',
    summary: 'The OGC API Features definition (OpenAPI 3.0)',
    credential: 'public',
    price: FREE,
    produces: [OPENAPI_30_TYPE],
    params: [F_PARAM],
    handler: async (req) => json(ogcOpenApi(req), OPENAPI_30_TYPE),
  },
  {
    id: 'ogcCollections',
    path: '/map/ogc/collections',
    summary: 'OGC feature collections: districts, overlays, parcels, jurisdictions, with extents and CRSs',
    credential: 'key',
    scope: 'maps:read',
    price: FREE,
    params: [F_PARAM],
    handler: async (req) => {
      const extents = await readExtents(req.services.pool);
      const collections = COLLECTIONS.map((c) => collectionDoc(req, c, extents.get(c.id)));
      return json({ links: [{ href: `${ogcBase(req)}/collections`, rel: 'self', type: JSON_TYPE, title: 'Feature collections' }], collections });
    },
  },
  {
    id: 'ogcCollection',
    path: '/map/ogc/collections/{collectionId}',
    summary: 'One OGC feature collection: extent, CRSs and links to its items and queryables',
    credential: 'key',
    scope: 'maps:read',
    price: FREE,
    params: [COLLECTION_ID, F_PARAM],
    handler: async (req) => {
      const c = collectionOf(req);
      const extents = await readExtents(req.services.pool, c);
      return json(collectionDoc(req, c, extents.get(c.id)));
    },
  },
  {
    id: 'ogcQueryables',
    path: '/map/ogc/collections/{collectionId}/queryables',
    summary: 'The queryables of a collection (JSON Schema) for CQL2 filters and property=value',
    credential: 'key',
    scope: 'maps:read',
    price: FREE,
    produces: [SCHEMA_TYPE],
    params: [COLLECTION_ID, F_PARAM],
    handler: async (req) => {
      const c = collectionOf(req);
      return json(queryablesSchema(c, `${ogcBase(req)}/collections/${c.id}/queryables`), SCHEMA_TYPE);
    },
  },
  {
    id: 'ogcItems',
    path: '/map/ogc/collections/{collectionId}/items',
    summary: 'A page of features (GeoJSON, or Geobuf by f or Accept): bbox, datetime, CQL2 filter, property=value, keyset next link (also in a Link header)',
    credential: 'key',
    scope: 'maps:read',
    price: ITEMS_PRICE,
    produces: [GEOJSON_TYPE, GEOBUF_TYPE],
    params: ITEMS_PARAMS,
    handler: items,
  },
  {
    id: 'ogcItem',
    path: '/map/ogc/collections/{collectionId}/items/{featureId}',
    summary: 'One feature (GeoJSON, or Geobuf by f or Accept) by its id',
    credential: 'key',
    scope: 'maps:read',
    price: FEATURE_PRICE,
    produces: [GEOJSON_TYPE, GEOBUF_TYPE],
    params: ITEM_PARAMS,
    handler: item,
  },
];

export const ogcRoutes = defineRoutes(OGC_ROUTES.map(ogcRoute));
