// Geobuf (application/vnd.geobuf): GeoJSON in the compact protobuf form of the geobuf package,
// which keeps every member (foreign members too, objects as JSON text). The package writes at most
// 6 decimals; coordinates served with more (7 in CRS84) are scaled before it writes them and the
// precision they need is stated in the header, so a decoder gives back the numbers served.
import { encode } from 'geobuf';
import Pbf from 'pbf4';

export const GEOBUF_TYPE = 'application/vnd.geobuf';

/** the decimals the package keeps by itself */
const PACKAGE_DIGITS = 6;
/** the most decimals kept (PostGIS's default for GeoJSON); more are rounded */
export const MAX_DIGITS = 9;

/** A GeoJSON object as parsed: a FeatureCollection, a Feature or a geometry. */
type GeoJson = { type: string; features?: GeoJson[]; geometry?: GeoJson | null; geometries?: GeoJson[]; coordinates?: Coordinates; [member: string]: unknown };
type Coordinates = number | Coordinates[];

/** Calls `f` on every coordinate of a GeoJSON object's geometries. */
function eachCoordinate(obj: GeoJson | null | undefined, f: (v: number) => void) {
  if (!obj) return;
  for (const x of obj.features ?? obj.geometries ?? []) eachCoordinate(x, f);
  if (obj.type === 'Feature') eachCoordinate(obj.geometry, f);
  else if (obj.coordinates !== undefined) eachNumber(obj.coordinates, f);
}

function eachNumber(c: Coordinates, f: (v: number) => void) {
  if (typeof c === 'number') f(c);
  else for (const x of c) eachNumber(x, f);
}

/** The fewest decimals that write every coordinate exactly, at most MAX_DIGITS. */
export function digitsOf(obj: GeoJson): number {
  let digits = 0;
  let e = 1;
  eachCoordinate(obj, (v) => {
    while (digits < MAX_DIGITS && Math.round(v * e) / e !== v) {
      digits++;
      e *= 10;
    }
  });
  return digits;
}

const scaleCoordinates = (c: Coordinates, k: number): Coordinates => (typeof c === 'number' ? c * k : c.map((x) => scaleCoordinates(x, k)));

/** A copy of a GeoJSON object with every coordinate multiplied by `k` (other members shared). */
function scaled<T extends GeoJson | null | undefined>(obj: T, k: number): T {
  if (!obj) return obj;
  const out: GeoJson = { ...obj };
  if (obj.features) out.features = obj.features.map((x) => scaled(x, k));
  if (obj.geometries) out.geometries = obj.geometries.map((g) => scaled(g, k));
  if (obj.type === 'Feature') out.geometry = scaled(obj.geometry, k);
  else if (obj.coordinates !== undefined) out.coordinates = scaleCoordinates(obj.coordinates, k);
  return out as T;
}

/** A GeoJSON FeatureCollection, Feature or geometry as Geobuf bytes, coordinates exact to MAX_DIGITS decimals. */
export function toGeobuf(obj: GeoJson): Buffer {
  const digits = digitsOf(obj);
  const pbf = new Pbf();
  if (digits > PACKAGE_DIGITS) {
    // scaled by 10^(digits - 6) the coordinates need exactly 6 decimals, so the package writes no
    // precision of its own and this one (read before the data) gives the decoder the true scale
    pbf.writeVarintField(3, digits);
    obj = scaled(obj, 10 ** (digits - PACKAGE_DIGITS));
  }
  const bytes = encode(obj, pbf);
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** A value as its JSON serves it (members undefined left out, dates as text), in Geobuf. */
export function geobufOfJson(value: unknown): Buffer {
  return toGeobuf(JSON.parse(JSON.stringify(value)));
}

/**
 * Whether an Accept header asks for Geobuf: it names application/vnd.geobuf with a weight above
 * 0 and no lower than application/geo+json's (application/json and wildcards do not count).
 */
export function acceptsGeobuf(accept: string | undefined): boolean {
  if (!accept) return false;
  let geobuf = 0;
  let geojson = 0;
  for (const part of accept.split(',')) {
    const [type, ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    const q = params.find((p) => p.startsWith('q='));
    const weight = q ? Number(q.slice(2)) : 1;
    if (!Number.isFinite(weight)) continue;
    if (type === GEOBUF_TYPE) geobuf = Math.max(geobuf, weight);
    else if (type === 'application/geo+json') geojson = Math.max(geojson, weight);
  }
  return geobuf > 0 && geobuf >= geojson;
}
