// What is held (spec 1.2.4, 4.3): one row per jurisdiction per layer, in one scope or across every
// jurisdiction Landlex holds, including every layer not held (with why): from which sources, how
// fresh, and what each source's last load found. Paged like every collection (cursor, size, total,
// sort, filter).
import { collectionParams, runCollection } from '../../core/query/index.ts';
import { resolveOptionalScope, SCOPE_PARAMS } from '../../core/query/scope.ts';
import { COVERAGE_LAYERS, coverageResource, coverageWhere } from '../../store/search/coverage-rows.ts';
import { authorityLayers } from '../coverage/authority.ts';
import { defineRoutes } from '../route.ts';
import { COVERAGE_ROW } from './records-schemas.ts';

export const LAYERS: readonly string[] = COVERAGE_LAYERS;

type Row = Record<string, any>;

/** Why nothing of the layer is held for the jurisdiction: no source, or sources that read nothing (with their problems). */
function why(r: Row): string {
  if (!r.row_held) return `no public source of the ${r.layer} layer of ${r.j_name} is held`;
  const problems = Object.entries((r.sources ?? {}) as Record<string, { problem?: { reason?: string } }>)
    .filter(([, s]) => s.problem?.reason)
    .map(([k, s]) => `${k}: ${s.problem!.reason}`);
  return `a source of the ${r.layer} layer of ${r.j_name} is named but nothing was read from it${problems.length ? ` (${problems.join('; ')})` : ''}`;
}

function coverageRow(r: Row, authority: Map<string, Record<string, unknown>>) {
  const jurisdiction = { id: r.j_id, name: r.j_name, slug: r.j_slug, level: r.j_level, fips_key: r.j_fips, href: `/jurisdiction/${r.j_id}` };
  if (r.layer === 'authority') {
    const { layer: _layer, ...a } = authority.get(r.j_id) ?? { held: false, tier: 'none', reason: `no authority of ${r.j_name} is held` };
    return { jurisdiction, layer: 'authority', ...a, held: r.held, tier: r.tier };
  }
  if (!r.held) return { jurisdiction, layer: r.layer, held: false, tier: 'none', reason: why(r), ...(r.row_held ? { source: sources(r) } : {}) };
  return {
    jurisdiction,
    layer: r.layer,
    held: true,
    tier: r.tier,
    last_retrieved_at: r.last_retrieved_at,
    last_changed_at: r.last_changed_at,
    earliest_retained: r.earliest_retained,
    source: sources(r),
  };
}

const sources = (r: Row) => Object.entries(r.sources ?? {}).map(([key, v]) => ({ key, ...(v as object) }));

export const coverageRoutes = defineRoutes([
  {
    id: 'listCoverage',
    method: 'GET',
    path: '/coverage',
    summary: 'What is held per jurisdiction and layer, from which source, how fresh, and what is not: one row each, paged',
    description:
      "One row per jurisdiction per layer, every layer named whether held or not: held, tier (full, partial, none), the freshness of what is held, each source's entry (counts, what its last load found, its latest problem), and for what is not held the reason. One scope parameter narrows it to a scope's jurisdictions; with none, every jurisdiction held is listed. Rows are ordered by jurisdiction name, then by the layer's place in the list of layers. The coverage rows describe the latest loads, not a snapshot: a walk over pages while a load commits may see it on later pages.",
    tag: 'Search across towns',
    credential: 'key',
    scope: 'law:read',
    form: 'plain',
    collection: true,
    response: COVERAGE_ROW,
    price: { credits: 0, per: 'call', note: 'Free: knowing what is held should cost nothing.' },
    params: [...SCOPE_PARAMS, { name: 'layer', in: 'query', type: 'array', items: { type: 'string', enum: COVERAGE_LAYERS } }, ...collectionParams(coverageResource)],
    handler: async (req) => {
      const db = req.services.pool;
      const scope = await resolveOptionalScope(db, req.params, { organizationId: req.actor?.organizationId });
      const r = await runCollection(db, coverageResource, req.params, req.services.secret, { where: coverageWhere(scope?.ids ?? null, req.params.layer ?? null) });
      const withAuthority = [...new Set(r.items.filter((i) => i.layer === 'authority').map((i) => i.j_id as string))];
      const authority = withAuthority.length ? await authorityLayers(db, withAuthority) : new Map();
      const item = r.items.map((i) => ({ ...coverageRow(i, authority), ...(i.filter_outcome ? { filter_outcome: i.filter_outcome } : {}) }));
      return { item, page: r.page, extra: { scope: scope ? { kind: scope.kind, label: scope.label, jurisdictions: scope.ids.length } : { kind: 'all', label: 'every jurisdiction held' } } };
    },
  },
]);
