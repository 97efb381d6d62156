// Which map versions draw a district on a date, as known at an instant: the version of each
// published map in force then (the latest of its document taking effect by the date) whose
// polygons in force include the district's. A polygon unchanged by a later version keeps the
// version that first drew it, so the drawing version is found through the map's document.
import type { Queryable } from './db.ts';
import type { Times } from './place/resolve.ts';

export interface MapDrawing {
  district_id: string;
  id: string;
  layer: string;
  effective_from: string;
  effective_through: string | null;
  effective_basis: string;
  adopted_on: string | null;
  document: string | null;
  version: string | null;
}

/** SQL: no later version of m's map (same document and layer) known at $k and in force by $d. */
const LATEST = (d: string, k: string) => `NOT EXISTS (
  SELECT 1 FROM map_version n
   WHERE n.document_id = m.document_id AND n.layer = m.layer AND n.id <> m.id AND n.known @> ${k}::timestamptz AND n.effective_from <= ${d}::date
     AND (n.effective_from > m.effective_from OR (n.effective_from = m.effective_from AND lower(n.known) > lower(m.known))))`;

export async function mapsDrawing(db: Queryable, districtIds: string[], t: Times): Promise<Map<string, MapDrawing[]>> {
  const out = new Map<string, MapDrawing[]>();
  if (districtIds.length === 0) return out;
  const { rows } = await db.query(
    `SELECT DISTINCT a.district_id, m.id, m.layer, m.effective_from::text, m.effective_basis, m.adopted_on::text, m.document_id AS document, m.version_id AS version,
            (SELECT min(n.effective_from) FROM map_version n
              WHERE n.document_id = m.document_id AND n.layer = m.layer AND n.id <> m.id AND n.known @> $3::timestamptz AND n.effective_from > m.effective_from)::text AS effective_through
       FROM district_area a
       JOIN map_version am ON am.id = a.map_version_id
       JOIN map_version m ON (m.id = am.id OR (m.document_id = am.document_id AND m.layer = am.layer))
            AND m.known @> $3::timestamptz AND m.effective_from <= $2::date AND ${LATEST('$2', '$3')}
      WHERE a.district_id = ANY($1::text[]) AND a.valid @> $2::date AND a.known @> $3::timestamptz
      ORDER BY a.district_id, m.layer, m.id`,
    [districtIds, t.asOf, t.knownAsOf],
  );
  for (const r of rows) out.set(r.district_id, [...(out.get(r.district_id) ?? []), r as MapDrawing]);
  return out;
}

export interface MapsHeld {
  /** map versions of the district and overlay layers known at the instant */
  count: number;
  /** the earliest date one of them takes effect */
  earliest: string | null;
  /** those in force on the date */
  inForce: Array<{ id: string; layer: string }>;
}

/** What the store holds of a jurisdiction's zoning maps (why a district may be drawn by none). */
export async function zoningMapsHeld(db: Queryable, jurisdictionId: string, t: Times): Promise<MapsHeld> {
  const { rows } = await db.query(
    `SELECT m.id, m.layer, m.effective_from::text, m.effective_from <= $2::date AND ${LATEST('$2', '$3')} AS in_force
       FROM map_version m
      WHERE m.jurisdiction_id = $1 AND m.layer IN ('district', 'overlay') AND m.known @> $3::timestamptz
      ORDER BY m.layer, m.effective_from, m.id`,
    [jurisdictionId, t.asOf, t.knownAsOf],
  );
  return { count: rows.length, earliest: rows.map((r) => r.effective_from as string).sort()[0] ?? null, inForce: rows.filter((r) => r.in_force).map((r) => ({ id: r.id, layer: r.layer })) };
}

/** The dates from..to (from excluded) on which a map version of the jurisdiction known at the instant takes effect. */
export async function mapDates(db: Queryable, jurisdictionId: string, from: string, to: string, knownAsOf: string): Promise<string[]> {
  const { rows } = await db.query(
    `SELECT DISTINCT effective_from::text AS d FROM map_version
      WHERE jurisdiction_id = $1 AND known @> $4::timestamptz AND effective_from > $2::date AND effective_from <= $3::date ORDER BY 1`,
    [jurisdictionId, from, to, knownAsOf],
  );
  return rows.map((r) => r.d);
}
