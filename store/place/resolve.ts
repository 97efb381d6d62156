// Location resolution (spec 4.0.3, 4.2): a point, parcels, an APN, an address, a geometry or a
// location token become one location with a grain, its jurisdiction and, when it is one, its
// parcel. Nothing is guessed: too coarse is insufficient_precision, several fits are ambiguous.
import { ApiError, invalid, notFound } from '../../core/errors.ts';
import { requireId } from '../../core/ids.ts';
import { normalizeAddress } from '../../core/address.ts';
import { named, type Queryable } from '../db.ts';
import { fromPlaceText } from './coarse.ts';

export type Grain = 'structure' | 'parcel' | 'point' | 'area' | 'street' | 'jurisdiction';
const GRAIN_RANK: Record<Grain, number> = { structure: 0, parcel: 1, point: 1, area: 1, street: 3, jurisdiction: 4 };

export interface LocationInput {
  address?: string;
  point?: { lat: number; lon: number };
  geometry?: string;
  buffer?: number;
  buffer_unit?: 'ft' | 'mi' | 'm' | 'km';
  parcel?: string[];
  apn?: string;
  fips?: string;
  plss?: { key: string; state: string; surveyed: boolean };
  token?: { geojson: string | null; parcels: string[]; jurisdiction: string | null; grain: Grain; input: string; point?: string | null };
  /** where the location must lie (a batch locator's jurisdiction or fips): elsewhere it is unmatched */
  within?: Within;
}

/** The held jurisdictions a location must lie in, and how to name them. */
export interface Within {
  ids: string[];
  label: string;
}

export interface Candidate {
  label: string;
  parcel: string | null;
  parcel_key: string | null;
  jurisdiction: string;
  score: number;
  /** why the candidate fits, and so where it ranks */
  basis?: string;
}

export interface Resolved {
  state: 'resolved' | 'insufficient_precision' | 'ambiguous';
  grain: Grain;
  grain_requested: Grain;
  precision: 'exact' | 'contained' | 'normalized_match' | 'union';
  input: string;
  jurisdiction: string | null;
  parcels: Array<{ id: string; parcel_key: string }>;
  /** the location as GeoJSON (EPSG:4326) for spatial questions; null when not placed */
  geojson: string | null;
  /** the point asked (GeoJSON), when the location was given as one: its own districts come first */
  point: string | null;
  candidates: Candidate[];
  detail: string | null;
}

export interface Times {
  asOf: string; // valid date
  knownAsOf: string; // ISO instant
}

const METERS = { ft: 0.3048, mi: 1609.344, m: 1, km: 1000 } as const;
const MAX_AREA_M2 = 25_000_000; // 25 km²: larger areas belong to extracts
const MAX_VERTICES = 20_000;

/**
 * Fact ids of the parcel rows (any time) whose polygon covers the point `pt` (SQL): small parcels
 * by their own polygon, huge ones by their pieces (migration 011). Each probe stands alone, so a
 * plan made once serves every point.
 */
const parcelsCovering = (pt: string) => `(
  SELECT p.fact_id FROM parcel p WHERE NOT p.subdivided AND ST_Covers(p.geom, ${pt})
  UNION SELECT x.fact_id FROM parcel_piece x WHERE ST_Covers(x.geom, ${pt}))`;

/** The most specific held jurisdiction whose extent covers the point `pt` (SQL), ranked. */
const jurisdictionsCovering = (pt: string) => `(
  SELECT j.id, CASE j.level WHEN 'cousub' THEN 0 WHEN 'place' THEN 1 WHEN 'county' THEN 2 ELSE 3 END AS rank
    FROM jurisdiction_piece jp JOIN jurisdiction j ON j.id = jp.jurisdiction_id WHERE ST_Covers(jp.geom, ${pt}))`;

/**
 * The jurisdiction at a point and the parcels covering it there on the date, as known then (a
 * polygon whose published key holds no parcel number, store/load/parcels.ts, is a right-of-way: `rw`): the
 * most specific held jurisdiction whose extent covers the point; where a derived extent has gaps
 * (a zoning map stops at the water), a parcel of the jurisdiction that covers the point decides.
 */
