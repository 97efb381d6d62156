// The map layers served as vector tiles: what each reads, its zoom range and its fields (the
// TileJSON vector_layers are written from the same definitions).

import { PROVISIONAL_ZONE, resolveTimes, type TimeSpec, type TimeValue } from '../core/time.ts';
import { factIdIs } from '../store/fact-id.ts';

export interface TileLayer {
  id: 'district' | 'overlay' | 'parcel' | 'future_land_use' | 'coverage';
  description: string;
  minzoom: number;
  maxzoom: number;
  fields: Record<string, 'String' | 'Number' | 'Boolean'>;
  /** the major part of the TileJSON version: raise it when the layer's name or fields change (tiles/tilejson.ts) */
  schema: number;
  /**
   * SQL text over `feat` naming one version of a feature: the same text for the same feature drawn
   * the same way, another once it changes. Its hash is the MVT feature id (featureIdSql).
   */
  featureVersion: string;
  /** map_version.layer whose versions key the ETag (null: keyed by coverage updates) */
  versionLayer: 'district' | 'overlay' | 'parcel' | 'future_land_use' | null;
  /** SQL of the features: $1..$3 tile z/x/y envelope given as `env` (Web Mercator) and `box` (lon/lat), $4 valid date, $5 known instant, $6 simplify tolerance (m).
   * The spatial probe stands alone (OFFSET 0) so that a plan made once, without the values, still
   * reads the tile's rows by the geometry index rather than every row in force. */
  sql: string;
}

/** The district's own fact drawn with an area: its label and type, from the most authoritative source stating it (as /district answers). */
const districtFact = `LEFT JOIN LATERAL (SELECT d.local_label, d.type FROM district d JOIN source s ON s.id = d.source_id
                WHERE ${factIdIs('d', 'a.district_id')} AND d.valid @> $4::date AND d.known @> $5::timestamptz
                ORDER BY CASE s.kind WHEN 'code_text' THEN 0 WHEN 'district_list' THEN 1 ELSE 2 END LIMIT 1) d ON true`;

const areaLayer = (kind: 'base' | 'overlay' | 'future_land_use') => `
  SELECT a.id, a.content_sha256 AS version_sha, a.district_id AS district, a.code_raw AS code, d.local_label AS label, d.type, a.map_version_id AS map_version,
         '#' || substr(md5(a.code_raw), 1, 6) AS color,
         ST_Simplify(ST_Transform(a.geom, 3857), $6::float8, true) AS g
    FROM (SELECT * FROM district_area a WHERE a.geom && box OFFSET 0) a ${districtFact}
   WHERE a.kind = '${kind}' AND a.valid @> $4::date AND a.known @> $5::timestamptz`;

/** An area's version: its row's content (id and geometry hash) and the label it is drawn with (the district's own fact). */
const AREA_VERSION = `feat.id || '|' || feat.version_sha || '|' || COALESCE(feat.label, '')`;
/** A base district area's version: also the district type it is drawn with. */
const DISTRICT_VERSION = `${AREA_VERSION} || '|' || COALESCE(feat.type, '')`;

/**
 * SQL of a feature's MVT id: a 53-bit hash (PostgreSQL's hashtextextended) of the layer's
 * featureVersion. MVT ids are uint64, but JavaScript decoders read them as numbers, exact only
 * below 2^53. A feature keeps its id while it is drawn the same way, whatever row holds it (a
 * change re-inserts the unchanged past of a fact as a new row: fact_id would change, this does
 * not), and gets another when it changes.
 */
export const featureIdSql = (layer: TileLayer) => `(hashtextextended(${layer.featureVersion}, 0) & 9007199254740991)`;

