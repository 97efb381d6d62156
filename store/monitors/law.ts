// Monitors and the law at their places: called by writeChangeEvents, in the load's transaction,
// with the change events it wrote. An event about a district (layer district: the district itself,
// or a permission or control of it, adopted, amended or repealed) matches a watched parcel where
// that district applies; a map change (layer district_map or overlay) matches a watched parcel
// where the district applies before or after it and where its drawing changed within the parcel
// by more than a redrawing (store/load/maps.ts's rule, a strip at least MAP_CHANGE_MIN_WIDTH_M =
// DRAWING_TOLERANCE_M wide, applied inside the parcel). "Applies" is the place rule of /place and
// /rule (store/place/law.ts: the district's share of the parcel, slivers apart), as known by the
// load, on the event's effective date or the day before. Sections, the rule for unlisted uses,
// ordinances and moratoriums name no district and match no parcel. A site's parcel is watched
// from when it joined the site. One match per change event and site.
import { DRAWING_TOLERANCE_M } from '../../core/tolerance.ts';
import { apartSlivers, districtShares } from '../place/law.ts';
import type { Times } from '../place/resolve.ts';
import { CHANGE_EVENT_JSON } from '../change-event-json.ts';
import type { Queryable } from '../db.ts';
import { lawPasses, readFilter } from './filter.ts';
import { anyActiveMonitor, type Watcher, writeMatch } from './match.ts';

type Row = Record<string, any>;

const EVENTS_SQL = `
SELECT e.id, e.seq, e.jurisdiction_id, e.kind, e.layer, e.subject, e.field_path, e.previous, e.current,
       e.effective_date::text AS effective_date, e.adopted_on::text AS adopted_on, e.detected_at, e.ordinance_id, e.source_version_id,
       ${CHANGE_EVENT_JSON} AS change_event,
       COALESCE(e.effective_date, (e.detected_at AT TIME ZONE j.timezone)::date)::text AS day,
       d.district_id, dd.code_normalized AS district_code, dd.kind AS district_kind
  FROM change_event e JOIN jurisdiction j ON j.id = e.jurisdiction_id
  CROSS JOIN LATERAL (SELECT CASE e.subject->>'type'
         WHEN 'district' THEN e.subject->>'id'
         WHEN 'permission' THEN (SELECT p.district_id FROM permission p WHERE p.id = e.subject->>'id' ORDER BY p.fact_id DESC LIMIT 1)
         WHEN 'control' THEN (SELECT c.district_id FROM control c WHERE c.id = e.subject->>'id' ORDER BY c.fact_id DESC LIMIT 1)
       END AS district_id) d
  LEFT JOIN LATERAL (SELECT x.code_normalized, x.kind FROM district x WHERE x.id = d.district_id ORDER BY x.fact_id DESC LIMIT 1) dd ON true
 WHERE e.id = ANY($1::text[]) AND e.layer IN ('district', 'district_map', 'overlay') AND d.district_id IS NOT NULL
 ORDER BY e.seq`;

/** Parcels of active monitors' sites in these jurisdictions, with the geometry held now. */
const WATCHED_SQL = `
SELECT m.id AS monitor_id, m.organization_id, m.list_id, i.id AS item_id, i.name AS item_name, i.filter,
       x.parcel_id, x.position, x.added_at, p.parcel_key, p.jurisdiction_id, ST_AsGeoJSON(p.geom) AS geojson
  FROM monitor m JOIN list_item i ON i.list_id = m.list_id JOIN list_item_parcel x ON x.item_id = i.id
  CROSS JOIN LATERAL (SELECT p.parcel_key, p.jurisdiction_id, p.geom FROM parcel p WHERE p.id = x.parcel_id AND upper_inf(p.known)
                       ORDER BY upper_inf(p.valid) DESC, p.fact_id DESC LIMIT 1) p
 WHERE m.active AND m.deleted_at IS NULL AND p.jurisdiction_id = ANY($1::text[]) AND p.geom IS NOT NULL
 ORDER BY m.id, i.id, x.position`;