const POINT_SQL = (pt: string) => `
  WITH hit AS (SELECT p.id, p.parcel_key, p.jurisdiction_id, p.geom, p.valid, p.known, COALESCE(p.attributes->>'key_status' = 'not_a_parcel_id', false) AS rw
                 FROM parcel p WHERE p.fact_id IN ${parcelsCovering(pt)}),
  j AS (SELECT id FROM (${jurisdictionsCovering(pt)} UNION ALL (SELECT jurisdiction_id, 0 FROM hit WHERE upper_inf(known) LIMIT 1)) x ORDER BY rank LIMIT 1),
  p AS (SELECT id, parcel_key, rw AS right_of_way, CASE WHEN NOT rw THEN ST_AsGeoJSON(geom) END AS g FROM hit
         WHERE jurisdiction_id = (SELECT id FROM j) AND valid @> $3::date AND known @> $4::timestamptz ORDER BY parcel_key LIMIT 2)
  SELECT j.id, (SELECT json_agg(p) FROM p) AS parcels FROM j`;

async function pointAt(db: Queryable, lon: number, lat: number, t: Times): Promise<{ jurisdiction: string; parcels: Array<{ id: string; parcel_key: string; right_of_way: boolean; g: string | null }> } | null> {
  const { rows } = await db.query(named('resolve-point', POINT_SQL('ST_SetSRID(ST_MakePoint($1, $2), 4326)'), [lon, lat, t.asOf, t.knownAsOf]));
  return rows[0] ? { jurisdiction: rows[0].id, parcels: rows[0].parcels ?? [] } : null;
}

function result(partial: Partial<Resolved> & Pick<Resolved, 'grain' | 'input'>): Resolved {
  const state = partial.state ?? (GRAIN_RANK[partial.grain] > GRAIN_RANK.parcel ? 'insufficient_precision' : 'resolved');
  return { precision: 'exact', jurisdiction: null, parcels: [], geojson: null, point: null, candidates: [], detail: null, grain_requested: 'parcel', ...partial, state };
}

/** A point: its jurisdiction and the parcel covering it (with the parcel's shape). */
async function fromPoint(db: Queryable, p: { lat: number; lon: number }, t: Times): Promise<Resolved> {
  const at = await pointAt(db, p.lon, p.lat, t);
  if (!at) throw new ApiError('location_unmatched', { field: 'point', detail: `No jurisdiction held covers ${p.lat},${p.lon}. GET /coverage lists what is held.` });
  const input = `point ${p.lat},${p.lon}`;
  const point = JSON.stringify({ type: 'Point', coordinates: [p.lon, p.lat] });
  // a point inside one parcel stands for that parcel: its districts are the parcel's, with shares
  // (the point's own first); a right-of-way polygon is no parcel: the point stands for itself
  if (at.parcels.length === 1) {
    const [only] = at.parcels;
    if (only.right_of_way) {
      const detail = `the point lies in a polygon the publisher keys ${JSON.stringify(only.parcel_key.split('#')[0])}, with no parcel number (a right-of-way, water or the like): answered at the point`;
      return result({ grain: 'point', precision: 'contained', input, jurisdiction: at.jurisdiction, geojson: point, point, detail });
    }
    return result({ grain: 'parcel', precision: 'contained', input, jurisdiction: at.jurisdiction, parcels: [{ id: only.id, parcel_key: only.parcel_key }], geojson: only.g, point });
  }
  return result({ grain: 'point', precision: 'contained', input, jurisdiction: at.jurisdiction, geojson: point, point });
}

/** Parcels by id as known then (their latest period), with their shape: one polygon, or the union of several. */
const PARCELS_SQL = `
  WITH p AS (SELECT DISTINCT ON (id) id, parcel_key, jurisdiction_id, geom FROM parcel
              WHERE id = ANY($1::text[]) AND known @> $2::timestamptz ORDER BY id, upper_inf(valid) DESC, lower(valid) DESC),
  n AS (SELECT count(geom) AS placed FROM p)
  SELECT (SELECT json_agg(json_build_object('id', id, 'parcel_key', parcel_key, 'jurisdiction_id', jurisdiction_id)) FROM p) AS parcels,
         CASE WHEN (SELECT placed FROM n) = 1 THEN (SELECT ST_AsGeoJSON(geom) FROM p WHERE geom IS NOT NULL)
              WHEN (SELECT placed FROM n) > 1 THEN (SELECT ST_AsGeoJSON(ST_Multi(ST_Union(geom))) FROM p) END AS g`;

