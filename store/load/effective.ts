// When a change took effect and which ordinance made it: a later version of a code or map
// carries changes the clerk's list explains. The ordinances adopted between the previous version
// and this one are the candidates; one of the right kind, or the one whose title names the
// changed section, table or district, dates the change. Anything else is dated by the version
// (first observed) and linked to no ordinance: never guessed.
import { localDate } from '../../core/time.ts';
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
        AND o.adopted_on > (prev.at AT TIME ZONE $6)::date - 1 AND o.adopted_on <= $5::date
      ORDER BY o.id, o.fact_id DESC`,
    [ctx.jurisdictionId, ctx.version.documentId, ctx.version.id, kinds, localDate(ctx.version.retrievedAt, ctx.timezone), ctx.timezone],
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

export interface FactDating {
  /** date each new or changed staged fact takes effect */
  validFrom: Map<string, string>;
  /** date each removed fact stops being in force */
  removedOn: Map<string, string>;
  /** the ordinance that made each change, by fact id */
  ordinanceOf: Map<string, OrdinanceRef | null>;
}

/**
 * Dates the facts of one table that this version adds, changes or removes by the text amendment
 * whose title names one of their anchors (section ref, table, district code); facts no ordinance
 * explains keep the version's date. Reads only; the caller applies the facts.
 */
export async function dateFactChanges(
  ctx: LoadContext,
  table: string,
  staged: Array<{ id: string; content_sha256: string; anchors: string[] }>,
  anchorsOfRow: (row: Record<string, unknown>) => string[],
): Promise<FactDating> {
  const dating: FactDating = { validFrom: new Map(), removedOn: new Map(), ordinanceOf: new Map() };
  if (!ctx.priorLoaded) return dating;
  const { rows } = await ctx.client.query(
    `SELECT t.id, t.content_sha256, to_jsonb(t) - 'geom' AS row FROM ${table.replace(/[^a-z_]/g, '')} t
      WHERE t.jurisdiction_id = $1 AND t.source_id = $2 AND upper_inf(t.known) AND upper_inf(t.valid)`,
    [ctx.jurisdictionId, ctx.source.id],
  );
  const current = new Map(rows.map((r) => [r.id as string, r]));
  const stagedIds = new Set(staged.map((s) => s.id));
  const touched = [
    ...staged.filter((s) => current.get(s.id)?.content_sha256 !== s.content_sha256).map((s) => ({ id: s.id, anchors: s.anchors, removed: false })),
    ...[...current.values()].filter((r) => !stagedIds.has(r.id)).map((r) => ({ id: r.id as string, anchors: anchorsOfRow(r.row), removed: true })),
  ];
  if (touched.length === 0) return dating;
  const candidates = await newlyAdopted(ctx, ['text_amendment']);
  for (const t of touched) {
    const o = matchOrdinance(candidates, t.anchors);
    dating.ordinanceOf.set(t.id, o);
    (t.removed ? dating.removedOn : dating.validFrom).set(t.id, effectiveOf(ctx, o));
  }
  return dating;
}
