// Polygon and MultiPolygon WKT (as GDAL writes it, at round-trip precision) into ISO WKB, little
// endian, always as a MultiPolygon. The bytes equal GDAL's own toWKB('LSB', 'ISO'); this exists
// because gdal-async's toWKB leaks its native buffer on every call, which a million-feature
// layer cannot afford.
const POLYGON = 3;
const MULTIPOLYGON = 6;

type Ring = number[]; // x0, y0, x1, y1, …
type Polygon = Ring[];

function parseRings(body: string): Polygon[] {
  // body: "((x y,x y),(…)),((…))" for a multipolygon, or "(x y,x y),(…)" for one polygon
  const polygons: Polygon[] = [];
  let depth = 0;
  let poly: Polygon = [];
  let start = -1;
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c === '(') {
      depth++;
      start = i + 1;
    } else if (c === ')') {
      if (start >= 0) {
        const ring: Ring = [];
        for (const pair of body.slice(start, i).split(',')) {
          const [x, y] = pair.trim().split(/\s+/);
          ring.push(Number(x), Number(y));
        }
        poly.push(ring);
        start = -1;
      }
      depth--;
      if (depth === 0) {
        polygons.push(poly);
        poly = [];
      }
    }
  }
  return polygons;
}

/** ISO WKB (LSB) of a 2D POLYGON or MULTIPOLYGON WKT, as a MultiPolygon; null for anything else or EMPTY. */
export function multiPolygonWkb(wkt: string): Buffer | null {
  const m = /^\s*(MULTIPOLYGON|POLYGON)\s*(\(.*\))\s*$/s.exec(wkt);
  if (!m) return null;
  const polygons = m[1] === 'POLYGON' ? [parseRings(m[2]).flat()] : parseRings(m[2].slice(1, -1));
  if (polygons.length === 0) return null;
  let size = 9;
  for (const p of polygons) size += 9 + p.reduce((n, r) => n + 4 + r.length * 8, 0);
  const b = Buffer.alloc(size);
  let o = 0;
  b[o++] = 1;
  b.writeUInt32LE(MULTIPOLYGON, o);
  b.writeUInt32LE(polygons.length, o + 4);
  o += 8;
  for (const p of polygons) {
    b[o++] = 1;
    b.writeUInt32LE(POLYGON, o);
    b.writeUInt32LE(p.length, o + 4);
    o += 8;
    for (const r of p) {
      b.writeUInt32LE(r.length / 2, o);
      o += 4;
      for (const v of r) {
        b.writeDoubleLE(v, o);
        o += 8;
      }
    }
  }
  return b;
}
