// Maps (spec 4.11): map layer versions, TileJSON per layer, and vector tiles made in PostGIS
// (ST_AsMVT over ST_TileEnvelope, bound parameters), with ETags keyed by the map versions in
// force and the tile, so caches stay right when the data changes.
import { hash } from 'node:crypto';
import { defineRoutes, type Req } from '../api/route.ts';
import { MAP_VERSION } from '../api/schemas.ts';
import { ApiError, invalid } from '../core/errors.ts';
import { parseBbox } from '../core/query/bbox.ts';
import { timeParams } from '../core/query/index.ts';
import { settledAnywhere } from '../store/changes.ts';
import { named } from '../store/db.ts';
import type { MadeTile } from './batch.ts';
import { CodedTiles, chooseCoding, codedTag, noneMatch } from './encoding.ts';
import { tileBox } from './keys.ts';
import { datesByZone, mapTimes, mapVersionInForce, mapVersionsKnownAt, TILE_LAYERS, type TileLayer, tileKeyOnlySql, tileSql, tolerance } from './layers.ts';
import { boundsAndCenter, tilesetVersion } from './tilejson.ts';

const LAYER_IDS = Object.keys(TILE_LAYERS) as Array<TileLayer['id']>;
/** Each layer's statements, written once (the same text every call): the tile with its key, and the key alone. */
const TILE_SQL = Object.fromEntries(LAYER_IDS.map((id) => [id, { tile: tileSql(TILE_LAYERS[id], true), key: tileKeyOnlySql(TILE_LAYERS[id]) }])) as Record<TileLayer['id'], { tile: string; key: string }>;
const MAP_LAYERS = ['district', 'overlay', 'future_land_use', 'parcel'] as const;
/** Tiles coded for clients, kept by ETag (64 MiB a process). */
const codedTiles = new CodedTiles();

export function layerOf(raw: string): TileLayer {
  const layer = TILE_LAYERS[raw as TileLayer['id']];
  if (!layer) throw new ApiError('no_such_resource', { field: 'layer', detail: `No map layer ${JSON.stringify(raw)}; layers: ${LAYER_IDS.join(', ')}.` });
  return layer;
}

/**
 * mapTimes of a request. An instant asked inside a load's window is answered as known just
 * before the load began (the same question gives the same map during the load and after, as
 * /rule does).
 */
async function pointInTime(req: Req, zones: string[]) {
  const t = mapTimes(req.params, zones);
  return req.params.known_as_of ? { ...t, knownAsOf: await settledAnywhere(req.services.pool, t.knownAsOf) } : t;
}

interface Shown {
  layer?: string | null;
  box?: [number, number, number, number] | null;
  jurisdiction?: string[] | null;
  parcel?: string | null;
}

/**
 * The timezones of the jurisdictions a map request shows: those named, the parcel's, or those
 * whose maps (of the layer) touch the box; asked only when as_of is read per zone (datesByZone).
 */
async function zonesShown(req: Req, q: Shown): Promise<string[]> {
  if (!datesByZone(req.params)) return [];
  const { rows } = await req.services.pool.query(
    `SELECT DISTINCT j.timezone FROM jurisdiction j
      WHERE ($3::text[] IS NULL OR j.id = ANY($3) OR j.slug = ANY($3) OR j.fips_key = ANY($3))
        AND ($4::text IS NULL OR j.id IN (SELECT jurisdiction_id FROM parcel WHERE id = $4))
        AND EXISTS (SELECT 1 FROM map_version m WHERE m.jurisdiction_id = j.id AND ($1::text IS NULL OR m.layer = $1)
                       AND ($2::float8[] IS NULL OR m.extent && ST_MakeEnvelope($2[1], $2[2], $2[3], $2[4], 4326)))
      ORDER BY 1`,
    [q.layer ?? null, q.box ?? null, q.jurisdiction ?? null, q.parcel ?? null],
  );
  return rows.map((r) => r.timezone);
}

