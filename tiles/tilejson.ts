// TileJSON 3.0.0 of a layer: bounds of its data in force, a center on that data, and a semver
// version that changes whenever a tile of the tileset can (docs/decisions.md, Maps).
import type { Queryable } from '../store/db.ts';
import { micros, type TileLayer } from './layers.ts';

/** SQL of a layer's features in force ($1 date, $2 knowledge instant): jurisdiction `j`, geometry `g` (lon/lat). */
function featuresInForce(layer: TileLayer): string {
  if (layer.id === 'coverage') return `SELECT id AS j, boundary AS g FROM jurisdiction WHERE boundary IS NOT NULL AND $1::date IS NOT NULL AND $2::timestamptz IS NOT NULL`;
  if (layer.id === 'parcel') return `SELECT jurisdiction_id AS j, geom AS g FROM parcel WHERE geom IS NOT NULL AND valid @> $1::date AND known @> $2::timestamptz`;
  const kind = layer.id === 'district' ? 'base' : layer.id;
  return `SELECT jurisdiction_id AS j, geom AS g FROM district_area WHERE kind = '${kind}' AND valid @> $1::date AND known @> $2::timestamptz`;
}

/**
 * SQL of the bounds and center: the extent of the features (those touching the bbox, $3..$6,
 * when given); the jurisdiction whose features span the largest box (cut to the bbox); and the
 * point of its features nearest the middle of that box (the middle itself when a feature covers
 * it; the nearest found by the geometry index): a point on data, never the empty ground between
 * towns.
 */
function placeSql(layer: TileLayer, withBbox: boolean): string {
  const env = 'ST_MakeEnvelope($3::float8, $4::float8, $5::float8, $6::float8, 4326)';
  const touching = withBbox ? `g && ${env}` : 'true';
  const cut = (geom: string) => (withBbox ? `ST_ClipByBox2D(${geom}, ${env})` : geom);
  return `
WITH per AS (SELECT j, ST_SetSRID(ST_Extent(g)::geometry, 4326) AS e FROM (${featuresInForce(layer)}) f WHERE ${touching} GROUP BY j),
top AS (SELECT j, e, ST_Centroid(e) AS mid FROM (SELECT j, ${cut('e')} AS e FROM per) c ORDER BY ST_Area(e) DESC, j LIMIT 1),
near AS (SELECT ST_ClosestPoint(c, top.mid) AS p FROM top, LATERAL (
           SELECT ${cut('g')} AS c FROM (${featuresInForce(layer)}) f WHERE j = top.j AND ${touching} ORDER BY g <-> top.mid LIMIT 8) n
          WHERE NOT ST_IsEmpty(c) ORDER BY ST_Distance(c, top.mid) LIMIT 1)
SELECT ST_XMin(a) AS w, ST_YMin(a) AS s, ST_XMax(a) AS e, ST_YMax(a) AS n,
       ST_X(near.p) AS lon, ST_Y(near.p) AS lat, ST_XMax(top.e) - ST_XMin(top.e) AS width, ST_YMax(top.e) - ST_YMin(top.e) AS height
  FROM (SELECT ST_Extent(e)::geometry AS a FROM per) x LEFT JOIN top ON true LEFT JOIN near ON true`;
}

/** The zoom that frames a box of width x height degrees (at latitude lat) in a view about 1,000 pixels wide (512-pixel tiles), within the layer's zooms. */
function frameZoom(layer: TileLayer, width: number, height: number, lat: number): number {
  const span = Math.max(width, height / Math.cos((lat * Math.PI) / 180));
  const z = span > 0 ? Math.floor(Math.log2(720 / span)) : layer.maxzoom;
  return Math.min(layer.maxzoom, Math.max(layer.minzoom, z));
}

const WORLD = [-180, -85.0511, 180, 85.0511];

/**
 * `bounds`: the extent of the layer's data in force, cut to the bbox when one is given; a bbox
 * holding no data is its own bounds, and no data and no bbox the Web Mercator world. `center`: on the data (see
 * placeSql), at the zoom framing its jurisdiction's data; with no data, the middle of the bounds.
 */
