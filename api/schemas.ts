// Response schemas of the resources most routes return, for the OpenAPI document (and so for
// the check of every answer against it). Field selection can leave fields out, so only what is
// always there is required; types, formats and vocabularies are what they say.
import type { JsonSchema } from './route.ts';

const str = { type: 'string' };
const strOrNull = { type: ['string', 'null'] };
const date = { type: 'string', format: 'date' };
const dateOrNull = { type: ['string', 'null'], format: 'date' };
const instant = { type: 'string', format: 'date-time' };
const countOrNull = { type: ['integer', 'null'], minimum: 0 };

export const JURISDICTION: JsonSchema = {
  type: 'object',
  required: ['id'],
  properties: {
    id: { type: 'string', pattern: '^jur_' },
    object: { const: 'jurisdiction' },
    slug: str,
    name: str,
    legal_name: strOrNull,
    type: strOrNull,
    gnis_id: strOrNull,
    population: countOrNull,
    population_year: countOrNull,
    lifecycle_status: strOrNull,
    fips: {
      type: 'object',
      properties: { level: { enum: ['state', 'county', 'cousub', 'place'] }, code: str, state: strOrNull, key: { type: 'string', pattern: '^us:(state|county|cousub|place):\\d+$' }, county: strOrNull, cousub: strOrNull, place: strOrNull },
    },
    timezone: str,
    parent: strOrNull,
    href: str,
    created_at: instant,
    updated_at: instant,
    filter_outcome: { enum: ['match', 'indeterminate'] },
  },
};

export const DOCUMENT: JsonSchema = {
  type: 'object',
  required: ['id', 'title', 'doc_type', 'authorship', 'first_retrieved_at', 'last_retrieved_at', 'version_count', 'href'],
  properties: {
    id: { type: 'string', pattern: '^doc_' },
    title: str,
    doc_type: str,
    media_type: strOrNull,
    authorship: { enum: ['published', 'elicited', 'authored_by_us'] },
    first_retrieved_at: instant,
    last_retrieved_at: instant,
    version_count: { type: 'integer', minimum: 0 },
    href: str,
    jurisdiction: strOrNull,
    source: strOrNull,
    authored_by: strOrNull,
    elicited_on: dateOrNull,
    url_canonical: strOrNull,
    version: {
      type: 'array',
      items: { type: 'object', required: ['id', 'number', 'sha256'], properties: { id: str, number: { type: 'integer' }, sha256: { type: 'string', pattern: '^[0-9a-f]{64}$' }, byte_size: { type: 'integer', minimum: 0 }, retrieved_at: instant, loaded: { type: 'boolean' } } },
    },
    filter_outcome: { enum: ['match', 'indeterminate'] },
  },
};

export const PARCEL: JsonSchema = {
  type: 'object',
  required: ['id'],
  properties: {
    id: { type: 'string', pattern: '^prc_' },
    object: { const: 'parcel' },
    jurisdiction: str,
    parcel_key: str,
    number: str,
    apn: strOrNull,
    area: { type: 'object', required: ['value', 'unit'], properties: { value: { type: ['integer', 'null'] }, unit: { const: 'sq_ft' }, status: { const: 'withheld' } } },
    acres: { type: ['number', 'null'], minimum: 0 },
    attributes: { type: ['object', 'null'] },
    map_version: strOrNull,
    effective_from: dateOrNull,
    effective_through: dateOrNull,
    geometry: { type: ['object', 'null'] },
    href: str,
    property: { type: 'array', items: str },
    filter_outcome: { enum: ['match', 'indeterminate'] },
  },
};

export const CHANGE_EVENT: JsonSchema = {
  type: 'object',
  required: ['id', 'object', 'seq', 'kind', 'layer', 'jurisdiction', 'detected_at', 'href'],
  properties: {
    id: { type: 'string', pattern: '^chg_' },
    object: { const: 'change_event' },
    seq: { type: 'integer', minimum: 1, description: 'Increasing, not contiguous: a gap is no missed event.' },
    kind: { enum: ['adoption', 'amendment', 'repeal', 'map_change'] },
    layer: { enum: ['authority', 'district', 'district_map', 'overlay'] },
    jurisdiction: { type: 'object', required: ['id'], properties: { id: str, name: str, href: str } },
    effective_date: dateOrNull,
    detected_at: instant,
    field_path: strOrNull,
    adopted_on: dateOrNull,
    ordinance: strOrNull,
    source_version: strOrNull,
    href: str,
  },
};

export const MAP_VERSION: JsonSchema = {
  type: 'object',
  required: ['id', 'jurisdiction', 'layer', 'effective_from', 'feature_count', 'href'],
  properties: {
    id: { type: 'string', pattern: '^map_' },
    jurisdiction: str,
    layer: { enum: ['district', 'overlay', 'future_land_use', 'parcel'] },
    version: strOrNull,
    effective_from: date,
    effective_through: dateOrNull,
    adopted_on: dateOrNull,
    feature_count: { type: 'integer', minimum: 0 },
    published_crs: strOrNull,
    geometry_sha256: { type: ['string', 'null'], pattern: '^[0-9a-f]{64}$' },
    document: strOrNull,
    href: str,
  },
};
