// Coordinate reference systems of OGC API Features Part 2: what `crs`, `bbox-crs` and
// `filter-crs` accept, and the SQL that writes or reads geometries in each. Storage is EPSG:4326
// in PostGIS's x=lon, y=lat order, which is CRS84's axis order.
import { invalid, unknownValue } from '../core/errors.ts';
import { parseBbox } from '../core/query/bbox.ts';

export interface Crs {
  uri: string;
  srid: number;
  /** the CRS's axis order is lat, lon (EPSG:4326): flip PostGIS's x/y */
  flip: boolean;
  /** decimals written in GeoJSON coordinates */
  digits: number;
}

export const CRS84: Crs = { uri: 'http://www.opengis.net/def/crs/OGC/1.3/CRS84', srid: 4326, flip: false, digits: 7 };
export const EPSG_4326: Crs = { uri: 'http://www.opengis.net/def/crs/EPSG/0/4326', srid: 4326, flip: true, digits: 7 };
export const EPSG_3857: Crs = { uri: 'http://www.opengis.net/def/crs/EPSG/0/3857', srid: 3857, flip: false, digits: 2 };

export const SUPPORTED_CRS: Crs[] = [CRS84, EPSG_4326, EPSG_3857];
export const CRS_URIS = SUPPORTED_CRS.map((c) => c.uri);

/** Short names accepted beside the URIs (safe CURIEs and the usual shorthands). */
const ALIASES: Record<string, Crs> = {
  crs84: CRS84,
  'ogc:crs84': CRS84,
  '[ogc:crs84]': CRS84,
  'urn:ogc:def:crs:ogc:1.3:crs84': CRS84,
  'epsg:4326': EPSG_4326,
  '[epsg:4326]': EPSG_4326,
  'urn:ogc:def:crs:epsg::4326': EPSG_4326,
  'epsg:3857': EPSG_3857,
  '[epsg:3857]': EPSG_3857,
  'urn:ogc:def:crs:epsg::3857': EPSG_3857,
};

export function parseCrs(raw: string | undefined, field: string): Crs {
  if (raw === undefined) return CRS84;
  const text = raw.trim();
  const found = SUPPORTED_CRS.find((c) => c.uri === text || c.uri.replace(/^http:/, 'https:') === text) ?? ALIASES[text.toLowerCase()];
  if (!found) throw unknownValue(field, text, CRS_URIS);
  return found;
}

/** The Content-Crs header value of Part 2. */
export const contentCrs = (crs: Crs) => `<${crs.uri}>`;

/** SQL writing a 4326 geometry expression as GeoJSON text in `crs` (no "crs" member added). */
export function geoJsonSql(geom: string, crs: Crs): string {
  if (crs.srid === 3857) return `ST_AsGeoJSON(ST_Transform(${geom}, 3857), ${crs.digits}, 0)`;
  if (crs.flip) return `ST_AsGeoJSON(ST_FlipCoordinates(${geom}), ${crs.digits}, 0)`;
  return `ST_AsGeoJSON(${geom}, ${crs.digits}, 0)`;
}

/** SQL reading a geometry literal (WKT bound as text) given in `crs` as 4326 lon/lat. */
export function geometryFromTextSql(wktParam: string, crs: Crs): string {
  const g = `ST_GeomFromText(${wktParam}, ${crs.srid})`;
  if (crs.srid === 3857) return `ST_Transform(${g}, 4326)`;
  return crs.flip ? `ST_FlipCoordinates(${g})` : g;
}

const MERCATOR_MAX = 20037508.342789244;

/**
 * A bbox (4 numbers, or 6 with heights, which are ignored) in `crs`, as west, south, east, north
 * in that CRS's x/y terms. Outside the CRS's domain or inverted: 422 naming `field`.
 */
export function parseBboxIn(raw: string, crs: Crs, field = 'bbox'): [number, number, number, number] {
  const parts = raw.split(',').map((s) => Number(s.trim()));
  if ((parts.length !== 4 && parts.length !== 6) || parts.some((n, i) => !Number.isFinite(n) || raw.split(',')[i].trim() === '')) {
    throw invalid(field, `${JSON.stringify(raw)} is not 4 numbers (minx,miny,maxx,maxy) or 6 (with heights)`);
  }
  const four = parts.length === 6 ? [parts[0], parts[1], parts[3], parts[4]] : parts;
  if (crs.srid === 3857) {
    const [w, s, e, n] = four;
    if ([w, s, e, n].some((v) => Math.abs(v) > MERCATOR_MAX)) throw invalid(field, `lies outside the Web Mercator plane (±${MERCATOR_MAX} m)`);
    if (w >= e || s >= n) throw invalid(field, 'is inverted or empty: minx < maxx and miny < maxy');
    return [w, s, e, n];
  }
  // EPSG:4326 lists latitude first; check it as CRS84 (lon, lat) and hand it back in its own order
  const lonLat = crs.flip ? [four[1], four[0], four[3], four[2]] : four;
  try {
    const [w, s, e, n] = parseBbox(lonLat.join(','));
    return crs.flip ? [s, w, n, e] : [w, s, e, n];
  } catch (err) {
    const e = err as { detail?: string };
    throw invalid(field, `${e.detail ?? 'is not a bounding box'}${crs.flip ? ' (EPSG:4326 lists latitude first: minlat,minlon,maxlat,maxlon)' : ''}`);
  }
}

/** SQL of a bbox envelope in 4326 lon/lat, from four bound parameters given in `crs`'s order. */
export function envelopeSql(p: [string, string, string, string], crs: Crs): string {
  if (crs.srid === 3857) return `ST_Transform(ST_MakeEnvelope(${p[0]}, ${p[1]}, ${p[2]}, ${p[3]}, 3857), 4326)`;
  if (crs.flip) return `ST_MakeEnvelope(${p[1]}, ${p[0]}, ${p[3]}, ${p[2]}, 4326)`;
  return `ST_MakeEnvelope(${p[0]}, ${p[1]}, ${p[2]}, ${p[3]}, 4326)`;
}
