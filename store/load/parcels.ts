// A parcel layer: one parcel fact per parcel key. Several polygons under one key become one
// MultiPolygon; features whose key is no parcel id (no digit: '---', 'ROAD') are each kept as
// their own parcel, flagged; a feature without area is kept without geometry. No feature is
// dropped. Features stream from GDAL through COPY into a staging table and are grouped in SQL,
// so a county of a million parcels never sits in memory.
import { sourceTier } from '../coverage.ts';
import { ApplicationFailure } from '@temporalio/common';
import { stableId } from '../../core/ids.ts';
import { type LayerSummary, readFeatures } from '../../ingest/layers.ts';
import { applyStaged, createStage, type FactSpec } from '../bitemporal.ts';
import { copyRows, Geometry } from '../copy.ts';
import type { LoadContext, Loader } from './context.ts';
import { recordMapExtent, recordMapVersion } from './map-version.ts';
import { cutPieces } from './pieces.ts';

/** Parcels with more vertices than this are also kept as pieces of at most this many (migration 011). */
const PIECE_VERTICES = 256;

export const parcelIdFor = (jurisdictionId: string, key: string) => stableId('parcel', jurisdictionId, key);

const SPEC = (ctx: LoadContext): FactSpec => ({
  table: 'parcel',
  columns: ['source_id', 'jurisdiction_id', 'parcel_key', 'apn', 'map_version_id', 'attributes', 'geom', 'geom_sha256', 'area_m2', 'subdivided'],
  scope: { where: 't.jurisdiction_id = $1 AND t.source_id = $2', params: [ctx.jurisdictionId, ctx.source.id] },
});

export const loadParcels: Loader = async (ctx: LoadContext) => {
  const m = ctx.source.manifest;
  const keyField = m.fields?.key ?? 'key';
  const features = readFeatures(ctx.blobPath ? { path: ctx.blobPath } : await ctx.bytes(), { format: m.format as 'geojson', publishedCrs: m.published_crs ?? null, keyField, layerHash: false });
  await ctx.client.query(
    `CREATE TEMP TABLE raw_parcel (id text, parcel_key text, attributes jsonb, geom geometry(MultiPolygon, 4326), geom_sha256 text, empty text) ON COMMIT DROP`,
  );
  let summary: LayerSummary | null = null;
  let placeholders = 0;
  let n = 0;
  async function* rows() {
    for (;;) {
      const r = await features.next();
      if (r.done) {
        summary = r.value;
        return;
      }
      const f = r.value;
      const raw = (f.key ?? '').trim();
      let key = raw;
      const attributes: Record<string, unknown> = { ...f.properties };
      if (!/\d/.test(raw)) {
        placeholders++;
        key = `${raw || 'NOKEY'}#${f.geom_sha256.slice(0, 12)}`;
        attributes.key_status = 'not_a_parcel_id';
      }
      if (++n % 20_000 === 0) ctx.beat({ features: n });
      yield [parcelIdFor(ctx.jurisdictionId, key), key, attributes, f.wkb ? new Geometry(f.wkb) : null, f.geom_sha256, f.empty];
    }
  }
  await copyRows(ctx.client, 'raw_parcel', ['id', 'parcel_key', 'attributes', 'geom', 'geom_sha256', 'empty'], rows());
  const read = summary as LayerSummary | null;
  if (!read) throw new Error('the layer reader stopped early');
  const fatal = read.issues.filter((i) => i.severity === 'error');
  if (fatal.length > 0) throw ApplicationFailure.nonRetryable(fatal.map((i) => `${i.code}: ${i.detail}`).join('; '), 'BadInput');
  // the layer's geometry hash as ingest/layers.ts defines it (layerSha256), computed in SQL
  const layerHash = await ctx.client.query(
    `SELECT encode(sha256(convert_to(COALESCE(string_agg(geom_sha256, E'\n' ORDER BY geom_sha256 COLLATE "C"), ''), 'UTF8')), 'hex') AS sha FROM raw_parcel WHERE geom IS NOT NULL`,
  );
  read.geometry_sha256 = layerHash.rows[0].sha;
  const mapVersionId = await recordMapVersion(ctx, 'parcel', read, 0);

  // one parcel per key: polygons merged, a hash of what was published under it
  const spec = SPEC(ctx);
  const stage = await createStage(ctx.client, spec);
  const merged = await ctx.client.query(
    `INSERT INTO ${stage} (id, content_sha256, valid_from, valid_to, source_id, jurisdiction_id, parcel_key, apn, map_version_id, attributes, geom, geom_sha256, area_m2, subdivided)
     SELECT id,
            encode(sha256(convert_to(string_agg(geom_sha256 || '|' || attributes::text, ',' ORDER BY geom_sha256), 'UTF8')), 'hex'),
            $1::date, NULL, $2, $3, min(parcel_key), NULL, $4,
            (array_agg(attributes ORDER BY geom_sha256))[1]
              || CASE WHEN count(*) > 1 THEN jsonb_build_object('polygons_merged', count(*)) ELSE '{}'::jsonb END
              || CASE WHEN bool_and(geom IS NULL) THEN jsonb_build_object('geometry_status', min(empty)) ELSE '{}'::jsonb END,
            CASE WHEN bool_and(geom IS NULL) THEN NULL WHEN count(*) = 1 THEN (array_agg(geom))[1] ELSE ST_Multi(ST_CollectionExtract(ST_Collect(geom), 3)) END,
            CASE WHEN count(*) = 1 THEN min(geom_sha256) ELSE encode(sha256(convert_to(string_agg(geom_sha256, ',' ORDER BY geom_sha256), 'UTF8')), 'hex') END,
            sum(ST_Area(geom::geography)),
            COALESCE(sum(ST_NPoints(geom)), 0) > ${PIECE_VERTICES}
       FROM raw_parcel GROUP BY id`,
    [ctx.effectiveFrom, ctx.source.id, ctx.jurisdictionId, mapVersionId],
  );
  const parcels = merged.rowCount ?? 0;
  const delta = await applyStaged(ctx.client, spec, stage, { now: ctx.now, removeMissing: true, removedOn: ctx.effectiveFrom, countOnly: true });
  await cutPieces(ctx, 'parcel', PIECE_VERTICES, 't.subdivided');
  await recordMapExtent(ctx, mapVersionId, 'parcel');
  await ctx.client.query('DROP TABLE raw_parcel');
  ctx.beat({ loaded: parcels });
  return {
    counts: { features: read.feature_count, repaired: read.repaired_count, dropped: 0, without_geometry: read.empty.length, parcels, merged_polygons: n - parcels, placeholder_keys: placeholders, parcel_added: delta.counts.added, parcel_changed: delta.counts.changed, parcel_removed: delta.counts.removed, parcel_unchanged: delta.unchanged },
    events: [],
    issues: read.issues,
    coverage: [
      {
        jurisdictionId: ctx.jurisdictionId,
        layer: 'parcel',
        ...sourceTier(parcels, read.empty.length),
        sourceId: ctx.source.id,
        retrievedAt: ctx.version.retrievedAt,
        changedAt: delta.counts.added + delta.counts.changed + delta.counts.removed > 0 ? ctx.now : null,
        earliestRetained: ctx.effectiveFrom,
        detail: { map_version: mapVersionId, features: read.feature_count, parcels, merged_polygons: n - parcels, placeholder_keys: placeholders, repaired: read.repaired_count, without_geometry: read.empty },
      },
    ],
  };
};
