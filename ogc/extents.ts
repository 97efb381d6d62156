// The extents of the collections: the spatial extent is the exact box of the collection's own
// features in force now (the rows its items answer by default), never the estimate of a table
// other collections share; the temporal extent opens at the first map version of its layer.
// Boxes are kept per database until a map version is learnt or retracted, a jurisdiction
// changes, or the hour turns (a feature's validity may end at midnight), so a GIS client opening
// the service does not scan every parcel each time.
import type { Queryable as Db } from '../store/db.ts';
import { COLLECTIONS, type Collection, type SqlTimes } from './collections.ts';

export interface Extent {
  bbox: [number, number, number, number] | null;
  /** first effective date of the collection's map versions */
  from: string | null;
}

const NOW: SqlTimes = { date: '(now() AT TIME ZONE j.timezone)::date', known: 'now()' };

/** One row of the extents statement: the box of the collection's features in force now. */
export function extentSql(c: Collection): string {
  // identifiers and layer names below come from the collection definitions, never from a request;
  // the box is of the rows' own geometry, so joins that only add properties are left out
  const where = c.where(NOW);
  const t0 = c.versionLayer ? `(SELECT min(effective_from)::text FROM map_version WHERE layer = '${c.versionLayer}')` : 'NULL::text';
  return `SELECT '${c.id}' AS id, ST_XMin(b) AS w, ST_YMin(b) AS s, ST_XMax(b) AS e, ST_YMax(b) AS n, ${t0} AS t0
    FROM (SELECT ST_Extent(${c.geometry}) AS b FROM ${(c.countFrom ?? c.from)(NOW)} ${where.length ? `WHERE ${where.join(' AND ')}` : ''}) x`;
}

/** What the boxes hang on: the last map version learnt or retracted, the last jurisdiction changed, the hour. */
const STAMP_SQL = `SELECT concat_ws('|', (SELECT max(greatest(lower(known), upper(known))) FROM map_version),
  (SELECT concat(count(*), ':', max(updated_at)) FROM jurisdiction), date_trunc('hour', now())) AS stamp`;

const kept = new WeakMap<Db, { stamp: string; extents: Map<string, Extent> }>();

export async function readExtents(db: Db, only?: Collection): Promise<Map<string, Extent>> {
  const list = only ? [only] : COLLECTIONS;
  const { rows: s } = await db.query(STAMP_SQL);
  const stamp: string = s[0].stamp;
  let memo = kept.get(db);
  if (!memo || memo.stamp !== stamp) {
    memo = { stamp, extents: new Map() };
    kept.set(db, memo);
  }
  const missing = list.filter((c) => !memo.extents.has(c.id));
  if (missing.length) {
    const { rows } = await db.query(missing.map(extentSql).join('\nUNION ALL\n'));
    for (const r of rows) memo.extents.set(r.id, { bbox: r.w === null ? null : [r.w, r.s, r.e, r.n], from: r.t0 });
  }
  return new Map(list.map((c) => [c.id, memo.extents.get(c.id)!]));
}
