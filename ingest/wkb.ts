// GDAL's ISO WKB (little endian, 2D) of a Polygon or MultiPolygon, as a MultiPolygon's: a polygon
// gains the one-member header. The layer reader gives every polygon layer's features this way.
const POLYGON = 3;
const MULTIPOLYGON = 6;

/** One polygon as a MultiPolygon: byte order, type, count, then the polygon's own WKB. */
const ONE = Buffer.from([1, MULTIPOLYGON, 0, 0, 0, 1, 0, 0, 0]);

/** The MultiPolygon WKB of a Polygon or MultiPolygon WKB (LSB, ISO, 2D); null for anything else or an empty one. */
export function asMultiPolygonWkb(wkb: Buffer): Buffer | null {
  if (wkb.length < 9 || wkb[0] !== 1) return null;
  const type = wkb.readUInt32LE(1);
  const count = wkb.readUInt32LE(5);
  if (count === 0) return null;
  if (type === MULTIPOLYGON) return wkb;
  if (type === POLYGON) return Buffer.concat([ONE, wkb]);
  return null;
}
