// The query parameters of the OGC routes, declared once: the route table parses them and the
// OpenAPI 3.0 description is written from the same list. `datetime` maps to Landlex's valid time.
import { invalid } from '../core/errors.ts';
import { GEOBUF_TYPE } from '../core/geobuf.ts';
import type { Param } from '../core/query/param.ts';
import { parseDateTime, parseTimeText } from '../core/time.ts';
import { MAX_FILTER_LENGTH } from './cql2-lex.ts';
import { CRS_URIS } from './crs.ts';

/**
 * Features a page holds when limit is not given, and the fewest a next link asks for: GDAL 3.6
 * asks every layer with limit=10 and then follows the next links as written, so a walk begun at
 * 10 continues at 1,000 (GDAL 3.8 and later read this default from /map/ogc/api and ask 1,000).
 */
export const DEFAULT_LIMIT = 1000;
export const MAX_LIMIT = 10_000;
/** numberMatched is given when the matches number at most this many (the count stops there) */
export const NUMBER_MATCHED_CAP = 100_000;

const one = (raw: string[], name: string) => {
  if (raw.length > 1) throw invalid(name, `${name} was given ${raw.length} times; it takes one value`);
  return raw[0];
};

/** The moment rows are selected at: a calendar date, or an instant read in each row's jurisdiction timezone. */
export type ValidAt = { kind: 'date'; date: string } | { kind: 'instant'; instant: string } | { kind: 'now' };

function moment(raw: string, name: string): ValidAt {
  const s = raw.trim();
  if (s === '..' || s === '') return { kind: 'now' };
  if (/^\d{4}-\d{2}-\d{2}$/.test(s)) {
    const spec = parseTimeText(s, name);
    return { kind: 'date', date: (spec as { date: string }).date };
  }
  const instant = parseDateTime(s, name);
  if (!instant) throw invalid(name, `${JSON.stringify(raw)} is not an RFC 3339 date-time (2024-05-01T10:00:00Z), a date, or an interval a/b with .. for an open end`);
  return { kind: 'instant', instant };
}

/**
 * OGC `datetime`: an instant, a date, or an interval `a/b` (`..` or nothing for an open end).
 * Rows are answered at the interval's end (an open end is now): a feature is one state of a
 * record, and an interval of versions would repeat ids.
 */
export function parseDatetime(raw: string, name = 'datetime'): { at: ValidAt; text: string } {
  const parts = raw.split('/');
  if (parts.length > 2) throw invalid(name, 'an interval has one "/"');
  if (parts.length === 1) {
    const at = moment(parts[0], name);
    if (at.kind === 'now') throw invalid(name, `${JSON.stringify(raw)} is not a date-time`);
    return { at, text: raw };
  }
  const [from, to] = parts.map((p) => moment(p, name));
  const key = (v: ValidAt) => (v.kind === 'date' ? `${v.date}T00:00:00.000000Z` : v.kind === 'instant' ? v.instant : null);
  const a = key(from);
  const b = key(to);
  if (a && b && a > b) throw invalid(name, `the interval starts (${parts[0]}) after it ends (${parts[1]})`);
  return { at: to, text: raw };
}

export const F_VALUES = ['json', 'geojson', 'application/json', 'application/geo+json'] as const;

export const F_PARAM: Param = { name: 'f', in: 'query', type: 'string', enum: F_VALUES, description: 'Encoding: JSON, the only one served for this document.' };

/** f values that ask features in Geobuf */
export const GEOBUF_F_VALUES = ['geobuf', GEOBUF_TYPE] as const;

/** f of the feature routes: GeoJSON, or Geobuf (as Accept: application/vnd.geobuf asks when f is not given). */
export const FEATURES_F_PARAM: Param = {
  name: 'f',
  in: 'query',
  type: 'string',
  enum: [...F_VALUES, ...GEOBUF_F_VALUES],
  description: `Encoding: GeoJSON (json, geojson), or Geobuf (geobuf, ${GEOBUF_TYPE}: the same GeoJSON, every member kept, coordinates exact as GeoJSON writes them). Without f, Accept: ${GEOBUF_TYPE} asks Geobuf.`,
};

export const COLLECTION_ID: Param = { name: 'collectionId', in: 'path', type: 'string', required: true, description: 'districts, overlays, parcels or jurisdictions.' };

const CRS_DESCRIPTION = `One of ${CRS_URIS.join(', ')} (EPSG:4326 lists latitude first). Default CRS84.`;

const TIME_PARAMS: Param[] = [
  {
    name: 'datetime',
    in: 'query',
    type: 'string',
    description: 'Valid time (Landlex as_of): an RFC 3339 date-time, a date, or an interval a/b with .. for an open end, answered at its end. Default now.',
    parse: (raw, name) => parseDatetime(one(raw, name), name),
  },
  {
    name: 'known_as_of',
    in: 'query',
    type: 'string',
    description: 'Knowledge time: what the service held then (a date or a date-time with offset). Default now.',
    parse: (raw, name) => parseTimeText(one(raw, name), name),
  },
];

export const ITEM_PARAMS: Param[] = [
  COLLECTION_ID,
  { name: 'featureId', in: 'path', type: 'string', required: true, description: 'The feature id (dst_, prc_ or jur_ id).' },
  { name: 'crs', in: 'query', type: 'string', description: `CRS of the response geometry. ${CRS_DESCRIPTION}` },
  ...TIME_PARAMS,
  FEATURES_F_PARAM,
];

export const LIMIT_PARAM: Param = {
  name: 'limit',
  in: 'query',
  type: 'integer',
  min: 1,
  max: MAX_LIMIT,
  default: DEFAULT_LIMIT,
  description: `Features on this page, 1 to ${MAX_LIMIT} (default ${DEFAULT_LIMIT}). The next link asks for the same number, or ${DEFAULT_LIMIT} if that is more. Pages are priced by the features a walk serves, not by their number.`,
};

export const ITEMS_PARAMS: Param[] = [
  COLLECTION_ID,
  LIMIT_PARAM,
  { name: 'bbox', in: 'query', type: 'string', description: 'minx,miny,maxx,maxy (or 6 numbers with heights) in bbox-crs; features whose geometry intersects it.' },
  { name: 'bbox-crs', in: 'query', type: 'string', description: `CRS of bbox. ${CRS_DESCRIPTION}` },
  { name: 'crs', in: 'query', type: 'string', description: `CRS of the response geometries. ${CRS_DESCRIPTION}` },
  ...TIME_PARAMS,
  {
    name: 'filter',
    in: 'query',
    type: 'string',
    description: 'A CQL2 text filter over the queryables (see /collections/{collectionId}/queryables).',
    parse: (raw, name) => {
      const v = one(raw, name);
      if (v.length > MAX_FILTER_LENGTH) throw invalid(name, `is longer than ${MAX_FILTER_LENGTH} characters`);
      return v;
    },
  },
  { name: 'filter-lang', in: 'query', type: 'string', enum: ['cql2-text'], description: 'cql2-text (the default and the only one).' },
  { name: 'filter-crs', in: 'query', type: 'string', description: `CRS of geometry literals in filter. ${CRS_DESCRIPTION}` },
  { name: 'cursor', in: 'query', type: 'string', description: 'Opaque position of the next page; take it from the next link (in the body, or the Link header), never build it.' },
  FEATURES_F_PARAM,
];