export async function boundsAndCenter(db: Queryable, layer: TileLayer, asOf: string, knownAsOf: string, bbox: number[] | null) {
  const { rows } = await db.query(placeSql(layer, bbox !== null), [asOf, knownAsOf, ...(bbox ?? [])]);
  const r = rows[0];
  if (r.w === null || r.lon === null) {
    const bounds = bbox ?? WORLD;
    return { bounds, center: [(bounds[0] + bounds[2]) / 2, (bounds[1] + bounds[3]) / 2, layer.minzoom] };
  }
  const box = [r.w, r.s, r.e, r.n].map(Number);
  const bounds = bbox ? [Math.max(box[0], bbox[0]), Math.max(box[1], bbox[1]), Math.min(box[2], bbox[2]), Math.min(box[3], bbox[3])] : box;
  // a point on the data lies within its extent; min/max only guard the float rounding of the extent's box
  const lon = Math.min(bounds[2], Math.max(bounds[0], Number(r.lon)));
  const lat = Math.min(bounds[3], Math.max(bounds[1], Number(r.lat)));
  return { bounds, center: [lon, lat, frameZoom(layer, Number(r.width), Number(r.height), lat)] };
}

/**
 * SQL of the minor version ($1 date, $2 knowledge instant, $3 the map_version layer): the loads
 * that changed what the layer draws as known at $2 (each instant a map version of the layer, or
 * for district layers a district fact of those towns, was learnt or retracted) plus the dates up
 * to $1 on which something it draws took effect or ended (map versions' effective dates; for
 * district layers also each area's and each district's own). Both counts only grow as either
 * time moves on, so the minor version of a tileset asked later is never lower, and it rises
 * whenever its tiles can change. Parcels are dated by their map versions (a parcel load dates
 * every parcel it adds or removes with its map version's date).
 */
function minorSql(layer: TileLayer): string {
  const areas = layer.versionLayer !== 'parcel';
  const kind = layer.id === 'district' ? 'base' : layer.id;
  const towns = `SELECT jurisdiction_id FROM map_version WHERE layer = $3`;
  const instants = [
    `SELECT unnest(ARRAY[lower(known), upper(known)]) AS t FROM map_version WHERE layer = $3`,
    ...(areas ? [`SELECT unnest(ARRAY[lower(known), upper(known)]) FROM district WHERE jurisdiction_id IN (${towns})`] : []),
  ];
  const dates = [
    `SELECT effective_from AS d FROM map_version WHERE layer = $3 AND lower(known) <= $2::timestamptz`,
    ...(areas
      ? [
          `SELECT unnest(ARRAY[lower(valid), upper(valid)]) FROM district_area WHERE kind = '${kind}' AND lower(known) <= $2::timestamptz`,
          `SELECT unnest(ARRAY[lower(valid), upper(valid)]) FROM district WHERE jurisdiction_id IN (${towns}) AND lower(known) <= $2::timestamptz`,
        ]
      : []),
  ];
  return `SELECT (SELECT count(DISTINCT t) FROM (${instants.join(' UNION ALL ')}) i WHERE t <= $2::timestamptz)
               + (SELECT count(DISTINCT d) FROM (${dates.join(' UNION ALL ')}) v WHERE d <= $1::date) AS minor`;
}

/**
 * The tileset's semver: MAJOR the layer's schema (its name and fields: TileLayer.schema), MINOR
 * from its data (minorSql), PATCH 0 (no change is known to stay within one tile). Coverage rows
 * are updated in place, so their changes cannot be counted: its minor is the instant of the last
 * update known, in µs since the epoch (what its tiles' ETags hang on).
 */
export async function tilesetVersion(db: Queryable, layer: TileLayer, asOf: string, knownAsOf: string): Promise<string> {
  const { rows } =
    layer.versionLayer === null
      ? await db.query(`SELECT COALESCE(${micros('max(updated_at)')}, 0) AS minor FROM coverage WHERE updated_at <= $1::timestamptz`, [knownAsOf])
      : await db.query(minorSql(layer), [asOf, knownAsOf, layer.versionLayer]);
  return `${layer.schema}.${BigInt(rows[0].minor)}.0`;
}
