// When a change took effect and which ordinance made it: a later version of a code or map
// carries changes the clerk's list explains. The ordinances adopted between the previous version
// and this one are the candidates; one of the right kind, or the one whose title names the
// changed section, table or district, dates the change. Anything else is dated by the version
// (first observed) and linked to no ordinance: never guessed.
import type { LoadContext } from './context.ts';

export interface OrdinanceRef {
  id: string;
  number: string;
  title: string;
  kind: string;
  adopted_on: string | null;
  effective_from: string | null;
}

/** Adopted ordinances of these kinds adopted after the previous loaded version of this source was retrieved. */
export async function newlyAdopted(ctx: LoadContext, kinds: string[]): Promise<OrdinanceRef[]> {
  if (!ctx.priorLoaded) return [];
  const { rows } = await ctx.client.query(
    `WITH prev AS (SELECT max(retrieved_at) AS at FROM document_version WHERE document_id = $2 AND loaded_at IS NOT NULL AND id <> $3)
     SELECT DISTINCT ON (o.id) o.id, o.number, o.title, o.kind, o.adopted_on::text, o.effective_from::text
       FROM ordinance o, prev
      WHERE o.jurisdiction_id = $1 AND o.status = 'adopted' AND o.kind = ANY($4) AND upper_inf(o.known)
        AND o.adopted_on > (prev.at AT TIME ZONE 'UTC')::date - 1 AND o.adopted_on <= $5::date
      ORDER BY o.id, o.fact_id DESC`,
    [ctx.jurisdictionId, ctx.version.documentId, ctx.version.id, kinds, ctx.version.retrievedAt.toISOString().slice(0, 10)],
  );
  return rows;
}

const mentions = (title: string, anchor: string) => new RegExp(`(^|[^\\w.-])${anchor.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}([^\\w-]|$)`, 'i').test(title);

/** The ordinance that made a change with these anchors (section ref, table number, district code). */
export function matchOrdinance(candidates: OrdinanceRef[], anchors: Array<string | null | undefined>): OrdinanceRef | null {
  if (candidates.length === 1) return candidates[0];
  const named = candidates.filter((o) => anchors.some((a) => a && mentions(o.title, a)));
  return named.length === 1 ? named[0] : null;
}

/** The date a matched change took effect: the ordinance's, else the version's. */
export function effectiveOf(ctx: LoadContext, o: OrdinanceRef | null): string {
  return o?.effective_from ?? o?.adopted_on ?? ctx.effectiveFrom;
}
