// Pieces of big polygons for spatial probes (migration 011): every fact row of the load's source
// that has none yet is cut, once (a fact row never changes, so neither do its pieces).
import { ident } from '../copy.ts';
import type { LoadContext } from './context.ts';

/** Cut the source's rows of `table` that `where` (over alias t) picks into pieces of at most `vertices`. */
export async function cutPieces(ctx: LoadContext, table: 'parcel' | 'district_area', vertices: number, where = 'true'): Promise<void> {
  const t = ident(table);
  await ctx.client.query(
    `INSERT INTO ${t}_piece (fact_id, geom)
     SELECT t.fact_id, ST_Subdivide(t.geom, ${Math.trunc(vertices)}) FROM ${t} t
      WHERE t.jurisdiction_id = $1 AND t.source_id = $2 AND t.geom IS NOT NULL AND ${where}
        AND NOT EXISTS (SELECT 1 FROM ${t}_piece x WHERE x.fact_id = t.fact_id)`,
    [ctx.jurisdictionId, ctx.source.id],
  );
}
