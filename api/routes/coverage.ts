// What is held (spec 1.2.4, 4.3): per jurisdiction and layer, from which sources, how fresh, and
// what is not held.

import { resolveScope, SCOPE_PARAMS } from '../../core/query/scope.ts';
import { authorityLayers } from '../coverage/authority.ts';
import { defineRoutes } from '../route.ts';

export const LAYERS = ['authority', 'district_list', 'zoning_text', 'district_map', 'overlay', 'ordinance', 'ordinance_text', 'parcel', 'assessor', 'recorder', 'permit', 'case', 'future_land_use', 'special_district', 'context_layer'];

export const coverageRoutes = defineRoutes([
  {
    id: 'listCoverage',
    method: 'GET',
    path: '/coverage',
    summary: 'What is held per jurisdiction and layer, from which source, how fresh, and what is not',
    tag: 'Search across towns',
    credential: 'key',
    scope: 'law:read',
    form: 'plain',
    collection: true,
    price: { credits: 0, per: 'call', note: 'Free: knowing what is held should cost nothing.' },
    params: [...SCOPE_PARAMS, { name: 'layer', in: 'query', type: 'array', items: { type: 'string', enum: LAYERS } }],
    handler: async (req) => {
      const db = req.services.pool;
      const scope = await resolveScope(db, req.params, { organizationId: req.actor?.organizationId });
      const layers: string[] = req.params.layer ?? LAYERS;
      const { rows: js } = await db.query('SELECT id, name, slug, level, fips_key FROM jurisdiction WHERE id = ANY($1) ORDER BY level, name', [scope.ids]);
      const { rows: cov } = await db.query('SELECT * FROM coverage WHERE jurisdiction_id = ANY($1)', [scope.ids]);
      const auth = await authorityLayers(db, scope.ids);
      const item = js.map((j) => ({
        jurisdiction: { id: j.id, name: j.name, slug: j.slug, fips_key: j.fips_key, href: `/jurisdiction/${j.id}` },
        layer: layers.map((name) => {
          if (name === 'authority') return auth.get(j.id);
          const c = cov.find((r) => r.jurisdiction_id === j.id && r.layer === name);
          if (!c) return { layer: name, held: false, tier: 'none', reason: 'no public source for this layer is held' };
          return {
            layer: name,
            held: c.held,
            tier: c.tier,
            last_retrieved_at: c.last_retrieved_at,
            last_changed_at: c.last_changed_at,
            earliest_retained: c.earliest_retained,
            source: Object.entries(c.detail?.sources ?? {}).map(([key, v]) => ({ key, ...(v as object) })),
          };
        }),
      }));
      return { item, page: { size: item.length, next_cursor: null } };
    },
  },
]);
