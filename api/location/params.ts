// Location parameters (spec 4.0.3), shared by /place, /rule, /property and /conformance.
import { invalid } from '../../core/errors.ts';
import type { Param } from '../params.ts';

export const BUFFER_UNITS = ['ft', 'mi', 'm', 'km'] as const;
export const METERS_PER: Record<(typeof BUFFER_UNITS)[number], number> = { ft: 0.3048, mi: 1609.344, m: 1, km: 1000 };

export interface PointParam {
  lat: number;
  lon: number;
}

export function parsePoint(raw: string, field: string): PointParam {
  const m = /^\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*$/.exec(raw);
  if (!m) throw invalid(field, `${JSON.stringify(raw)} is not "<lat>,<lon>" (latitude first, WGS 84)`);
  const lat = Number(m[1]);
  const lon = Number(m[2]);
  if (lat < -90 || lat > 90) throw invalid(field, `latitude ${lat} is outside -90..90 (latitude comes first)`);
  if (lon < -180 || lon > 180) throw invalid(field, `longitude ${lon} is outside -180..180`);
  return { lat, lon };
}

/** States whose land was never surveyed under the PLSS (the thirteen colonies, their offshoots, Texas, Hawaii). */
const NOT_PLSS = new Set(['CT', 'DE', 'GA', 'HI', 'KY', 'MA', 'MD', 'ME', 'NC', 'NH', 'NJ', 'NY', 'PA', 'RI', 'SC', 'TN', 'TX', 'VA', 'VT', 'WV', 'DC']);

export interface PlssParam {
  key: string;
  state: string;
  surveyed: boolean;
}

/** state:meridian:township:range:section[:quarter], e.g. CO:06:T001S:R068W:12:NE. */
export function parsePlss(raw: string, field: string): PlssParam {
  const m = /^([A-Z]{2}):(\d{1,2}):T?(\d{1,3}(?:\.\d)?[NS]):R?(\d{1,3}(?:\.\d)?[EW]):(\d{1,2})(?::([NS][EW]){1,4})?$/i.exec(raw.trim());
  if (!m) throw invalid(field, `${JSON.stringify(raw)} is not a PLSS key state:meridian:township:range:section[:quarter] (e.g. CO:06:T001S:R068W:12:NE)`);
  const section = Number(m[5]);
  if (section < 1 || section > 36) throw invalid(field, `section ${section} is outside 1..36`);
  const state = m[1].toUpperCase();
  return { key: raw.trim().toUpperCase(), state, surveyed: !NOT_PLSS.has(state) };
}

export const LOCATION_PARAMS: Param[] = [
  { name: 'address', in: 'query', type: 'string', description: 'A street address, matched against the addresses in the jurisdiction’s own parcel and assessor records.' },
  { name: 'point', in: 'query', type: 'string', description: '<lat>,<lon> (WGS 84, latitude first).', parse: ([raw], name) => parsePoint(raw, name) },
  { name: 'geometry', in: 'query', type: 'string', description: 'WKT or GeoJSON, Point through MultiPolygon (GeoJSON keeps lon,lat); long ones: use the POST form.' },
  { name: 'buffer', in: 'query', type: 'number', min: 0, max: 16_093, description: 'Distance around the point or geometry.' },
  { name: 'buffer_unit', in: 'query', type: 'string', enum: BUFFER_UNITS, default: 'ft', description: 'Unit of buffer.' },
  { name: 'parcel', in: 'query', type: 'array', maxItems: 50, description: 'prc_ ids; several make an assemblage.' },
  { name: 'apn', in: 'query', type: 'string', description: 'Assessor parcel number (needs fips).' },
  { name: 'fips', in: 'query', type: 'string', description: 'Census GEOID of the county (5 digits) that issued the apn.' },
  { name: 'plss', in: 'query', type: 'string', description: 'PLSS key state:meridian:township:range:section[:quarter].', parse: ([raw], name) => parsePlss(raw, name) },
  { name: 'location_token', in: 'query', type: 'string', description: 'A loc_ token from an earlier resolution.' },
  { name: 'strict', in: 'query', type: 'boolean', default: false, description: 'Turn an ambiguous or too-coarse location into a 422.' },
];

export const LOCATION_KEYS = ['address', 'point', 'geometry', 'parcel', 'apn', 'plss', 'location_token'] as const;

/** The body of the POST forms of /place and /rule: a geometry too long for a query string. */
export const GEOMETRY_BODY = {
  type: 'object',
  additionalProperties: false,
  required: ['geometry'],
  properties: {
    geometry: { type: ['string', 'object'], minLength: 1, description: 'WKT text, or GeoJSON (text or object), Point through MultiPolygon.' },
  },
};

/** The geometry asked about: the query's, else the POST body's (a GeoJSON object is read as its text). */
export function geometryParam(query: unknown, body: { geometry?: unknown } | null | undefined): string | undefined {
  if (typeof query === 'string') return query;
  const g = body?.geometry;
  return g === undefined || g === null ? undefined : typeof g === 'string' ? g : JSON.stringify(g);
}