async function fromParcels(db: Queryable, ids: string[], t: Times): Promise<Resolved> {
  for (const [i, id] of ids.entries()) requireId('parcel', id, `parcel[${i}]`);
  const { rows } = await db.query(named('resolve-parcels', PARCELS_SQL, [ids, t.knownAsOf]));
  const found: Array<{ id: string; parcel_key: string; jurisdiction_id: string }> = rows[0].parcels ?? [];
  const missing = ids.filter((id) => !found.some((r) => r.id === id));
  if (missing.length > 0) throw notFound('parcel', missing.join(', '), 'parcel');
  const jurisdictions = new Set(found.map((r) => r.jurisdiction_id));
  if (jurisdictions.size > 1) throw invalid('parcel', 'an assemblage must lie in one jurisdiction');
  const parcels = found.map((r) => ({ id: r.id, parcel_key: r.parcel_key }));
  if (!rows[0].g) {
    return result({ grain: 'jurisdiction', input: `parcel ${ids.join(',')}`, jurisdiction: found[0].jurisdiction_id, parcels, detail: 'the publisher’s map has no polygon for this parcel' });
  }
  return result({ grain: 'parcel', precision: ids.length > 1 ? 'union' : 'exact', input: `parcel ${ids.join(',')}`, jurisdiction: found[0].jurisdiction_id, parcels, geojson: rows[0].g });
}

/** The held jurisdictions of a Census GEOID: a state (2 digits) or a county (5). */
export async function withinFips(db: Queryable, fips: string, field = 'fips'): Promise<Within> {
  if (!/^(\d{2}|\d{5})$/.test(fips)) throw invalid(field, `${JSON.stringify(fips)} is not a Census GEOID of a state (2 digits) or a county (5)`);
  const { rows } = await db.query('SELECT id FROM jurisdiction WHERE fips_state = $1 AND ($2::text IS NULL OR fips_county = $2) ORDER BY id', [fips.slice(0, 2), fips.slice(2) || null]);
  return { ids: rows.map((r) => r.id), label: `${fips.length === 2 ? 'state' : 'county'} ${fips}` };
}

/** A held jurisdiction and every one inside it: its descendants, and for a state or county the jurisdictions its FIPS code holds. */
export async function withinJurisdiction(db: Queryable, id: string): Promise<Within> {
  const { rows } = await db.query(
    `WITH RECURSIVE top AS (SELECT * FROM jurisdiction WHERE id = $1),
       d AS (SELECT id FROM top UNION SELECT c.id FROM jurisdiction c JOIN d ON c.parent_id = d.id)
     SELECT id, (SELECT name FROM top) AS name FROM d
     UNION SELECT j.id, top.name FROM jurisdiction j, top
      WHERE j.fips_state = top.fips_state AND (top.level = 'state' OR (top.level = 'county' AND j.fips_county = top.fips_county))
     ORDER BY id`,
    [id],
  );
  return { ids: rows.map((r) => r.id), label: rows[0]?.name ?? id };
}

/** Both narrowings at once: where both hold. */
export function withinBoth(a: Within | null, b: Within | null): Within | null {
  if (!a || !b) return a ?? b;
  return { ids: a.ids.filter((id) => b.ids.includes(id)), label: `${a.label} and ${b.label}` };
}

const namesOf = async (db: Queryable, ids: string[]): Promise<string> =>
  (await db.query('SELECT name FROM jurisdiction WHERE id = ANY($1::text[]) ORDER BY name', [ids])).rows.map((r) => r.name).join(', ');

