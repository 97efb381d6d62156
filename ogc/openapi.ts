// The OpenAPI 3.0 description of the OGC endpoints (conformance class oas30), written from the
// collection definitions and the same parameter lists the routes parse. One set of paths per
// collection, so each names its own queryables and feature properties.
import { BASIC_SCHEME_TEXT } from '../api/auth.ts';
import { oauth2Scheme } from '../api/oauth/scheme.ts';
import { type Param, paramSchema } from '../api/params.ts';
import type { Req } from '../api/route.ts';
import { ERROR_CODES } from '../core/errors.ts';
import { GEOBUF_TYPE } from '../core/geobuf.ts';
import { COLLECTIONS, type Collection, type PropType } from './collections.ts';
import { GEOJSON_TYPE, JSON_TYPE, OPENAPI_30_TYPE, ogcBase, SCHEMA_TYPE } from './documents.ts';
import { F_PARAM, ITEM_PARAMS, ITEMS_PARAMS, LIMIT_PARAM } from './params.ts';
import { ITEMS_PRICE } from './pricing.ts';

type Json = Record<string, unknown>;
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

// limit is a shared component: GDAL 3.8 and later read its default and maximum there (and only there)
const LIMIT_REF = { $ref: '#/components/parameters/limit' };

function parameter(p: Param): Json {
  if (p === LIMIT_PARAM) return LIMIT_REF;
  return parameterObject(p);
}

function parameterObject(p: Param): Json {
  const schema = p.name === 'bbox' ? { type: 'array', minItems: 4, maxItems: 6, items: { type: 'number' } } : paramSchema(p);
  return {
    name: p.name,
    in: p.in,
    required: p.in === 'path' || Boolean(p.required),
    description: p.description,
    schema,
    ...(p.name === 'bbox' ? { style: 'form', explode: false } : {}),
  };
}

const PROP_SCHEMA: Record<PropType, Json> = {
  string: { type: 'string', nullable: true },
  number: { type: 'number', nullable: true },
  integer: { type: 'integer', nullable: true },
  date: { type: 'string', format: 'date', nullable: true },
  object: { type: 'object', nullable: true },
};

function featureSchema(c: Collection): Json {
  return {
    type: 'object',
    required: ['type', 'geometry', 'properties'],
    properties: {
      type: { type: 'string', enum: ['Feature'] },
      id: { type: 'string' },
      geometry: { ...ref('GeometryGeoJSON'), nullable: true },
      properties: { type: 'object', properties: Object.fromEntries(c.properties.map((p) => [p.name, { ...PROP_SCHEMA[p.type], description: p.title }])) },
      links: { type: 'array', items: ref('Link') },
    },
  };
}

const errors = (statuses: string[]) =>
  Object.fromEntries(statuses.map((s) => [s, { $ref: `#/components/responses/E${s}` }]));

const ok = (description: string, type: string, schema: Json) => ({ description, content: { [type]: { schema } } });

const LINK_HEADER = {
  description: 'The next page, when there is one (RFC 8288): <href>; rel="next"; type="…", the same link as in the body, left out when longer than 4,096 characters.',
  schema: { type: 'string' },
};

/** Features in GeoJSON, or the same GeoJSON in Geobuf (f=geobuf or Accept: application/vnd.geobuf). */
const features = (description: string, schema: Json, paged: boolean) => ({
  description,
  content: {
    [GEOJSON_TYPE]: { schema },
    [GEOBUF_TYPE]: { schema: { type: 'string', format: 'binary', description: 'The same GeoJSON as Geobuf (every member kept, coordinates exact as GeoJSON writes them).' } },
  },
  ...(paged ? { headers: { Link: LINK_HEADER } } : {}),
});

function op(id: string, summary: string, params: Param[], response: Json, keyed: boolean): Json {
  return {
    operationId: id,
    summary,
    tags: ['OGC API Features'],
    parameters: params.map(parameter),
    responses: { '200': response, ...errors(keyed ? ['400', '401', '402', '403', '404', '422', '429'] : ['422', '429']) },
    security: keyed ? [{ apiKey: [] }, { basic: [] }, { oauth2: ['maps:read'] }] : [],
  };
}

/** property=value filters (Part 1, /rec/core/fc-filters): one equality parameter per queryable property. */
function propertyParams(c: Collection): Param[] {
  return c.properties
    .filter((p) => p.queryable)
    .map((p) => ({ name: p.name, in: 'query', type: p.type === 'object' ? 'string' : p.type, description: `Only features whose ${p.name} equals this value: ${p.title}.` }));
}

