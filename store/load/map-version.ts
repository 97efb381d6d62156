// A map_ version: one per loaded layer version, with its feature count, published CRS and
// geometry hash; the previous version of the same source ends where this one begins.
import { stableId } from '../../core/ids.ts';
import type { LoadContext } from './context.ts';

export interface LayerFacts {
  feature_count: number;
  repaired_count: number;
  empty: Array<{ index: number; reason: string }>;
  published_crs: string | null;
  geometry_sha256: string;
}

/** `dropped` counts features that were not loaded (a map cannot place a district without area). */
export async function recordMapVersion(ctx: LoadContext, layer: 'district' | 'overlay' | 'parcel' | 'future_land_use', read: LayerFacts, dropped: number, effectiveFrom = ctx.effectiveFrom): Promise<string> {
  const id = stableId('map', ctx.source.id, ctx.version.id);
  await ctx.client.query(
    `UPDATE map_version SET effective_through = $3::date
      WHERE jurisdiction_id = $1 AND version_id IN (SELECT id FROM document_version WHERE document_id = $2)
        AND id <> $4 AND effective_through IS NULL AND effective_from < $3::date`,
    [ctx.jurisdictionId, ctx.version.documentId, effectiveFrom, id],
  );
  await ctx.client.query(
    `INSERT INTO map_version (id, jurisdiction_id, layer, version_id, document_id, feature_count, repaired_count, dropped_count,
                              published_crs, geometry_sha256, effective_from, effective_basis, report, known)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, tstzrange($14, NULL))
     ON CONFLICT (id) DO NOTHING`,
    [id, ctx.jurisdictionId, layer, ctx.version.id, ctx.version.documentId, read.feature_count, read.repaired_count, dropped,
      read.published_crs ?? ctx.source.manifest.published_crs ?? null, read.geometry_sha256, effectiveFrom, effectiveFrom === ctx.effectiveFrom ? ctx.effectiveBasis : 'stated',
      { empty: read.empty }, ctx.now],
  );
  return id;
}

/**
 * The version's extent (migration 014): the box of the source's features held now, grown by the
 * box of the versions before it. Run once the layer's facts are applied.
 */
export async function recordMapExtent(ctx: LoadContext, mapVersionId: string, table: 'parcel' | 'district_area'): Promise<void> {
  await ctx.client.query(
    `UPDATE map_version m SET extent = ST_Envelope(ST_Collect(ARRAY[
        (SELECT ST_Extent(t.geom)::geometry FROM ${table} t WHERE t.jurisdiction_id = $2 AND t.source_id = $3 AND upper_inf(t.known)),
        (SELECT ST_Extent(p.extent)::geometry FROM map_version p
          WHERE p.jurisdiction_id = m.jurisdiction_id AND p.layer = m.layer AND p.document_id IS NOT DISTINCT FROM m.document_id AND p.id <> m.id AND lower(p.known) <= lower(m.known))]))
      WHERE m.id = $1`,
    [mapVersionId, ctx.jurisdictionId, ctx.source.id],
  );
}