/** A result outside `within` is unmatched, saying where it lies. */
async function inside(db: Queryable, r: Resolved, within: Within | undefined, field: string): Promise<Resolved> {
  if (!within || !r.jurisdiction || within.ids.includes(r.jurisdiction)) return r;
  throw new ApiError('location_unmatched', { field, detail: `${r.input} lies in ${await namesOf(db, [r.jurisdiction])}, outside ${within.label}.` });
}

/** Why the first candidate ranks first (or that the first ones tie), for an ambiguous answer's detail. */
export function rankDetail(c: Candidate[], order: string): string {
  if (c.length < 2) return '';
  const [a, b] = c;
  const ties = c.filter((x) => x.score === a.score && x.basis === a.basis).length;
  if (ties > 1) return `${ties === c.length ? `all ${ties}` : `the first ${ties}`} tie (${a.basis ?? `score ${a.score}`}) and are listed by ${order}`;
  return `${a.label} ranks first (${a.basis ?? `score ${a.score}`}), ahead of ${b.label} (${b.basis ?? `score ${b.score}`})`;
}

/** Text in code-point order (as PostgreSQL's C collation sorts it). */
const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

// how an APN asked fits a parcel's number, best first
const APN_FIT = ['apn', 'key', 'parts', 'characters'] as const;
const APN_BASIS = {
  apn: 'its APN is the number asked',
  key: 'its parcel key is the number asked',
  parts: 'its number has the parts asked, with other separators',
  characters: 'its number has the characters asked, split otherwise',
} as const;

/**
 * An APN in a county (5-digit GEOID), a state (2 digits: its held counties) or the jurisdictions
 * `within`. The number as published (APN or parcel key) first; only when none has it, the number
 * with separators and case folded. Several fits are ambiguous, best first.
 */
async function fromApn(db: Queryable, apn: string, fips: string | undefined, within: Within | undefined, t: Times): Promise<Resolved> {
  if (!fips && !within) throw invalid('fips', 'apn needs fips: the Census GEOID of the county (5 digits) that issued it, or of its state (2 digits)');
  const scope = withinBoth(within ?? null, fips ? await withinFips(db, fips) : null)!;
  const asked = apn.trim();
  const input = `apn ${asked} (${fips ?? scope.label})`;
  if (scope.ids.length === 0) throw new ApiError('location_unmatched', { field: 'apn', detail: `No jurisdiction held lies in ${scope.label}.` });
  const cols = `p.id, p.parcel_key, p.apn, p.jurisdiction_id, round(similarity(COALESCE(p.apn, p.parcel_key), $2)::numeric, 2)::float8 AS score`;
  const when = `p.jurisdiction_id = ANY($1::text[]) AND p.known @> $3::timestamptz AND p.valid @> $4::date`;
  let { rows } = await db.query(
    `SELECT ${cols}, CASE WHEN p.apn = $2 THEN 'apn' ELSE 'key' END AS fit FROM parcel p WHERE ${when} AND (p.apn = $2 OR p.parcel_key = $2)`,
    [scope.ids, asked, t.knownAsOf, t.asOf],
  );
  if (rows.length === 0) {
    const plain = asked.toUpperCase().replace(/[^A-Z0-9]/g, '');
    const parts = asked.toUpperCase().replace(/[^A-Z0-9]+/g, '-').replace(/^-|-$/g, '');
    const fold = (x: string, sep: string) => `regexp_replace(upper(${x}), '[^A-Z0-9]+', '${sep}', 'g')`;
    ({ rows } = await db.query(
      `SELECT ${cols}, CASE WHEN btrim(${fold('COALESCE(p.apn, p.parcel_key)', '-')}, '-') = $6 THEN 'parts' ELSE 'characters' END AS fit
         FROM parcel p WHERE ${when} AND $5 <> '' AND COALESCE(p.attributes->>'key_status', '') <> 'not_a_parcel_id'
          AND (${fold('p.apn', '')} = $5 OR ${fold('p.parcel_key', '')} = $5)`,
      [scope.ids, asked, t.knownAsOf, t.asOf, plain, parts],
    ));
  }
  const ids = [...new Set(rows.map((x) => x.id as string))];
  if (ids.length === 0) throw new ApiError('location_unmatched', { field: 'apn', detail: `No parcel held in ${scope.label} has the number ${asked}.` });
  if (ids.length === 1) {
    const r = await fromParcels(db, ids, t);
    return { ...r, input, precision: rows[0].fit === 'apn' || rows[0].fit === 'key' ? r.precision : 'normalized_match' };
  }
  const names = new Map((await db.query('SELECT id, name FROM jurisdiction WHERE id = ANY($1::text[])', [[...new Set(rows.map((x) => x.jurisdiction_id))]])).rows.map((x) => [x.id, x.name]));
  const seen = new Set<string>();
  const candidates: Candidate[] = rows
    .sort((a, b) => APN_FIT.indexOf(a.fit) - APN_FIT.indexOf(b.fit) || b.score - a.score || byText(names.get(a.jurisdiction_id), names.get(b.jurisdiction_id)) || byText(a.parcel_key, b.parcel_key))
    .filter((x) => !seen.has(x.id) && seen.add(x.id))
    .map((x) => ({ label: `${x.apn ?? x.parcel_key} (${names.get(x.jurisdiction_id)})`, parcel: x.id, parcel_key: x.parcel_key, jurisdiction: x.jurisdiction_id, score: x.score, basis: `${APN_BASIS[x.fit as keyof typeof APN_BASIS]}; similarity ${x.score}` }));
  const one = new Set(candidates.map((c) => c.jurisdiction)).size === 1;
  return result({
    state: 'ambiguous',
    grain: 'jurisdiction',
    precision: rows.some((x) => x.fit === 'apn' || x.fit === 'key') ? 'exact' : 'normalized_match',
    input,
    jurisdiction: one ? candidates[0].jurisdiction : null,
    candidates,
    detail: `${candidates.length} parcels held in ${scope.label} fit the number ${asked}; ${rankDetail(candidates, 'jurisdiction and parcel key')}`,
  });
}

