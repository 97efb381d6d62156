// The future land use areas (a comprehensive plan's map) reaching a place, as in force on the
// date asked and known at the instant asked, each with the map version that draws it.
import type { Queryable } from '../../store/db.ts';
import type { Times } from '../../store/place/resolve.ts';

export async function futureLandUseAt(db: Queryable, jurisdictionId: string, geojson: string, point: string | null, t: Times) {
  const { rows } = await db.query(
    `WITH loc AS (SELECT g, CASE WHEN GeometryType(g) IN ('POLYGON', 'MULTIPOLYGON') THEN ST_Area(g) END AS a, ST_GeomFromGeoJSON($5::text) AS pt
                    FROM ST_GeomFromGeoJSON($2::text) AS g)
     SELECT a.district_id, min(a.code_raw) AS code, min(a.map_version_id) AS map_version, min(m.version_id) AS version,
            min(lower(a.valid))::text AS effective_from,
            CASE WHEN min(loc.a) IS NULL THEN NULL ELSE round((sum(ST_Area(ST_Intersection(a.geom, loc.g))) / min(loc.a))::numeric, 4)::float8 END AS share,
            CASE WHEN bool_or(loc.pt IS NULL) THEN NULL ELSE bool_or(ST_Covers(a.geom, loc.pt)) END AS contains_point
       FROM district_area a JOIN map_version m ON m.id = a.map_version_id, loc
      WHERE a.jurisdiction_id = $1 AND a.kind = 'future_land_use' AND a.valid @> $3::date AND a.known @> $4::timestamptz AND ST_Intersects(a.geom, loc.g)
      GROUP BY a.district_id
      ORDER BY bool_or(ST_Covers(a.geom, COALESCE(loc.pt, ST_PointOnSurface(loc.g)))) DESC, 6 DESC NULLS LAST, 2`,
    [jurisdictionId, geojson, t.asOf, t.knownAsOf, point],
  );
  return rows.map((r) => ({
    designation: r.code,
    id: r.district_id,
    share: r.share,
    contains_point: r.contains_point ?? undefined,
    map_version: r.map_version,
    version: r.version,
    effective_from: r.effective_from,
    status: 'stated',
  }));
}
