// What a search across towns says about what it read (rule 1.2.4): for the scope, how many
// jurisdictions it holds, the coverage of the layers that answered for each jurisdiction on the
// page, and the jurisdictions in scope that cannot be answered for, each with why (layer[]).
import type { Scope } from '../../core/query/scope.ts';
import type { Queryable } from '../db.ts';

/** At most this many unanswerable jurisdictions are named; the count is always whole. */
export const NAMED_LIMIT = 100;

const ISO = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;

export interface ScopeCoverage {
  /** the coverage block beside the items */
  block: Record<string, unknown>;
  /** jurisdictions in scope that cannot be answered for (layer[] of spec 2.2) */
  layer: Array<Record<string, unknown>>;
}

interface Standing {
  id: string;
  name: string;
  slug: string;
  layer: string;
  held: boolean | null;
  tier: string | null;
  last_retrieved_at: string | null;
  last_changed_at: string | null;
  earliest_retained: string | null;
  sources: Record<string, { last_error?: string | null; held?: boolean }> | null;
}

function why(r: Standing): string {
  if (r.held === null) return `no public source of the ${r.layer} layer of ${r.name} is held`;
  const errors = Object.entries(r.sources ?? {})
    .filter(([, s]) => s.last_error)
    .map(([k, s]) => `${k}: ${s.last_error}`);
  return `a source of the ${r.layer} layer of ${r.name} is named but nothing was read from it${errors.length ? ` (${errors.join('; ')})` : ''}`;
}

/**
 * The coverage of `layers` over the scope: a jurisdiction can be answered for when one of the
 * layers is held for it. `onPage` are the jurisdictions whose items the page shows.
 */
export async function scopeCoverage(db: Queryable, scope: Scope, layers: string[], onPage: string[]): Promise<ScopeCoverage> {
  const { rows } = await db.query<Standing & { n_scope: number; n_held: number; n_not: number }>(
    `WITH s AS MATERIALIZED (
       SELECT j.id, j.name, j.slug, bool_or(c.held) AS any_held
         FROM jurisdiction j LEFT JOIN coverage c ON c.jurisdiction_id = j.id AND c.layer = ANY($2::text[])
        WHERE j.id = ANY($1::text[]) GROUP BY j.id),
     shown AS (
       SELECT id FROM s WHERE id = ANY($3::text[])
       UNION SELECT id FROM (SELECT id FROM s WHERE NOT coalesce(any_held, false) ORDER BY name, id LIMIT $4) x)
     SELECT s.id, s.name, s.slug, l.layer, c.held, c.tier, to_char(c.last_retrieved_at AT TIME ZONE 'UTC', ${ISO}) AS last_retrieved_at,
            to_char(c.last_changed_at AT TIME ZONE 'UTC', ${ISO}) AS last_changed_at, c.earliest_retained::text, c.detail->'sources' AS sources,
            (SELECT count(*)::int FROM s) AS n_scope, (SELECT count(*)::int FROM s WHERE any_held) AS n_held
       FROM s JOIN shown USING (id) CROSS JOIN unnest($2::text[]) l(layer)
       LEFT JOIN coverage c ON c.jurisdiction_id = s.id AND c.layer = l.layer
      ORDER BY s.name, s.id, l.layer`,
    [scope.ids, layers, onPage, NAMED_LIMIT],
  );
  const inScope = rows[0]?.n_scope ?? scope.ids.length;
  const held = rows[0]?.n_held ?? 0;
  const byJ = new Map<string, Standing[]>();
  for (const r of rows) byJ.set(r.id, [...(byJ.get(r.id) ?? []), r]);
  const answered: Array<Record<string, unknown>> = [];
  const layer: Array<Record<string, unknown>> = [];
  for (const [id, rs] of byJ) {
    const ref = { id, name: rs[0].name, slug: rs[0].slug, href: `/jurisdiction/${id}` };
    if (rs.some((r) => r.held)) {
      if (!onPage.includes(id)) continue;
      const entries = rs.map((r) =>
        r.held
          ? [r.layer, { held: true, tier: r.tier, last_retrieved_at: r.last_retrieved_at, last_changed_at: r.last_changed_at, earliest_retained: r.earliest_retained }]
          : [r.layer, { held: false, tier: 'none', reason: why(r) }],
      );
      answered.push({ ...ref, href: `/coverage?jurisdiction=${id}`, layer: Object.fromEntries(entries) });
    } else {
      for (const r of rs) layer.push({ jurisdiction: ref, layer: r.layer, held: false, tier: 'none', reason: why(r) });
    }
  }
  const notHeld = inScope - held;
  const block = {
    scope: { kind: scope.kind, label: scope.label },
    layer: layers,
    in_scope: inScope,
    held,
    jurisdiction: answered,
    not_held: {
      count: notHeld,
      jurisdiction: [...new Set(layer.map((l) => (l.jurisdiction as { id: string }).id))],
      ...(notHeld > NAMED_LIMIT ? { detail: `${notHeld} jurisdictions in scope hold none of these layers; the first ${NAMED_LIMIT} by name are named. GET /coverage names every one.` } : {}),
    },
    href: '/coverage',
  };
  return { block, layer };
}