async function fromAddress(db: Queryable, address: string, t: Times, within?: Within): Promise<Resolved> {
  const n = normalizeAddress(address);
  if (!n.normalized) throw invalid('address', 'has no street');
  // a street, a place, a state or a ZIP code: coarser than a parcel (coarse.ts)
  if (n.numbers.length === 0) return result(await fromPlaceText(db, address, n.street, within));
  const ids = within?.ids ?? null;
  const exact = await db.query(
    named('resolve-address', 'SELECT DISTINCT a.parcel_id, a.raw, a.jurisdiction_id FROM address_point a WHERE a.normalized = $1 AND a.parcel_id IS NOT NULL AND ($2::text[] IS NULL OR a.jurisdiction_id = ANY($2))', [n.normalized, ids]),
  );
  const parcels = [...new Set(exact.rows.map((r) => r.parcel_id as string))];
  if (parcels.length === 1) return { ...(await fromParcels(db, parcels, t)), input: `address ${address}`, precision: 'normalized_match' };
  if (parcels.length > 1) {
    const candidates = await candidatesOf(db, exact.rows.map((r) => ({ ...r, score: 1, basis: 'its address, normalized, is the address asked' })));
    return result({
      state: 'ambiguous',
      grain: 'street',
      input: `address ${address}`,
      jurisdiction: exact.rows[0].jurisdiction_id,
      candidates,
      detail: `${parcels.length} parcels carry this address; ${rankDetail(candidates, 'parcel key')}`,
    });
  }
  // one row per parcel (its best-scoring address), the closest five
  const near = await db.query(
    `SELECT * FROM (SELECT DISTINCT ON (COALESCE(a.parcel_id, a.raw)) a.parcel_id, a.raw, a.jurisdiction_id, similarity(a.normalized, $1) AS score
                      FROM address_point a WHERE a.normalized % $1 AND ($2::text[] IS NULL OR a.jurisdiction_id = ANY($2))
                     ORDER BY COALESCE(a.parcel_id, a.raw), similarity(a.normalized, $1) DESC, a.raw) x
      ORDER BY score DESC, raw LIMIT 5`,
    [n.normalized, ids],
  );
  if (near.rows.length === 0) {
    let elsewhere = '';
    if (within) {
      const { rows } = await db.query('SELECT DISTINCT jurisdiction_id FROM address_point WHERE normalized = $1 LIMIT 5', [n.normalized]);
      if (rows.length) elsewhere = `: it is held in ${await namesOf(db, rows.map((r) => r.jurisdiction_id))}, outside ${within.label}`;
    }
    throw new ApiError('location_unmatched', { field: 'address', detail: `No address held${within ? ` in ${within.label}` : ''} matches ${JSON.stringify(address)}${elsewhere}.` });
  }
  const candidates = await candidatesOf(
    db,
    near.rows.map((r) => {
      const score = Math.round(r.score * 100) / 100;
      return { ...r, score, basis: `trigram similarity ${score} of its address to the address asked, both normalized` };
    }),
  );
  return result({
    state: 'ambiguous',
    grain: 'street',
    input: `address ${address}`,
    jurisdiction: near.rows[0].jurisdiction_id,
    candidates,
    detail: `no address held matches exactly; these are the closest: ${rankDetail(candidates, 'parcel key')}`,
  });
}

