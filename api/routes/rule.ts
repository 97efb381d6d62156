// GET /rule (spec 4.2): every rule at a location on a date, each number cited; an interval
// as_of answers segment[]; an as_of before retained history is refused unless as_of_clamp.
import { ApiError } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import type { Queryable } from '../../store/db.ts';
import { authorities } from '../../store/place/law.ts';
import { timeParams } from '../collection/index.ts';
import { FIELD_PARAM } from '../fields.ts';
import { LOCATION_PARAMS } from '../location/params.ts';
import { asOfBlock, coverageBlock, earliestRetained, jurisdictionBlock, type PlaceContext, placeContextFor, resolutionBlock, placeKey } from '../place/common.ts';
import type { Services } from '../services.ts';
import { ruleAt } from '../place/rule.ts';
import { segmentsOver } from '../place/segments.ts';
import { defineRoutes } from '../route.ts';
import { answerThrough, authorityItems } from './place.ts';

const INCLUDES = ['definition', 'moratorium', 'standalone_ordinance', 'special_district', 'context_layer', 'future_land_use', 'private_restriction', 'nonconformity', 'aggregate', 'provenance'] as const;
const NOT_HELD_INCLUDES = ['definition', 'special_district', 'context_layer', 'future_land_use', 'private_restriction', 'nonconformity'];
const LAW_LAYERS = ['zoning_text', 'district_map', 'overlay', 'ordinance'];

async function checkUses(db: Queryable, uses: string[] | undefined) {
  if (!uses?.length) return;
  const { rows } = await db.query('SELECT slug FROM use_term WHERE slug = ANY($1) OR id = ANY($1)', [uses]);
  const known = new Set(rows.map((r) => r.slug));
  const unknown = uses.filter((u) => !known.has(u) && !rows.some((r) => `use_${r.slug}` === u));
  if (unknown.length) throw new ApiError('vocabulary_value_unknown', { field: 'use', detail: `${unknown.join(', ')} ${unknown.length > 1 ? 'are' : 'is'} not in the uses vocabulary (GET /vocabulary/use lists it).` });
}

/** The earliest date any answering layer retains; before it the law is not known to us. */
function retentionStart(coverage: Awaited<ReturnType<typeof coverageBlock>>): string | null {
  const dates = Object.values(earliestRetained(coverage));
  return dates.length ? dates.sort()[0] : null;
}

async function rule(req: { services: Services; params: Record<string, any> }, c: PlaceContext) {
  const db = req.services.pool;
  const j = c.jurisdiction!;
  const coverage = coverageBlock(c, LAW_LAYERS);
  const held = new Set(Object.entries(coverage!.layer).filter(([, v]) => (v as { held: boolean }).held).map(([k]) => k));
  const include = new Set<string>(req.params.include ?? []);
  const earliest = retentionStart(coverage);
  let asOf = c.asOf;
  let clamped = false;
  const from = asOf.kind === 'instant' ? asOf.date : asOf.from;
  if (earliest && from < earliest) {
    if (!req.params.as_of_clamp) {
      throw new ApiError('as_of_before_retention', { field: 'as_of', detail: `History for ${j.name} is retained from ${earliest}; ${from} is before it. Send as_of_clamp=true to answer from ${earliest}.` });
    }
    clamped = true;
    asOf = asOf.kind === 'instant' ? { ...asOf, date: earliest } : { ...asOf, from: earliest };
  }
  const q = { jurisdictionId: j.id, geojson: c.resolved.geojson!, uses: req.params.use, controlTypes: req.params.control_type, include, heldLayers: held };
  const known = c.times.knownAsOf;
  let item: Record<string, unknown>;
  let segments = 1;
  if (asOf.kind === 'instant') {
    item = await ruleAt(db, q, { asOf: asOf.date, knownAsOf: known });
  } else {
    const s = await segmentsOver(db, j.id, asOf.from, asOf.to, known, (date) => ruleAt(db, q, { asOf: date, knownAsOf: known }));
    segments = s.length;
    item = { segment: s.map((x) => ({ from: x.from, to: x.to, ...x.value })) };
  }
  const notConsulted = [
    ...LAW_LAYERS.filter((l) => !held.has(l)).map((layer) => ({ layer, reason: 'no public source for this layer is held for this jurisdiction' })),
    ...[...include].filter((i) => NOT_HELD_INCLUDES.includes(i)).map((layer) => ({ layer, reason: 'not held for any jurisdiction yet' })),
  ];
  item.not_consulted = notConsulted;
  const block = asOfBlock({ ...c, asOf }, earliestRetained(coverage), segments);
  return {
    item,
    extra: {
      resolution: resolutionBlock(c),
      jurisdiction: jurisdictionBlock(j),
      authority: clamped || asOf.kind === 'interval' ? authorityItems(await authorities(db, j.id, ['zoning'], { asOf: asOf.kind === 'instant' ? asOf.date : asOf.to, knownAsOf: known })) : authorityItems(c.frame!.authorities),
      coverage,
      as_of: clamped ? { ...block, basis: 'clamped', requested: c.asOf.text } : block,
      ...(segments > 1 ? { notice: [{ code: 'as_of_interval_spans_change', severity: 'info', detail: `The rules changed within the interval; the answer has ${segments} segments.`, count: segments, subject: [] }] } : {}),
    },
  };
}

