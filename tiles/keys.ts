// A tile's ETag key (tileKeySql in tiles/layers.ts) worked out in the process, for tiles asked as
// known now: from a snapshot of the few rows it reads (map versions with their extents, the
// instants a jurisdiction's district facts changed, coverage updates), kept until a change of
// knowledge is announced (migrations 013, 016) or a minute passes. The tile statement then runs
// without its key subquery (~8% of its time in PostgreSQL, measured with pgbench).
import { named, type Queryable } from '../store/db.ts';
import { micros, type TileLayer } from './layers.ts';

interface Version {
  layer: string;
  jurisdiction: string;
  /** the extent's box, rounded outward to float4 as PostGIS's && compares boxes */
  box: [number, number, number, number];
  /** lower(known), upper(known) in µs since the epoch (null: still known) */
  learnt: number;
  dropped: number | null;
  /** the jurisdiction's timezone: a tile's date is read in the zones of what it shows */
  zone: string;
}

export interface KeySnapshot {
  versions: Version[];
  /** per jurisdiction, every instant (µs) a district fact was learnt or dropped, ascending */
  districts: Map<string, number[]>;
  /** every coverage updated_at (µs), ascending */
  coverage: number[];
}

const SNAPSHOT_SQL = `
SELECT (SELECT COALESCE(json_agg(json_build_array(m.layer, m.jurisdiction_id, ST_XMin(m.extent), ST_YMin(m.extent), ST_XMax(m.extent), ST_YMax(m.extent),
                                                  ${micros('lower(m.known)')}, CASE WHEN upper_inf(m.known) THEN NULL ELSE ${micros('upper(m.known)')} END, j.timezone)), '[]')
          FROM map_version m JOIN jurisdiction j ON j.id = m.jurisdiction_id WHERE m.extent IS NOT NULL) AS versions,
       (SELECT COALESCE(json_object_agg(j, ts), '{}') FROM (
          SELECT j, array_agg(t ORDER BY t) AS ts FROM (
            SELECT jurisdiction_id AS j, ${micros('lower(known)')} AS t FROM district
             UNION SELECT jurisdiction_id, ${micros('upper(known)')} FROM district WHERE NOT upper_inf(known)) i
           GROUP BY j) d) AS districts,
       (SELECT COALESCE(json_agg(DISTINCT ${micros('updated_at')}), '[]') FROM coverage WHERE updated_at IS NOT NULL) AS coverage,
       EXISTS (SELECT 1 FROM knowledge_load WHERE settled_at IS NULL) AS in_flight`;

const f32 = new Float32Array(1);
const i32 = new Int32Array(f32.buffer);
/** One float4 step from f (a float4) towards dir (the bit pattern of a float is monotone in its magnitude). */
function step(f: number, dir: -1 | 1): number {
  f32[0] = f;
  if (f === 0) return dir * 1.401298464324817e-45;
  i32[0] += f > 0 === (dir > 0) ? 1 : -1;
  return f32[0];
}

/** The float4 nearest v on the side `dir` (-1 down, +1 up): how PostGIS keeps a box. */
function float4(v: number, dir: -1 | 1): number {
  f32[0] = v;
  return dir * (f32[0] - v) >= 0 ? f32[0] : step(f32[0], dir);
}

const R = 6378137;
/**
 * The lon/lat box of tile z/x/y (what ST_Transform(ST_TileEnvelope(z, x, y), 4326) spans), as
 * float4 rounded outward, and one float4 step wider: PROJ's doubles may differ from these in the
 * last place, and a key that names a version more than the database would is harmless (one that
 * names fewer is not).
 */
export function tileBox(z: number, x: number, y: number): [number, number, number, number] {
  const size = (2 * Math.PI * R) / 2 ** z;
  const lon = (mx: number) => ((mx / R) * 180) / Math.PI;
  const lat = (my: number) => ((2 * Math.atan(Math.exp(my / R)) - Math.PI / 2) * 180) / Math.PI;
  const west = -Math.PI * R + x * size;
  const north = Math.PI * R - y * size;
  return [step(float4(lon(west), -1), -1), step(float4(lat(north - size), -1), -1), step(float4(lon(west + size), 1), 1), step(float4(lat(north), 1), 1)];
}

/** The largest element of an ascending list not after k, or null. */
function lastAtOrBefore(sorted: number[], k: number): number | null {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid] <= k) lo = mid + 1;
    else hi = mid;
  }
  return lo > 0 ? sorted[lo - 1] : null;
}

const text = (us: number | null) => (us === null ? 'epoch' : String(us));

/** tileKeySql of tile z/x/y as known at `known` (µs), from a snapshot. */
/** The layer's map versions known at `known` whose extent touches tile z/x/y. */
function touching(snap: KeySnapshot, layer: TileLayer, z: number, x: number, y: number, known: number): Version[] {
  const [w, s, e, n] = tileBox(z, x, y);
  return snap.versions.filter((v) => v.layer === layer.versionLayer && v.learnt <= known && !(v.box[0] > e || v.box[2] < w || v.box[1] > n || v.box[3] < s));
}