/** A tile's times: its zones from the process's snapshot of map extents when it has one (tiles/keys.ts). */
async function tileTimes(req: Req, layer: TileLayer, z: number, x: number, y: number) {
  if (!datesByZone(req.params) || !layer.versionLayer) return pointInTime(req, []);
  const known = mapTimes(req.params, []).knownAsOf;
  const zones = req.params.known_as_of ? null : await req.services.tileKeys.zones(req.services.pool, layer, z, x, y, known);
  return pointInTime(req, zones ?? (await zonesShown(req, { layer: layer.versionLayer, box: tileBox(z, x, y) })));
}

function tileCoords(req: Req) {
  const z = Number(req.params.z);
  const x = Number(req.params.x);
  const y = Number(String(req.params.y).replace(/\.(mvt|pbf)$/, ''));
  const bad = (field: string, why: string) => new ApiError('tile_coordinate_invalid', { field, detail: why });
  if (!/^\d{1,2}$/.test(req.params.z) || z > 24) throw bad('z', 'z is a whole number from 0 to 24');
  const n = 2 ** z;
  if (!/^\d+$/.test(req.params.x) || x >= n) throw bad('x', `x is a whole number from 0 to ${n - 1} at z ${z}`);
  if (!/^\d+(\.(mvt|pbf))?$/.test(req.params.y) || y >= n) throw bad('y', `y is a whole number from 0 to ${n - 1} at z ${z}`);
  return { z, x, y };
}