/** The rule answer for parsed location, time and rule parameters (also used by batches). */
export async function ruleAnswer(services: Services, params: Record<string, any>) {
  for (const [i, t] of (params.control_type ?? []).entries()) {
    if (!/^[a-z_]+(\.[a-z0-9_]+)+$/.test(t)) throw new ApiError('vocabulary_value_unknown', { field: `control_type[${i}]`, detail: `${JSON.stringify(t)} is not a control type (dotted, e.g. dimensional.setback_front)` });
  }
  await checkUses(services.pool, params.use);
  const c = await placeContextFor(services, params);
  const base = { resolution: resolutionBlock(c), jurisdiction: jurisdictionBlock(c.jurisdiction) };
  if (!c.jurisdiction || c.resolved.state !== 'resolved' || !c.resolved.geojson) {
    // too coarse or ambiguous: the answer at the grain that can be defended, no district assignment
    return { item: null as Record<string, unknown> | null, extra: { ...base, as_of: asOfBlock(c, {}) } as Record<string, unknown>, meta: {}, charge: { keys: [] as string[] }, context: c };
  }
  const answer = await rule({ services, params }, c);
  return { ...answer, meta: { answer_through: c.frame?.through ?? (await answerThrough(services.pool, c.times.knownAsOf)) }, charge: { keys: [placeKey(c)] }, context: c };
}

export const ruleRoutes = defineRoutes([
  {
    id: 'getRule',
    method: 'GET',
    path: '/rule',
    summary: 'Every rule at a location on a date, each number cited',
    tag: 'Ask about a place',
    credential: 'key',
    scope: 'place:read',
    form: 'plain',
    dryRun: true,
    price: { credits: 1, per: 'call', note: 'One credit per place.' },
    params: [
      ...LOCATION_PARAMS,
      ...timeParams(),
      { name: 'as_of_clamp', in: 'query', type: 'boolean', default: false, description: 'Answer from the earliest retained version instead of refusing.' },
      { name: 'use', in: 'query', type: 'array', maxItems: 50, description: 'Only permissions for these uses (vocabulary slugs; a parent slug covers its children).' },
      { name: 'control_type', in: 'query', type: 'array', maxItems: 50, description: 'Only these controls, e.g. dimensional.setback_front.' },
      { name: 'include', in: 'query', type: 'array', items: { type: 'string', enum: INCLUDES } },
      FIELD_PARAM,
    ],
    handler: async (req) => {
      const { context: _c, ...a } = await ruleAnswer(req.services, { ...req.params, geometry: req.params.geometry ?? req.body?.geometry });
      return { ...a, answerId: newId('answer') };
    },
  },
]);