/** Which of the districts have a polygon reaching which of the parcels, as known at either instant. */
const REACH_SQL = `
SELECT DISTINCT a.district_id, w.parcel_id
  FROM unnest($1::text[]) AS w(parcel_id)
  CROSS JOIN LATERAL (SELECT p.geom FROM parcel p WHERE p.id = w.parcel_id AND upper_inf(p.known) ORDER BY upper_inf(p.valid) DESC, p.fact_id DESC LIMIT 1) p
  JOIN district_area a ON a.district_id = ANY($2::text[]) AND ST_Intersects(a.geom, p.geom)
 WHERE a.known @> $3::timestamptz OR a.known @> $4::timestamptz`;

/**
 * Per (district, parcel, day): whether the district's drawing within the parcel changed by more
 * than a redrawing between the day before and the day (the day's drawing as known by the load; the
 * day before's, or the day's as known just before the load when it replaced one of the same day,
 * as store/load/maps.ts's DISTRICT_DIFF_SQL reads "before"), measured in the parcel's UTM zone.
 */
const CHANGED_HERE_SQL = `
WITH t AS (SELECT * FROM unnest($1::text[], $2::text[], $3::date[]) AS t(district_id, parcel_id, day)),
g AS (
  SELECT t.*, p.geom AS pg FROM t
   CROSS JOIN LATERAL (SELECT p.geom FROM parcel p WHERE p.id = t.parcel_id AND upper_inf(p.known) ORDER BY upper_inf(p.valid) DESC, p.fact_id DESC LIMIT 1) p),
s AS (
  SELECT g.district_id, g.parcel_id, g.day, g.pg,
         (SELECT ST_CollectionExtract(ST_Intersection(ST_UnaryUnion(ST_Collect(ST_CollectionExtract(ST_MakeValid(x.geom), 3))), g.pg), 3)
            FROM district_area x WHERE x.district_id = g.district_id AND ST_Intersects(x.geom, g.pg)
             AND ((x.known @> $4::timestamptz AND x.valid @> (g.day - 1))
               OR (x.known @> $5::timestamptz AND x.valid @> g.day
                   AND NOT EXISTS (SELECT 1 FROM district_area y WHERE y.district_id = g.district_id AND y.known @> $4::timestamptz AND y.valid @> (g.day - 1))))) AS b,
         (SELECT ST_CollectionExtract(ST_Intersection(ST_UnaryUnion(ST_Collect(ST_CollectionExtract(ST_MakeValid(x.geom), 3))), g.pg), 3)
            FROM district_area x WHERE x.district_id = g.district_id AND ST_Intersects(x.geom, g.pg)
             AND x.known @> $4::timestamptz AND x.valid @> g.day) AS a
    FROM g),
z AS (SELECT s.*, CASE WHEN ST_Y(c) < 0 THEN 32700 ELSE 32600 END + least(60, floor((ST_X(c) + 180) / 6)::int + 1) AS srid
        FROM s, LATERAL (SELECT ST_Centroid(s.pg) AS c) c)
SELECT z.district_id, z.parcel_id, z.day::text AS day,
       COALESCE(NOT ST_IsEmpty(ST_Buffer(ST_SymDifference(
         ST_Transform(COALESCE(z.b, ST_GeomFromText('POLYGON EMPTY', 4326)), z.srid),
         ST_Transform(COALESCE(z.a, ST_GeomFromText('POLYGON EMPTY', 4326)), z.srid), 0.01), -$6::float8 / 2)), false) AS changed
  FROM z`;