function collectionPaths(c: Collection): Record<string, Json> {
  const strip = (ps: Param[]) => ps.filter((p) => p.name !== 'collectionId');
  const cap = c.id[0].toUpperCase() + c.id.slice(1);
  return {
    [`/collections/${c.id}`]: { get: op(`describe${cap}`, `Describe ${c.title}`, [F_PARAM], ok(c.title, JSON_TYPE, ref('Collection')), true) },
    [`/collections/${c.id}/queryables`]: { get: op(`queryables${cap}`, `Queryables of ${c.title}`, [F_PARAM], ok('JSON Schema of the queryables', SCHEMA_TYPE, { type: 'object' }), true) },
    [`/collections/${c.id}/items`]: {
      get: op(
        `items${cap}`,
        `${c.title}: a page of features (one credit per 1,000 features of a walk)`,
        [...strip(ITEMS_PARAMS), ...propertyParams(c)],
        features('Features', { type: 'object', required: ['type', 'features'], properties: { type: { type: 'string', enum: ['FeatureCollection'] }, features: { type: 'array', items: ref(`${cap}Feature`) }, links: { type: 'array', items: ref('Link') }, timeStamp: { type: 'string', format: 'date-time' }, numberMatched: { type: 'integer', minimum: 0 }, numberReturned: { type: 'integer', minimum: 0 } } }, true),
        true,
      ),
    },
    [`/collections/${c.id}/items/{featureId}`]: { get: op(`item${cap}`, `${c.title}: one feature (one credit)`, strip(ITEM_PARAMS), features('A feature', ref(`${cap}Feature`), false), true) },
  };
}

const errorSchema: Json = {
  type: 'object',
  required: ['detail'],
  properties: {
    detail: {
      type: 'object',
      properties: {
        error: {
          type: 'object',
          required: ['code', 'detail'],
          properties: { code: { type: 'string', enum: Object.keys(ERROR_CODES) }, field: { type: 'string', nullable: true }, detail: { type: 'string' }, message: { type: 'string' }, message_title: { type: 'string' }, request_id: { type: 'string' } },
        },
      },
    },
  },
};

export function ogcOpenApi(req: Req): Json {
  const schemas: Json = {
    Link: { type: 'object', required: ['href', 'rel'], properties: { href: { type: 'string' }, rel: { type: 'string' }, type: { type: 'string' }, title: { type: 'string' } } },
    LandingPage: { type: 'object', required: ['links'], properties: { title: { type: 'string' }, description: { type: 'string' }, links: { type: 'array', items: ref('Link') } } },
    ConfClasses: { type: 'object', required: ['conformsTo'], properties: { conformsTo: { type: 'array', items: { type: 'string' } } } },
    Collection: {
      type: 'object',
      required: ['id', 'links'],
      properties: { id: { type: 'string' }, title: { type: 'string' }, description: { type: 'string' }, itemType: { type: 'string' }, defaultItemsPageSize: { type: 'integer', minimum: 1 }, maximumItemsPageSize: { type: 'integer', minimum: 1 }, extent: { type: 'object' }, crs: { type: 'array', items: { type: 'string' } }, storageCrs: { type: 'string' }, links: { type: 'array', items: ref('Link') } },
    },
    Collections: { type: 'object', required: ['links', 'collections'], properties: { links: { type: 'array', items: ref('Link') }, collections: { type: 'array', items: ref('Collection') }, crs: { type: 'array', items: { type: 'string' } } } },
    GeometryGeoJSON: { type: 'object', required: ['type'], properties: { type: { type: 'string', enum: ['Point', 'MultiPoint', 'LineString', 'MultiLineString', 'Polygon', 'MultiPolygon', 'GeometryCollection'] }, coordinates: { type: 'array', items: {} } } },
    Exception: errorSchema,
  };
  for (const c of COLLECTIONS) schemas[`${c.id[0].toUpperCase()}${c.id.slice(1)}Feature`] = featureSchema(c);
  const responses = Object.fromEntries(
    ['400', '401', '402', '403', '404', '422', '429'].map((s) => [`E${s}`, { description: `Refused (${s}); detail.error.code names why`, content: { [JSON_TYPE]: { schema: ref('Exception') } } }]),
  );
  const paths: Json = {
    '/': { get: op('getLandingPage', 'Landing page', [F_PARAM], ok('Landing page', JSON_TYPE, ref('LandingPage')), false) },
    '/conformance': { get: op('getConformance', 'Conformance classes', [F_PARAM], ok('Conformance classes', JSON_TYPE, ref('ConfClasses')), false) },
    '/api': { get: op('getApi', 'This API definition', [F_PARAM], ok('OpenAPI 3.0', OPENAPI_30_TYPE, { type: 'object' }), false) },
    '/collections': { get: op('getCollections', 'Feature collections', [F_PARAM], ok('Collections', JSON_TYPE, ref('Collections')), true) },
  };
  for (const c of COLLECTIONS) Object.assign(paths, collectionPaths(c));
  return {
    openapi: '3.0.3',
    info: { title: 'Landlex OGC API Features', version: '1.0.0', description: `Zoning districts, overlays, parcels and jurisdictions as OGC API Features. An API key in X-API-Key is needed for collections and features. Items: ${ITEMS_PRICE.note}` },
    servers: [{ url: ogcBase(req) }],
    paths,
    components: { schemas, responses, parameters: { limit: parameterObject(LIMIT_PARAM) }, securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' }, basic: { type: 'http', scheme: 'basic', description: BASIC_SCHEME_TEXT }, oauth2: oauth2Scheme(req.services.config.publicBaseUrl) } },
  };
}
