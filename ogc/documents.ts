// The JSON documents around the features: landing page, collection descriptions with their
// extents, and the links between them. Every link is absolute.
import type { Req } from '../api/route.ts';
import type { Queryable as Db } from '../store/db.ts';
import { COLLECTIONS, type Collection } from './collections.ts';
import { CRS84, CRS_URIS } from './crs.ts';

export const OGC_PATH = '/map/ogc';
export const JSON_TYPE = 'application/json';
export const GEOJSON_TYPE = 'application/geo+json';
export const SCHEMA_TYPE = 'application/schema+json';
export const OPENAPI_30_TYPE = 'application/vnd.oai.openapi+json;version=3.0';
export const QUERYABLES_REL = 'http://www.opengis.net/def/rel/ogc/1.0/queryables';

export interface Link {
  href: string;
  rel: string;
  type?: string;
  title?: string;
}

/** The service's own address: PUBLIC_BASE_URL when the deployment sets it, else the host asked. */
export function origin(req: Req): string {
  const configured = process.env.PUBLIC_BASE_URL ? req.services.config.publicBaseUrl : '';
  return (configured || req.ctx.origin || req.services.config.publicBaseUrl).replace(/\/+$/, '');
}

export const ogcBase = (req: Req) => `${origin(req)}${OGC_PATH}`;

/** This request's own address, query string included. */
export const selfUrl = (req: Req) => `${origin(req)}${req.ctx.path}${req.ctx.querystring ? `?${req.ctx.querystring}` : ''}`;

export function landingPage(req: Req) {
  const base = ogcBase(req);
  return {
    title: 'Landlex: OGC API Features',
    description: 'Zoning districts, overlays, parcels and jurisdictions from public records, as OGC API Features (Part 1 Core, GeoJSON, OpenAPI 3.0; Part 2 CRS; Part 3 CQL2 text filters). Send your API key in X-API-Key.',
    links: [
      { href: base, rel: 'self', type: JSON_TYPE, title: 'This document' },
      { href: `${base}/api`, rel: 'service-desc', type: OPENAPI_30_TYPE, title: 'The OGC API definition (OpenAPI 3.0)' },
      { href: `${base}/conformance`, rel: 'conformance', type: JSON_TYPE, title: 'Conformance classes implemented' },
      { href: `${base}/collections`, rel: 'data', type: JSON_TYPE, title: 'Feature collections' },
      { href: `${origin(req)}/openapi.json`, rel: 'related', type: 'application/vnd.oai.openapi+json;version=3.1', title: 'The whole Landlex API (OpenAPI 3.1)' },
    ] satisfies Link[],
  };
}

export interface Extent {
  bbox: [number, number, number, number] | null;
  /** first effective date of the collection's map versions */
  from: string | null;
}

/**
 * Extents of the collections in one statement. The spatial extent is the planner's estimate of
 * the table's column (cheap at any size, approximate), else the exact extent when the table has
 * no statistics yet; the temporal extent opens at the first map version in force.
 */
export async function readExtents(db: Db, only?: Collection): Promise<Map<string, Extent>> {
  const list = only ? [only] : COLLECTIONS;
  // identifiers and layer names below come from the collection definitions, never from a request
  const parts = list.map(
    (c) => `SELECT '${c.id}' AS id, ST_XMin(b) AS w, ST_YMin(b) AS s, ST_XMax(b) AS e, ST_YMax(b) AS n,
      ${c.versionLayer ? `(SELECT min(effective_from)::text FROM map_version WHERE layer = '${c.versionLayer}')` : 'NULL::text'} AS t0
      FROM (SELECT COALESCE(ST_EstimatedExtent('${c.extent.table}', '${c.extent.column}')::geometry,
                            (SELECT ST_Extent(${c.extent.column}) FROM ${c.extent.table} WHERE ${c.extent.where})::geometry) AS b) x`,
  );
  const { rows } = await db.query(parts.join('\nUNION ALL\n'));
  return new Map(rows.map((r) => [r.id as string, { bbox: r.w === null ? null : [r.w, r.s, r.e, r.n], from: r.t0 }]));
}

export function collectionDoc(req: Req, c: Collection, extent: Extent | undefined) {
  const href = `${ogcBase(req)}/collections/${c.id}`;
  const ext: Record<string, unknown> = {};
  if (extent?.bbox) ext.spatial = { bbox: [extent.bbox], crs: CRS84.uri };
  if (c.bitemporal) ext.temporal = { interval: [[extent?.from ? `${extent.from}T00:00:00Z` : null, null]], trs: 'http://www.opengis.net/def/uom/ISO-8601/0/Gregorian' };
  return {
    id: c.id,
    title: c.title,
    description: c.description,
    itemType: 'feature',
    ...(Object.keys(ext).length ? { extent: ext } : {}),
    crs: CRS_URIS,
    storageCrs: CRS84.uri,
    links: [
      { href, rel: 'self', type: JSON_TYPE, title: c.title },
      { href: `${href}/items`, rel: 'items', type: GEOJSON_TYPE, title: `${c.title} (GeoJSON)` },
      { href: `${href}/queryables`, rel: QUERYABLES_REL, type: SCHEMA_TYPE, title: 'Queryables for filter' },
    ] satisfies Link[],
  };
}
