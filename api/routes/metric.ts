// GET /metric (spec 4.3 "other searches"): metrics computed from what is held, per jurisdiction in
// one scope, on one date as known at one instant, each with its derivation (what was counted, from
// which tables, as of when, what was left out) and never an estimate: where the layers a metric
// reads are not held, it is withheld with the reason, not zero.
import { invalid } from '../../core/errors.ts';
import { openCursor } from '../../core/query/cursor.ts';
import { collectionParams, runCollection, timeParams } from '../../core/query/index.ts';
import { resolveScope, SCOPE_PARAMS } from '../../core/query/scope.ts';
import { ALLOWING_LEVELS, type Computed, computeMetric, layersHeld, METRIC_DEFS, METRICS, type MetricName, type MetricOptions, metricResource, metricWhere, type Place, usesCovered } from '../../store/search/metrics.ts';
import { searchTimes } from '../../store/search/when.ts';
import { knownUses } from '../place/common.ts';
import { defineRoutes } from '../route.ts';
import { datesOf, knownOf, searchExtra } from '../search/items.ts';
import { METRIC } from './records-schemas.ts';

type Row = Record<string, any>;

/** Why a metric is not stated for a jurisdiction: the layers it reads that are not held. */
function notHeld(name: MetricName, held: Set<string>): string | null {
  const d = METRIC_DEFS[name];
  const missing = (d.all ?? []).filter((l) => !held.has(l));
  if (missing.length) return `the ${missing.join(' and ')} layer${missing.length > 1 ? 's are' : ' is'} not held`;
  if (d.any && !d.any.some((l) => held.has(l))) return `none of the ${d.any.join(', ')} layers is held`;
  return null;
}

function metricItem(r: Row, place: Place, known: string, o: MetricOptions, held: Set<string>, c: Computed | undefined) {
  const name = r.metric as MetricName;
  const d = METRIC_DEFS[name];
  const derivation = { statement: d.statement(place, known, o), tables: d.tables, counted: d.counted(o), excluded: c?.excluded ?? {}, as_of: place.date, known_as_of: known, sql: d.sql };
  const base = { metric: name, jurisdiction: { id: r.j_id, name: r.j_name, slug: r.j_slug, href: `/jurisdiction/${r.j_id}` }, unit: d.unit, as_of: place.date, known_as_of: known };
  const missing = notHeld(name, held);
  if (missing) return { ...base, status: 'withheld', value: null, reason: `${missing} for ${r.j_name}: this metric would read it, and is not stated rather than counted as zero. GET /coverage?jurisdiction=${r.j_id} says what is held.`, derivation };
  if (name === 'assessed_value_median' && (c?.value === null || c?.value === undefined)) {
    return { ...base, status: 'withheld', value: null, reason: `no property of ${r.j_name} on record on ${place.date} states a total assessed value`, group: c?.group ?? [], derivation };
  }
  return { ...base, status: 'stated', value: c?.value ?? 0, group: c?.group ?? [], ...(c?.note ? { note: c.note } : {}), derivation };
}

export const metricRoutes = defineRoutes([
  {
    id: 'listMetrics',
    method: 'GET',
    path: '/metric',
    summary: 'Metrics computed from held data, per jurisdiction in one scope, each with its derivation; never an estimate',
    description: `One item per jurisdiction and metric (${METRICS.join(', ')}), on the date asked (as_of, one date; each jurisdiction's own) as known at known_as_of: value and unit, group[] where the metric is grouped (by kind, level, district code, fiscal year, record kind or state), and derivation: the statement, the tables read, what was counted, what was left out (excluded) and the SQL. A metric whose layers are not held for a jurisdiction is status withheld with the reason. district_allowing_use needs use (a slug or use_ id; its narrower uses are matched too) and takes level (default every level that allows: ${ALLOWING_LEVELS.join(', ')}).`,
    tag: 'Search across towns',
    credential: 'key',
    scope: 'law:read',
    form: 'plain',
    collection: true,
    dryRun: true,
    response: METRIC,
    fields: { fixed: ['metric'] },
    price: { credits: 1, per: 'call', note: 'One credit per page.' },
    params: [
      { name: 'metric', in: 'query', type: 'array', items: { type: 'string', enum: METRICS }, description: 'Default every metric (district_allowing_use only with use).' },
      { name: 'use', in: 'query', type: 'string', description: 'For district_allowing_use: a vocabulary slug or use_ id.' },
      { name: 'level', in: 'query', type: 'array', items: { type: 'string', enum: ALLOWING_LEVELS }, description: 'For district_allowing_use: the levels that count as allowing.' },
      ...timeParams(),
      ...SCOPE_PARAMS,
      ...collectionParams(metricResource),
    ],
    handler: async (req) => {
      const db = req.services.pool;
      const p = req.params;
      const [slug] = (await knownUses(db, p.use ? [p.use] : undefined)) ?? [];
      const metrics: string[] = p.metric ?? METRICS.filter((m) => m !== 'district_allowing_use' || slug);
      if (metrics.includes('district_allowing_use') && !slug) throw invalid('use', 'district_allowing_use counts the districts allowing a use: name it with use');
      const scope = await resolveScope(db, p, { organizationId: req.actor?.organizationId, asOf: p.as_of });
      const pinned = p.cursor ? openCursor(p.cursor, req.services.secret).t : null;
      const t = await searchTimes(db, p, scope.ids, pinned);
      if (t.interval) throw invalid('as_of', 'a metric is counted on one date: give a date or an instant, not an interval');
      const o: MetricOptions = { levels: p.level ?? [...ALLOWING_LEVELS], ...(slug ? { use: { slug, covered: await usesCovered(db, slug) } } : {}) };
      const r = await runCollection(db, metricResource, p, req.services.secret, { snapshot: t.known, where: metricWhere(scope.ids, metrics) });
      const ids = [...new Set(r.items.map((i) => i.j_id as string))];
      const places = new Map(r.items.map((i) => [i.j_id as string, { id: i.j_id, name: i.j_name, date: datesOf(t, i.j_id).from }]));
      const held = await layersHeld(db, ids);
      const computed = new Map<string, Map<string, Computed>>();
      for (const m of new Set(r.items.map((i) => i.metric as MetricName))) {
        const want = [...places.values()].filter((pl) => r.items.some((i) => i.j_id === pl.id && i.metric === m) && !notHeld(m, held.get(pl.id)!));
        const values = new Map<string, Computed>();
        // each jurisdiction at its own knowledge instant (before a load in flight there)
        for (const k of new Set(want.map((pl) => knownOf(t, pl.id)))) {
          for (const [j, v] of await computeMetric(db, m, want.filter((pl) => knownOf(t, pl.id) === k), k, o)) values.set(j, v);
        }
        computed.set(m, values);
      }
      const item = r.items.map((i) => metricItem(i, places.get(i.j_id)!, knownOf(t, i.j_id), o, held.get(i.j_id)!, computed.get(i.metric)?.get(i.j_id)));
      const { coverage: _c, layer: _l, ...extra } = searchExtra(t, { block: {}, layer: [] });
      return { item, page: r.page, extra };
    },
  },
]);