export const TILE_LAYERS: Record<TileLayer['id'], TileLayer> = {
  district: {
    id: 'district',
    description: 'Base zoning districts in force',
    minzoom: 8,
    maxzoom: 20,
    fields: { id: 'String', district: 'String', code: 'String', label: 'String', type: 'String', map_version: 'String', color: 'String' },
    schema: 2,
    featureVersion: DISTRICT_VERSION,
    versionLayer: 'district',
    sql: areaLayer('base'),
  },
  overlay: {
    id: 'overlay',
    description: 'Overlay districts in force',
    minzoom: 8,
    maxzoom: 20,
    fields: { id: 'String', district: 'String', code: 'String', label: 'String', map_version: 'String', color: 'String' },
    schema: 1,
    featureVersion: AREA_VERSION,
    versionLayer: 'overlay',
    sql: areaLayer('overlay'),
  },
  future_land_use: {
    id: 'future_land_use',
    description: 'Future land use designations of adopted plans',
    minzoom: 8,
    maxzoom: 20,
    fields: { id: 'String', district: 'String', code: 'String', label: 'String', map_version: 'String', color: 'String' },
    schema: 1,
    featureVersion: AREA_VERSION,
    versionLayer: 'future_land_use',
    sql: areaLayer('future_land_use'),
  },
  parcel: {
    id: 'parcel',
    description: 'Parcels as published by the assessor',
    minzoom: 13,
    maxzoom: 20,
    fields: { id: 'String', parcel_key: 'String', area_sq_ft: 'Number', map_version: 'String' },
    schema: 1,
    featureVersion: `feat.id || '|' || feat.version_sha`,
    versionLayer: 'parcel',
    sql: `
  SELECT p.id, p.content_sha256 AS version_sha, p.parcel_key, round(p.area_m2 * 10.763910417) AS area_sq_ft, p.map_version_id AS map_version,
         ST_Simplify(ST_Transform(p.geom, 3857), $6::float8, true) AS g
    FROM (SELECT * FROM parcel p WHERE p.geom && box OFFSET 0) p
   WHERE p.valid @> $4::date AND p.known @> $5::timestamptz`,
  },
  coverage: {
    id: 'coverage',
    description: 'Jurisdictions and which layers are held for them (paints what is not held)',
    minzoom: 0,
    maxzoom: 16,
    fields: { jurisdiction: 'String', name: 'String', zoning_text: 'Boolean', district_map: 'Boolean', overlay: 'Boolean', parcel: 'Boolean', assessor: 'Boolean', held_layers: 'Number' },
    schema: 1,
    featureVersion: `concat_ws('|', feat.jurisdiction, feat.name, feat.zoning_text, feat.district_map, feat.overlay, feat.parcel, feat.assessor, feat.held_layers)`,
    versionLayer: null,
    sql: `
  SELECT j.id AS jurisdiction, j.name,
         COALESCE(bool_or(c.held) FILTER (WHERE c.layer = 'zoning_text'), false) AS zoning_text,
         COALESCE(bool_or(c.held) FILTER (WHERE c.layer = 'district_map'), false) AS district_map,
         COALESCE(bool_or(c.held) FILTER (WHERE c.layer = 'overlay'), false) AS overlay,
         COALESCE(bool_or(c.held) FILTER (WHERE c.layer = 'parcel'), false) AS parcel,
         COALESCE(bool_or(c.held) FILTER (WHERE c.layer = 'assessor'), false) AS assessor,
         count(*) FILTER (WHERE c.held)::int AS held_layers,
         ST_Simplify(ST_Transform(j.boundary, 3857), $6::float8, true) AS g
    FROM jurisdiction j LEFT JOIN coverage c ON c.jurisdiction_id = j.id
   WHERE j.boundary IS NOT NULL AND j.boundary && box AND $4::date IS NOT NULL AND $5::timestamptz IS NOT NULL
   GROUP BY j.id`,
  },
};

/** The SQL of one tile: features clipped to the tile in its own coordinates, each with its id (featureIdSql), as one MVT in a fixed order (the same rows make the same bytes), and, asked, its key. */
export function tileSql(layer: TileLayer, withKey = false): string {
  return `
WITH bounds AS (SELECT env, ST_Transform(env, 4326) AS box FROM ST_TileEnvelope($1, $2, $3) AS env),
feat AS (SELECT f.* FROM bounds, LATERAL (${layer.sql}) f),
mvt AS (SELECT ST_AsMVTGeom(feat.g, bounds.env, 4096, 64, true) AS geom, ${featureIdSql(layer)} AS fid, ${Object.keys(layer.fields).map((f) => `feat.${f}`).join(', ')} FROM feat, bounds)
SELECT ST_AsMVT(mvt, '${layer.id}', 4096, 'geom', 'fid' ORDER BY mvt.${Object.keys(layer.fields)[0]}) AS tile, count(*)::int AS features${withKey ? `, (SELECT ${tileKeySql(layer)} FROM bounds) AS key` : ''}
  FROM mvt WHERE mvt.geom IS NOT NULL`;
}

/**
 * tileSql for many tiles of a layer in one statement: $1..$6 are arrays (z, x, y, date, knowledge
 * instant, tolerance), one element per tile; a row per tile, `n` its place in the arrays (from 1).
 * Each tile is made by the very statement of tileSql, run once per element (LATERAL).
 */
export function tileBatchSql(layer: TileLayer): string {
  const column = ['z', 'x', 'y', 'as_of', 'known', 'tol'];
  const one = tileSql(layer).replace(/\$([1-6])(?!\d)/g, (_m, n: string) => `req.${column[Number(n) - 1]}`);
  return `SELECT req.n, t.tile, t.features
  FROM unnest($1::int[], $2::int[], $3::int[], $4::date[], $5::timestamptz[], $6::float8[]) WITH ORDINALITY AS req(z, x, y, as_of, known, tol, n),
       LATERAL (${one}) t`;
}

/** SQL: a timestamptz as whole microseconds since the epoch (a key's text, here and in tiles/keys.ts). */
export const micros = (t: string) => `(extract(epoch FROM ${t}) * 1000000)::int8`;

