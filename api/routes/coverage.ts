// What is held (spec 1.2.4, 4.3): per jurisdiction and layer, from which sources, how fresh, and
// what is not held.
import type { Queryable } from '../../store/db.ts';
import { MANIFEST_SOURCE } from '../../store/sources.ts';
import { defineRoutes } from '../route.ts';
import { SCOPE_PARAMS, resolveScope } from '../../core/query/scope.ts';

export const LAYERS = ['authority', 'district_list', 'zoning_text', 'district_map', 'overlay', 'ordinance', 'parcel', 'assessor', 'recorder', 'permit', 'case', 'future_land_use', 'special_district', 'context_layer'];

/** The subjects an authority is held for (the authority table's vocabulary). */
const AUTHORITY_SUBJECTS = ['zoning', 'subdivision', 'building_code', 'fire_code'];

/**
 * The authority layer of each jurisdiction from the authorities in force today in its zone:
 * full when every subject has its authority, partial when some do; each source with the
 * document version its authorities cite and the subjects it states.
 */
export async function authorityLayers(db: Queryable, ids: string[]) {
  const { rows } = await db.query(
    `SELECT a.jurisdiction_id, a.subject, a.source_id, s.key AS source_key, s.kind AS source_kind, doc.doc_type, doc.authorship,
            v.document_id AS document, v.id AS version, v.retrieved_at
       FROM authority a JOIN jurisdiction j ON j.id = a.jurisdiction_id LEFT JOIN source s ON s.id = a.source_id
       LEFT JOIN document_version v ON v.id = a.source_version_id LEFT JOIN document doc ON doc.id = v.document_id
      WHERE a.jurisdiction_id = ANY($1) AND upper_inf(a.known) AND a.valid @> (now() AT TIME ZONE j.timezone)::date
      ORDER BY a.jurisdiction_id, a.subject`,
    [ids],
  );
  const out = new Map<string, Record<string, unknown>>();
  for (const id of ids) {
    const mine = rows.filter((r) => r.jurisdiction_id === id);
    const subjects = [...new Set(mine.map((r) => r.subject as string))];
    if (subjects.length === 0) {
      out.set(id, { layer: 'authority', held: false, tier: 'none', reason: 'no authority is held: no manifest or source of this jurisdiction states one' });
      continue;
    }
    const bySource = new Map<string, Record<string, any>>();
    for (const r of mine) {
      const entry = bySource.get(r.source_id) ?? {
        key: r.source_key ?? (r.source_id === MANIFEST_SOURCE ? 'manifest' : r.source_id),
        kind: r.source_kind ?? r.doc_type,
        authorship: r.authorship,
        document: r.document,
        version: r.version,
        retrieved_at: r.retrieved_at,
        subjects: [],
      };
      entry.subjects.push(r.subject);
      bySource.set(r.source_id, entry);
    }
    const retrieved = mine.map((r) => r.retrieved_at).filter(Boolean).sort((a, b) => b - a)[0] ?? null;
    out.set(id, {
      layer: 'authority',
      held: true,
      tier: subjects.length === AUTHORITY_SUBJECTS.length ? 'full' : 'partial',
      last_retrieved_at: retrieved,
      subjects,
      subjects_not_held: AUTHORITY_SUBJECTS.filter((s) => !subjects.includes(s)),
      source: [...bySource.values()],
    });
  }
  return out;
}

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