const dayBefore = (day: string) => new Date(Date.parse(`${day}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
/** The instant one microsecond before `t` (timestamptz text). */
const justBefore = (t: Date) => `${new Date(t.getTime() - 1).toISOString().slice(0, 23)}999Z`;

interface WatchedParcel {
  w: Watcher;
  parcel_id: string;
  number: string | null;
  added_at: Date;
  jurisdiction_id: string;
  geojson: string;
}

/** Match the change events just written (ids) to the watched parcels; returns how many matches were written. */
export async function matchChangeEvents(db: Queryable, changeEventIds: string[]): Promise<number> {
  if (changeEventIds.length === 0 || !(await anyActiveMonitor(db))) return 0;
  const { rows: events } = await db.query(EVENTS_SQL, [changeEventIds]);
  if (events.length === 0) return 0;
  const jurisdictions = [...new Set(events.map((e) => e.jurisdiction_id as string))];
  const { rows: watched } = await db.query(WATCHED_SQL, [jurisdictions]);
  const parcels: WatchedParcel[] = watched
    .filter((r) => lawPasses(readFilter(r.filter)))
    .map((r) => ({ w: r as Watcher, parcel_id: r.parcel_id, number: r.parcel_key, added_at: r.added_at, jurisdiction_id: r.jurisdiction_id, geojson: r.geojson }));
  if (parcels.length === 0) return 0;

  const detected = new Date(events[0].detected_at);
  const known = detected.toISOString();
  const knownBefore = justBefore(detected);
  const parcelIds = [...new Set(parcels.map((p) => p.parcel_id))];
  const districtIds = [...new Set(events.map((e) => e.district_id as string))];
  const { rows: reach } = await db.query(REACH_SQL, [parcelIds, districtIds, known, knownBefore]);
  const reaches = new Set(reach.map((r) => `${r.district_id} ${r.parcel_id}`));
  if (reaches.size === 0) return 0;

  // the districts applying at a parcel at a time pair, by the place rule (cached per load)
  const applying = new Map<string, Promise<Set<string>>>();
  const appliesAt = (p: WatchedParcel, t: Times) => {
    const key = `${p.parcel_id} ${t.asOf} ${t.knownAsOf}`;
    if (!applying.has(key)) applying.set(key, districtShares(db, p.jurisdiction_id, p.geojson, t).then((s) => new Set(apartSlivers(s).shares.map((x) => x.district_id))));
    return applying.get(key)!;
  };
  const applies = async (p: WatchedParcel, district: string, day: string) => {
    for (const t of [{ asOf: day, knownAsOf: known }, { asOf: dayBefore(day), knownAsOf: known }, { asOf: day, knownAsOf: knownBefore }]) {
      if ((await appliesAt(p, t)).has(district)) return true;
    }
    return false;
  };

  // candidates: event × watched parcel of its jurisdiction, watched by then, the district reaching it
  const candidates: Array<{ e: Row; p: WatchedParcel }> = [];
  for (const e of events) {
    for (const p of parcels) {
      if (p.jurisdiction_id !== e.jurisdiction_id || new Date(p.added_at) > new Date(e.detected_at)) continue;
      if (!reaches.has(`${e.district_id} ${p.parcel_id}`)) continue;
      if (await applies(p, e.district_id, e.day)) candidates.push({ e, p });
    }
  }
  const isMap = (e: Row) => e.layer !== 'district';
  const mapPairs = candidates.filter((c) => isMap(c.e));
  const changed = new Set<string>();
  if (mapPairs.length) {
    const { rows } = await db.query(CHANGED_HERE_SQL, [
      mapPairs.map((c) => c.e.district_id),
      mapPairs.map((c) => c.p.parcel_id),
      mapPairs.map((c) => c.e.day),
      known,
      knownBefore,
      DRAWING_TOLERANCE_M,
    ]);
    for (const r of rows) if (r.changed) changed.add(`${r.district_id} ${r.parcel_id} ${r.day}`);
  }

  // one match per (event, monitor's site): the site's parcels it matched, in the site's order
  const sites = new Map<string, { e: Row; w: Watcher; parcels: Array<{ id: string; number: string | null }> }>();
  for (const { e, p } of candidates) {
    if (isMap(e) && !changed.has(`${e.district_id} ${p.parcel_id} ${e.day}`)) continue;
    const key = `${e.id} ${p.w.monitor_id} ${p.w.item_id}`;
    if (!sites.has(key)) sites.set(key, { e, w: p.w, parcels: [] });
    sites.get(key)!.parcels.push({ id: p.parcel_id, number: p.number });
  }
  let n = 0;
  for (const { e, w, parcels: matched } of sites.values()) {
    const { rows: held } = await db.query('SELECT 1 FROM monitor_match WHERE monitor_id = $1 AND subject_id = $2 AND item_id = $3', [w.monitor_id, e.id, w.item_id]);
    if (held.length) continue;
    await writeMatch(db, {
      w,
      kind: 'law',
      type: isMap(e) ? 'monitor.parcel.rezoned' : 'monitor.rule.amended',
      subjectId: e.id,
      seq: e.seq,
      parcels: matched,
      about: {
        change_event: e.change_event,
        district: { id: e.district_id, code: e.district_code, kind: e.district_kind, href: `/jurisdiction/${e.jurisdiction_id}/district/${e.district_id}` },
      },
    });
    n++;
  }
  return n;
}