export const tileRoutes = defineRoutes([
  {
    id: 'listMapVersions',
    method: 'GET',
    path: '/map',
    summary: 'Map layer versions: feature counts, published CRS, geometry hash, effective period',
    tag: 'Maps',
    credential: 'key',
    scope: 'maps:read',
    form: 'plain',
    collection: true,
    response: MAP_VERSION,
    price: { credits: 0, per: 'call', note: 'Free.' },
    params: [
      { name: 'jurisdiction', in: 'query', type: 'array', description: 'jur_ ids, slugs or fips_keys.' },
      { name: 'layer', in: 'query', type: 'array', items: { type: 'string', enum: MAP_LAYERS } },
      ...timeParams(),
    ],
    handler: async (req) => {
      const t = await pointInTime(req, await zonesShown(req, { jurisdiction: req.params.jurisdiction }));
      const interval = t.requested.asOf.kind === 'interval' ? t.requested.asOf : null;
      const { rows } = await req.services.pool.query(
        `SELECT m.*, nx.m_through::text AS through, j.slug FROM ${mapVersionsKnownAt('$3')} JOIN jurisdiction j ON j.id = m.jurisdiction_id
          WHERE ($1::text[] IS NULL OR j.id = ANY($1) OR j.slug = ANY($1) OR j.fips_key = ANY($1))
            AND ($2::text[] IS NULL OR m.layer = ANY($2)) AND ${mapVersionInForce('$3', '$4', '$5')}
          ORDER BY j.slug, m.layer, m.effective_from`,
        [req.params.jurisdiction ?? null, req.params.layer ?? null, t.knownAsOf, interval?.from ?? t.asOf, interval?.to ?? t.asOf],
      );
      const item = rows.map((m) => ({
        id: m.id,
        jurisdiction: m.jurisdiction_id,
        layer: m.layer,
        version: m.version_id,
        effective_from: m.effective_from,
        effective_through: m.through,
        effective_basis: m.effective_basis,
        adopted_on: m.adopted_on,
        feature_count: m.feature_count,
        repaired_count: m.repaired_count,
        dropped_count: m.dropped_count,
        published_crs: m.published_crs,
        geometry_sha256: m.geometry_sha256,
        document: m.document_id,
        href: `/map?jurisdiction=${m.slug}&layer=${m.layer}`,
      }));
      return { item, page: { size: item.length, next_cursor: null } };
    },
  },
  {
    id: 'getTileJson',
    method: 'GET',
    path: '/map/{layer}',
    summary: 'TileJSON 3.0.0 for a layer: tile URL, bounds, zooms, vector layers and their fields',
    tag: 'Maps',
    credential: 'key',
    scope: 'maps:read',
    form: 'raw',
    price: { credits: 0, per: 'call', note: 'Free.' },
    bucket: 'tiles',
    params: [
      { name: 'layer', in: 'path', type: 'string', required: true },
      { name: 'bbox', in: 'query', type: 'string', description: 'west,south,east,north (WGS 84): bounds are the data in force within it.' },
      ...timeParams(),
    ],
    handler: async (req) => {
      const layer = layerOf(req.params.layer);
      const bbox = req.params.bbox ? parseBbox(req.params.bbox) : null;
      const t = await pointInTime(req, await zonesShown(req, { layer: layer.versionLayer, box: bbox }));
      const db = req.services.pool;
      const [{ bounds, center }, version] = await Promise.all([boundsAndCenter(db, layer, t.asOf, t.knownAsOf, bbox), tilesetVersion(db, layer, t.asOf, t.knownAsOf)]);
      const qs = new URLSearchParams();
      if (req.params.as_of) qs.set('as_of', req.params.as_of.text);
      if (req.params.known_as_of) qs.set('known_as_of', req.params.known_as_of.text);
      const base = req.ctx.origin || req.services.config.publicBaseUrl;
      const body = {
        tilejson: '3.0.0',
        name: `Landlex ${layer.id}`,
        description: layer.description,
        version,
        attribution: 'Public records; see /document for sources',
        scheme: 'xyz',
        tiles: [`${base}/map/${layer.id}/{z}/{x}/{y}${qs.size ? `?${qs}` : ''}`],
        minzoom: layer.minzoom,
        maxzoom: layer.maxzoom,
        bounds,
        center,
        vector_layers: [{ id: layer.id, description: layer.description, minzoom: layer.minzoom, maxzoom: layer.maxzoom, fields: layer.fields }],
      };
      return { body, contentType: 'application/json' };
    },
  },
  {
    id: 'getTile',
    refuses: ['tile_coordinate_invalid'],
    answers: { 204: 'No feature of the layer in this tile (or a zoom the layer does not draw).', 304: 'Not modified: If-None-Match holds the tile\'s ETag.' },
    method: 'GET',
    path: '/map/{layer}/{z}/{x}/{y}',
    summary: 'One vector tile (Mapbox Vector Tile) of a layer, in force at as_of; brotli or gzip as Accept-Encoding asks (Vary: Accept-Encoding, an ETag per coding)',
    tag: 'Maps',
    credential: 'key',
    scope: 'maps:read',
    form: 'raw',
    produces: ['application/vnd.mapbox-vector-tile'],
    price: { credits: 0, per: 'call', note: 'Free with a key (tiles are drawn many at a time).' },
    bucket: 'tiles',
    params: [
      { name: 'layer', in: 'path', type: 'string', required: true },
      { name: 'z', in: 'path', type: 'string', required: true },
      { name: 'x', in: 'path', type: 'string', required: true },
      { name: 'y', in: 'path', type: 'string', required: true },
      ...timeParams(),
    ],
    handler: async (req) => {
      const layer = layerOf(req.params.layer);
      const { z, x, y } = tileCoords(req);
      const t = await tileTimes(req, layer, z, x, y);
      if (t.requested.asOf.kind === 'interval') throw invalid('as_of', 'a tile shows one date; give a date, not an interval');
      const db = req.services.pool;
      // The coding (tiles/encoding.ts) picks the representation, so it is part of its ETag.
      const coding = chooseCoding(req.ctx.get('accept-encoding'));
      // The ETag: the tile, its date, and what its rows hang on as known then (tileKeySql). As
      // known now, the process works the key out (tiles/keys.ts); otherwise it comes from the
      // database: alone for a client revalidating or a zoom the layer does not draw, else with
      // the tile, in one statement.
      const cacheFor = (key: string) => ({
        ETag: codedTag(`"${hash('sha256', [layer.id, z, x, y, t.asOf, key].join('|'), 'base64url').slice(0, 27)}"`, coding),
        'Cache-Control': req.params.as_of || req.params.known_as_of ? 'private, max-age=86400' : 'private, max-age=300',
        Vary: 'Accept-Encoding, X-API-Key, Authorization',
        'X-Known-As-Of': t.knownAsOf,
      });
      const keyHere = req.params.known_as_of ? null : await req.services.tileKeys.key(db, layer, z, x, y, t.knownAsOf);
      const keyOnly = async () => cacheFor(keyHere ?? (await db.query(named(`tile-key-${layer.id}`, TILE_SQL[layer.id].key, [z, x, y, t.knownAsOf]))).rows[0].key);
      const revalidating = req.ctx.get('if-none-match');
      if (revalidating || z < layer.minzoom || z > layer.maxzoom) {
        const cache = await keyOnly();
        if (noneMatch(revalidating, cache.ETag)) return { status: 304, body: null, headers: cache };
        if (z < layer.minzoom || z > layer.maxzoom) return { status: 204, body: null, headers: cache };
      }
      // as known now, with the tiles asked meanwhile (tiles/batch.ts); else with its key
      const { tile, features, key }: MadeTile & { key: string } =
        keyHere === null
          ? (await db.query(named(`tile-${layer.id}`, TILE_SQL[layer.id].tile, [z, x, y, t.asOf, t.knownAsOf, tolerance(z)]))).rows[0]
          : { ...(await req.services.tiles.make(layer, { z, x, y, asOf: t.asOf, knownAsOf: t.knownAsOf })), key: keyHere };
      const cache = cacheFor(key);
      if (features === 0) return { status: 204, body: null, headers: cache };
      const headers = coding === 'identity' ? cache : { ...cache, 'Content-Encoding': coding };
      return { body: await codedTiles.encode(cache.ETag, tile, coding), contentType: 'application/vnd.mapbox-vector-tile', headers };
    },
  },
]);

