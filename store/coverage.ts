// Coverage rows: per jurisdiction and layer, what is held, from which sources, how fresh, and
// what is not held (with the reason). Each source of a layer keeps its own entry under
// detail.sources.<key>: a load replaces its entry; a failure records its latest problem there.
import type { Queryable } from './db.ts';

export interface CoverageUpdate {
  jurisdictionId: string;
  layer: string;
  held: boolean;
  tier: 'full' | 'partial' | 'none';
  sourceId?: string | null;
  sourceKey?: string;
  retrievedAt?: Date | null;
  changedAt?: Date | null;
  earliestRetained?: string | null;
  detail?: Record<string, unknown>;
}

/** What a source's load earns: not held when it gave nothing, partial when part of it could not be read, else full. */
export function sourceTier(read: number, unread: number): Pick<CoverageUpdate, 'held' | 'tier'> {
  if (read === 0) return { held: false, tier: 'none' };
  return { held: true, tier: unread > 0 ? 'partial' : 'full' };
}

export async function upsertCoverage(db: Queryable, c: CoverageUpdate): Promise<void> {
  const key = c.sourceKey ?? c.sourceId ?? 'manifest';
  // each source's entry keeps its own held and tier; the row's tier is worked out from them all
  const entry = { ...c.detail, held: c.held, tier: c.tier };
  await db.query(
    `INSERT INTO coverage (jurisdiction_id, layer, held, tier, source_id, last_retrieved_at, last_changed_at, earliest_retained, detail, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, jsonb_build_object('sources', jsonb_build_object($9::text, $10::jsonb)), now())
     ON CONFLICT (jurisdiction_id, layer) DO UPDATE SET
       held = coverage.held OR EXCLUDED.held,
       source_id = COALESCE(EXCLUDED.source_id, coverage.source_id),
       last_retrieved_at = GREATEST(EXCLUDED.last_retrieved_at, coverage.last_retrieved_at),
       last_changed_at = GREATEST(EXCLUDED.last_changed_at, coverage.last_changed_at),
       earliest_retained = LEAST(coverage.earliest_retained, EXCLUDED.earliest_retained),
       detail = jsonb_set(jsonb_set(coverage.detail, '{sources}', COALESCE(coverage.detail->'sources', '{}'::jsonb)), ARRAY['sources', $9::text], $10::jsonb),
       updated_at = now()`,
    [c.jurisdictionId, c.layer, c.held, c.tier, c.sourceId ?? null, c.retrievedAt ?? null, c.changedAt ?? null, c.earliestRetained ?? null, key, entry],
  );
  await settleTier(db, c.jurisdictionId, c.layer);
}

/**
 * A layer's tier from its sources' entries: none while no source holds anything, full when every
 * source that holds something is full, else partial. Entries that only record a problem do not
 * lower it: what was held stays held, and the problem is shown beside it.
 */
export async function settleTier(db: Queryable, jurisdictionId: string, layer: string): Promise<void> {
  await db.query(
    `UPDATE coverage c SET tier = CASE
        WHEN NOT c.held THEN 'none'
        WHEN EXISTS (SELECT 1 FROM jsonb_each(COALESCE(c.detail->'sources', '{}'::jsonb)) e
                      WHERE (e.value->>'held')::boolean AND e.value->>'tier' IS DISTINCT FROM 'full') THEN 'partial'
        ELSE 'full' END
      WHERE c.jurisdiction_id = $1 AND c.layer = $2`,
    [jurisdictionId, layer],
  );
}

/** A source failed: what is held stays held; the source's entry records its latest problem. */
export async function noteCoverageProblem(db: Queryable, jurisdictionId: string, layer: string, sourceKey: string, problem: Record<string, unknown>): Promise<void> {
  await db.query(
    `INSERT INTO coverage (jurisdiction_id, layer, held, tier, detail)
     VALUES ($1, $2, false, 'none', jsonb_build_object('sources', jsonb_build_object($3::text, jsonb_build_object('problem', $4::jsonb))))
     ON CONFLICT (jurisdiction_id, layer) DO UPDATE SET
       detail = jsonb_set(jsonb_set(coverage.detail, '{sources}', COALESCE(coverage.detail->'sources', '{}'::jsonb)), ARRAY['sources', $3::text],
                COALESCE(coverage.detail->'sources'->$3::text, '{}'::jsonb) || jsonb_build_object('problem', $4::jsonb)),
       updated_at = now()`,
    [jurisdictionId, layer, sourceKey, JSON.stringify(problem)],
  );
}