/** Last change of a fact (learnt, or retracted) known at $5: what two instants with the same one both knew. */
const lastChange = (t: string, known: string) => `max(GREATEST(lower(${t}.known), CASE WHEN upper(${t}.known) <= ${known}::timestamptz THEN upper(${t}.known) END))`;

/**
 * SQL (over `bounds`; `known` is the knowledge instant's placeholder) of what a tile's content hangs on besides
 * its date: the last change known at $5 among the layer's map versions whose extent (migration
 * 014) touches the tile (every load that changes a feature records one, and a version's extent
 * covers what the versions before it held), and, where features carry district labels, the last
 * change of those jurisdictions' district facts. Two knowledge instants with the same key see
 * the same rows in the tile; an index probe on a small table decides it (docs/decisions.md, Maps).
 * Instants are written as µs since the epoch; tiles/keys.ts works out the same text in the process.
 */
export function tileKeySql(layer: TileLayer, known = '$5'): string {
  if (!layer.versionLayer) return `(SELECT COALESCE(${micros('max(updated_at)')}::text, 'epoch') FROM coverage WHERE updated_at <= ${known}::timestamptz)`;
  const touching = `map_version m WHERE m.layer = '${layer.versionLayer}' AND m.extent && bounds.box AND lower(m.known) <= ${known}::timestamptz`;
  const labels =
    layer.versionLayer === 'parcel'
      ? ''
      : ` || '|' || COALESCE(${micros(`(SELECT ${lastChange('d', known)} FROM district d WHERE d.jurisdiction_id IN (SELECT m.jurisdiction_id FROM ${touching}) AND lower(d.known) <= ${known}::timestamptz)`)}::text, 'epoch')`;
  return `(COALESCE(${micros(`(SELECT ${lastChange('m', known)} FROM ${touching})`)}::text, 'epoch')${labels})`;
}

/** The key alone ($1..$3 the tile, $4 the knowledge instant): for revalidation and empty zooms. */
export const tileKeyOnlySql = (layer: TileLayer) => `WITH bounds AS (SELECT ST_Transform(ST_TileEnvelope($1, $2, $3), 4326) AS box) SELECT ${tileKeySql(layer, '$4')} AS key FROM bounds`;

/** Whether as_of names a day in each jurisdiction's own zone (none, or an instant) rather than a calendar date. */
export const datesByZone = (params: { as_of?: TimeSpec }) => !params.as_of || params.as_of.form === 'instant' || params.as_of.form === 'last';

/**
 * The date and knowledge instant a map shows for the time parameters given (none: today, known
 * now), read in the zones of the jurisdictions it shows; where their dates differ (around
 * midnight), the earliest: the day that has begun in all of them. No zone: UTC.
 */
export function mapTimes(params: { as_of?: TimeSpec; known_as_of?: TimeSpec }, zones: string[], now = new Date()) {
  const at = (v: TimeValue) => (v.kind === 'instant' ? v.date : v.to);
  const read = (zones.length ? zones : [PROVISIONAL_ZONE]).map((zone) => ({ zone, t: resolveTimes(params, zone, now) }));
  const { zone, t } = read.sort((a, b) => at(a.t.asOf).localeCompare(at(b.t.asOf)))[0];
  return { asOf: at(t.asOf), knownAsOf: t.knownAsOf.kind === 'instant' ? t.knownAsOf.instant : t.knownAsOf.end, requested: t, zone };
}

/** Metres per pixel at a zoom (4096-unit tiles): the simplification that cannot be seen. */
export function tolerance(z: number): number {
  return z >= 16 ? 0 : 40_075_016.686 / 2 ** z / 4096 / 2;
}

/**
 * Map versions with their effective period as known at a knowledge instant: `m` (map_version)
 * and `m_through`, the date the next version of the same document known then takes over (null:
 * still in force). The stored map_version.effective_through is overwritten in place when a later
 * map arrives, so read as of an earlier known_as_of it would end a map before anyone knew it
 * ended; this derives the end from the versions known at `known` instead. `known` is SQL for a
 * timestamptz (a bound parameter).
 */
export function mapVersionsKnownAt(known: string): string {
  return `map_version m LEFT JOIN LATERAL (
      SELECT CASE WHEN m.document_id IS NULL THEN m.effective_through ELSE min(n.effective_from) END AS m_through
        FROM map_version n
       WHERE n.document_id = m.document_id AND n.jurisdiction_id = m.jurisdiction_id AND n.layer = m.layer AND n.id <> m.id
         AND n.known @> ${known}::timestamptz
         AND (n.effective_from > m.effective_from OR (n.effective_from = m.effective_from AND lower(n.known) > lower(m.known)))
    ) nx ON true`;
}

/** SQL condition: the map version `m` (from mapVersionsKnownAt) is known at `known` and in force on some day of from..to. */
export function mapVersionInForce(known: string, from: string, to: string): string {
  return `m.known @> ${known}::timestamptz AND m.effective_from <= ${to}::date AND (nx.m_through IS NULL OR nx.m_through > ${from}::date)`;
}