/** The timezones of the jurisdictions whose maps of the layer touch tile z/x/y. */
export function zonesOf(snap: KeySnapshot, layer: TileLayer, z: number, x: number, y: number, known: number): string[] {
  return [...new Set(touching(snap, layer, z, x, y, known).map((v) => v.zone))].sort();
}

export function keyOf(snap: KeySnapshot, layer: TileLayer, z: number, x: number, y: number, known: number): string {
  if (!layer.versionLayer) return text(lastAtOrBefore(snap.coverage, known));
  let last: number | null = null;
  const jurisdictions = new Set<string>();
  for (const v of touching(snap, layer, z, x, y, known)) {
    jurisdictions.add(v.jurisdiction);
    // a version's last change known then: dropped (always after it was learnt), or else learnt
    const changed = v.dropped !== null && v.dropped <= known ? v.dropped : v.learnt;
    last = Math.max(last ?? changed, changed);
  }
  if (layer.versionLayer === 'parcel') return text(last);
  let labels: number | null = null;
  for (const j of jurisdictions) {
    const t = lastAtOrBefore(snap.districts.get(j) ?? [], known);
    if (t !== null) labels = Math.max(labels ?? t, t);
  }
  return `${text(last)}|${text(labels)}`;
}

/** An ISO instant (Z or an offset, fraction of any length) as µs since the epoch. */
export function instantMicros(iso: string): number {
  const m = /^(.+T\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:?\d\d)$/.exec(iso);
  if (!m) throw new Error(`not an instant: ${iso}`);
  return Date.parse(`${m[1]}${m[3]}`) * 1000 + Number(((m[2] ?? '') + '000000').slice(0, 6));
}

export async function readKeySnapshot(db: Queryable): Promise<{ snapshot: KeySnapshot; inFlight: boolean }> {
  const { rows } = await db.query(named('tile-key-snapshot', SNAPSHOT_SQL, []));
  const r = rows[0];
  const versions = (r.versions as Array<[string, string, number, number, number, number, number, number | null, string]>).map(([layer, jurisdiction, w, s, e, n, learnt, dropped, zone]) => ({
    layer,
    jurisdiction,
    box: [float4(w, -1), float4(s, -1), float4(e, 1), float4(n, 1)] as [number, number, number, number],
    learnt,
    dropped,
    zone,
  }));
  const districts = new Map(Object.entries(r.districts as Record<string, number[]>));
  return { snapshot: { versions, districts, coverage: (r.coverage as number[]).sort((a, b) => a - b) }, inFlight: r.in_flight };
}

/**
 * The snapshot, per process. A snapshot read while a load is in flight, or while a change was
 * announced, is not kept, and the caller reads the key with the tile instead; while a load is in
 * flight callers do so without asking again until a notice (its settling) or `inFlightRetryMs`.
 */
export class TileKeyCache {
  private snapshot: KeySnapshot | null = null;
  private readAt = 0;
  private generation = 0;
  private pending: Promise<{ snapshot: KeySnapshot; inFlight: boolean }> | null = null;
  /** when a read last found a load in flight, in this generation */
  private inFlightSeen: { generation: number; at: number } | null = null;

  constructor(
    private ttlMs = 60_000,
    private inFlightRetryMs = 1_000,
  ) {}

  /** Forget the snapshot (knowledge changed, or a notice may have been missed). */
  clear() {
    this.generation++;
    this.snapshot = null;
    this.pending = null;
  }

  /** The key of a tile as known at `known` (ISO instant), or null when it must come from the database. */
  async key(db: Queryable, layer: TileLayer, z: number, x: number, y: number, known: string): Promise<string | null> {
    const snap = await this.current(db);
    return snap ? keyOf(snap, layer, z, x, y, instantMicros(known)) : null;
  }

  /** The zones of the jurisdictions a tile shows (zonesOf), or null when they must come from the database. */
  async zones(db: Queryable, layer: TileLayer, z: number, x: number, y: number, known: string): Promise<string[] | null> {
    const snap = await this.current(db);
    return snap ? zonesOf(snap, layer, z, x, y, instantMicros(known)) : null;
  }

  private async current(db: Queryable): Promise<KeySnapshot | null> {
    if (this.snapshot && Date.now() - this.readAt < this.ttlMs) return this.snapshot;
    const seen = this.inFlightSeen;
    if (seen?.generation === this.generation && Date.now() - seen.at < this.inFlightRetryMs) return null;
    const generation = this.generation;
    this.pending ??= readKeySnapshot(db);
    const read = this.pending;
    let got: Awaited<typeof read>;
    try {
      got = await read;
    } finally {
      if (this.pending === read) this.pending = null;
    }
    if (generation !== this.generation) return null;
    if (got.inFlight) {
      this.inFlightSeen = { generation, at: Date.now() };
      return null;
    }
    this.snapshot = got.snapshot;
    this.readAt = Date.now();
    return got.snapshot;
  }
}