/** Candidates from address rows: one per parcel (its first label, in the order given), with the parcel's key; best first, ties by key. */
async function candidatesOf(db: Queryable, rows: Array<{ parcel_id: string | null; raw: string; jurisdiction_id: string; score: number; basis: string }>): Promise<Candidate[]> {
  const seen = new Set<string>();
  const one = rows.filter((r) => {
    const k = r.parcel_id ?? `raw:${r.raw}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
  const ids = one.map((r) => r.parcel_id).filter((x): x is string => Boolean(x));
  const keys = new Map<string, string>();
  if (ids.length) {
    const { rows: k } = await db.query('SELECT DISTINCT ON (id) id, parcel_key FROM parcel WHERE id = ANY($1::text[]) ORDER BY id, fact_id DESC', [ids]);
    for (const r of k) keys.set(r.id, r.parcel_key);
  }
  const out = one.map((r) => ({ label: r.raw, parcel: r.parcel_id, parcel_key: r.parcel_id ? (keys.get(r.parcel_id) ?? null) : null, jurisdiction: r.jurisdiction_id, score: r.score, basis: r.basis }));
  return out.sort((a, b) => b.score - a.score || byText(a.parcel_key ?? '', b.parcel_key ?? '') || byText(a.label, b.label));
}

async function fromGeometry(db: Queryable, text: string, buffer: number | undefined, unit: keyof typeof METERS, t: Times): Promise<Resolved> {
  const trimmed = text.trim();
  const isJson = trimmed.startsWith('{');
  const { rows } = await db.query(
    `WITH g AS (SELECT CASE WHEN $2 THEN ST_SetSRID(ST_GeomFromGeoJSON($1), 4326) ELSE ST_GeomFromText($1, 4326) END AS geom)
     SELECT ST_IsValid(geom) AS valid, ST_IsValidReason(geom) AS reason, ST_NPoints(geom) AS n, GeometryType(geom) AS type,
            ST_AsGeoJSON(CASE WHEN $3::float8 > 0 THEN ST_Buffer(geom::geography, $3::float8)::geometry ELSE geom END) AS g,
            ST_Area((CASE WHEN $3::float8 > 0 THEN ST_Buffer(geom::geography, $3::float8)::geometry ELSE geom END)::geography) AS m2,
            ST_XMin(geom) >= -180 AND ST_XMax(geom) <= 180 AND ST_YMin(geom) >= -90 AND ST_YMax(geom) <= 90 AS in_range,
            CASE WHEN ST_IsValid(geom) THEN ST_X(ST_PointOnSurface(geom)) END AS rep_lon, CASE WHEN ST_IsValid(geom) THEN ST_Y(ST_PointOnSurface(geom)) END AS rep_lat
       FROM g`,
    [trimmed, isJson, (buffer ?? 0) * METERS[unit]],
  ).catch((err: Error) => {
    throw invalid('geometry', `is not valid ${isJson ? 'GeoJSON' : 'WKT'}: ${err.message.replace(/^.*?:\s*/, '')}`);
  });
  const g = rows[0];
  if (!['POINT', 'MULTIPOINT', 'LINESTRING', 'MULTILINESTRING', 'POLYGON', 'MULTIPOLYGON'].includes(g.type)) throw invalid('geometry', `${g.type} is not accepted: Point through MultiPolygon`);
  if (!g.in_range) throw invalid('geometry', 'coordinates are outside lon -180..180, lat -90..90 (GeoJSON is lon,lat)');
  if (!g.valid) throw invalid('geometry', `is not a valid geometry: ${g.reason}`);
  if (g.n > MAX_VERTICES) throw invalid('geometry', `has ${g.n} vertices; at most ${MAX_VERTICES}`);
  if (g.m2 > MAX_AREA_M2) throw invalid('geometry', `covers ${Math.round(g.m2 / 1e6)} km²; at most ${MAX_AREA_M2 / 1e6} km² (use an extract for more)`);
  // the jurisdiction of the geometry's representative point
  const at = await pointAt(db, g.rep_lon, g.rep_lat, t);
  if (!at) throw new ApiError('location_unmatched', { field: 'geometry', detail: 'No jurisdiction held covers this geometry.' });
  if (g.type === 'POINT' && !buffer) {
    const parcels = at.parcels.map((x) => ({ id: x.id, parcel_key: x.parcel_key }));
    return result({ grain: parcels.length === 1 ? 'parcel' : 'point', precision: 'contained', input: 'geometry', jurisdiction: at.jurisdiction, parcels: parcels.slice(0, 1), geojson: g.g });
  }
  return result({ grain: 'area', input: 'geometry', jurisdiction: at.jurisdiction, geojson: g.g });
}

export async function resolveLocation(db: Queryable, input: LocationInput, t: Times): Promise<Resolved> {
  const given = (['address', 'point', 'geometry', 'parcel', 'apn', 'plss', 'token'] as const).filter((k) => input[k] !== undefined);
  if (given.length === 0) throw invalid('location', 'name the location: address, point, geometry, parcel, apn with fips, plss or location_token');
  if (given.length > 1) throw invalid(given[1] === 'token' ? 'location_token' : given[1], `give one location, not ${given.join(' and ')}`);
  if (input.buffer !== undefined && !input.point && !input.geometry) throw invalid('buffer', 'buffer applies to a point or a geometry');
  if (input.token) {
    const tk = input.token;
    // whole parcels travel by id: their shape is read again
    if (!tk.geojson && tk.parcels.length) return { ...(await fromParcels(db, tk.parcels, t)), input: tk.input, point: tk.point ?? null };
    return result({ grain: tk.grain, input: tk.input, jurisdiction: tk.jurisdiction, parcels: tk.parcels.map((id) => ({ id, parcel_key: '' })), geojson: tk.geojson, point: tk.point ?? null, precision: 'exact' });
  }
  if (input.point && input.buffer) {
    const text = JSON.stringify({ type: 'Point', coordinates: [input.point.lon, input.point.lat] });
    return fromGeometry(db, text, input.buffer, input.buffer_unit ?? 'ft', t);
  }
  if (input.point) return inside(db, await fromPoint(db, input.point, t), input.within, 'point');
  if (input.parcel) return inside(db, await fromParcels(db, input.parcel, t), input.within, 'parcel');
  if (input.apn) return fromApn(db, input.apn, input.fips, input.within, t);
  if (input.address) return inside(db, await fromAddress(db, input.address, t, input.within), input.within, 'address');
  if (input.geometry) return fromGeometry(db, input.geometry, input.buffer, input.buffer_unit ?? 'ft', t);
  const plss = input.plss!;
  if (!plss.surveyed) throw new ApiError('location_unmatched', { field: 'plss', detail: `${plss.state} was never surveyed under the PLSS: no township or section there bears this key.` });
  throw new ApiError('not_available', { field: 'plss', detail: `No PLSS survey grid (BLM CadNSDI) is held yet, so ${plss.key} cannot be placed; GET /coverage lists what is held.` });
}
