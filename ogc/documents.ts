// The JSON documents around the features: landing page, collection descriptions with their
// extents, and the links between them. Every link is absolute.
import type { Req } from '../api/route.ts';
import { GEOBUF_TYPE } from '../core/geobuf.ts';
import type { Collection } from './collections.ts';
import { CRS_URIS, CRS84 } from './crs.ts';
import type { Extent } from './extents.ts';
import { DEFAULT_LIMIT, MAX_LIMIT } from './params.ts';

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
    // the page size of items (as proposed for OGC API Features Part 1), also in /map/ogc/api
    defaultItemsPageSize: DEFAULT_LIMIT,
    maximumItemsPageSize: MAX_LIMIT,
    ...(Object.keys(ext).length ? { extent: ext } : {}),
    crs: CRS_URIS,
    storageCrs: CRS84.uri,
    links: [
      { href, rel: 'self', type: JSON_TYPE, title: c.title },
      { href: `${href}/items`, rel: 'items', type: GEOJSON_TYPE, title: `${c.title} (GeoJSON)` },
      { href: `${href}/items?f=geobuf`, rel: 'items', type: GEOBUF_TYPE, title: `${c.title} (Geobuf)` },
      { href: `${href}/queryables`, rel: QUERYABLES_REL, type: SCHEMA_TYPE, title: 'Queryables for filter' },
    ] satisfies Link[],
  };
}