export const imageRoutes = defineRoutes([
  {
    id: 'getMapImage',
    method: 'GET',
    path: '/map/{layer}/image',
    summary: 'A stamped PNG of a bounding box or a parcel with the layer drawn (a map exhibit)',
    tag: 'Maps',
    credential: 'key',
    scope: 'maps:read',
    form: 'raw',
    produces: ['image/png'],
    price: { credits: 1, per: 'call', note: 'One credit per image.' },
    params: [
      { name: 'layer', in: 'path', type: 'string', required: true },
      { name: 'bbox', in: 'query', type: 'string', description: 'west,south,east,north (WGS 84).' },
      { name: 'parcel', in: 'query', type: 'string', description: 'A prc_ id: the parcel, outlined, with its surroundings.' },
      { name: 'width', in: 'query', type: 'integer', min: 200, max: 2048, default: 1000 },
      { name: 'height', in: 'query', type: 'integer', min: 200, max: 2048, default: 800 },
      ...timeParams(),
    ],
    handler: async (req) => {
      const layer = layerOf(req.params.layer);
      if (layer.id === 'coverage') throw invalid('layer', 'exhibits draw district, overlay, future_land_use or parcel');
      const box = req.params.bbox && !req.params.parcel ? parseBbox(req.params.bbox) : null;
      const t = await pointInTime(req, await zonesShown(req, { layer: layer.versionLayer, box, parcel: box ? null : (req.params.parcel ?? null) }));
      const { renderExhibit } = await import('./image.ts');
      const { png, stamp } = await renderExhibit(req.services.pool, { layer, bbox: req.params.bbox, parcel: req.params.parcel, width: req.params.width, height: req.params.height, asOf: t.asOf, knownAsOf: t.knownAsOf });
      const headers = {
        'X-Map-Version': stamp.map_version.join(','),
        'X-Map-Effective-From': stamp.effective_from.join(','),
        'X-Source-Retrieved-At': stamp.retrieved_at.map((x) => x ?? '').join(','),
        'X-As-Of': t.asOf,
        'X-Known-As-Of': t.knownAsOf,
      };
      return { body: png, contentType: 'image/png', headers };
    },
  },
]);
