// GET /rule (spec 4.2): every rule at a location on a date, each number cited; an interval
// as_of answers segment[]; an as_of before retained history is refused unless as_of_clamp.
import { ApiError } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import type { Queryable } from '../../store/db.ts';
import { authorities } from '../../store/place/law.ts';
import { timeParams } from '../../core/query/index.ts';
import { FIELD_PARAM } from '../fields.ts';
import { GEOMETRY_BODY, geometryParam, LOCATION_PARAMS } from '../location/params.ts';
import { asOfBlock, coverageBlock, earliestRetained, jurisdictionBlock, knownUses, type PlaceContext, placeContextFor, placeKey, resolutionBlock, settledNotice } from '../place/common.ts';
import type { Services } from '../services.ts';
import { ruleAt } from '../place/rule.ts';
import { segmentsOver } from '../place/segments.ts';
import { heldLayers } from '../place/held.ts';
import { includesNotConsulted, ruleIncludes } from '../place/includes.ts';
import { defineRoutes, type Route } from '../route.ts';
import { answerThrough, authorityItems } from './place.ts';

const INCLUDES = ['definition', 'moratorium', 'standalone_ordinance', 'special_district', 'context_layer', 'future_land_use', 'private_restriction', 'nonconformity', 'aggregate', 'provenance'] as const;
const LAW_LAYERS = ['zoning_text', 'district_map', 'overlay', 'ordinance'];
/** Layers whose facts are stated per district: a location too coarse to place in one reaches none of them. */
const DISTRICT_LAYERS = ['zoning_text', 'district_map', 'overlay'];

/**
 * The control types the contract names (spec 4.2), with the types Landlex reads codes into:
 * an interior side setback is a side setback the code does not qualify as on a street.
 */
const CONTRACT_CONTROL_TYPES: Record<string, string[]> = {
  'dimensional.setback_front': ['dimensional.setback_front'],
  'dimensional.setback_side_interior': ['dimensional.setback_side'],
  'dimensional.setback_side_street': ['dimensional.setback_street_side'],
  'dimensional.setback_rear': ['dimensional.setback_rear'],
};

/**
 * control_type values as the store's types. A value is known when the contract names it or a
 * code held states it (any jurisdiction, any time); anything else is 422 vocabulary_value_unknown.
 */
async function knownControlTypes(db: Queryable, types: string[] | undefined): Promise<string[] | undefined> {
  if (!types?.length) return types;
  for (const t of types) {
    if (!/^[a-z_]+(\.[a-z0-9_]+)+$/.test(t)) throw new ApiError('vocabulary_value_unknown', { field: 'control_type', detail: `${JSON.stringify(t)} is not a control type (dotted, e.g. dimensional.setback_front)` });
  }
  const asked = types.filter((t) => !(t in CONTRACT_CONTROL_TYPES));
  const { rows } = await db.query('SELECT t FROM unnest($1::text[]) AS t WHERE NOT EXISTS (SELECT 1 FROM control c WHERE c.control_type = t)', [asked]);
  if (rows.length) {
    const unknown = rows.map((r) => JSON.stringify(r.t)).join(', ');
    throw new ApiError('vocabulary_value_unknown', {
      field: 'control_type',
      detail: `${unknown} ${rows.length > 1 ? 'are' : 'is'} not a known control type: neither one the contract names (${Object.keys(CONTRACT_CONTROL_TYPES).join(', ')}) nor one that any code held states.`,
    });
  }
  return [...new Set(types.flatMap((t) => [t, ...(CONTRACT_CONTROL_TYPES[t] ?? [])]))];
}

/**
 * Base districts at the location for which the code text held states nothing (no permission, no
 * control): the text was consulted and is silent there, often because the district is regulated
 * elsewhere (a planned development's own ordinance, another chapter).
 */
function silentDistricts(item: Record<string, unknown>) {
  const shares = (item.share ?? []) as Array<{ district: { code: string }; control: unknown[]; permission: unknown[] }>;
  return shares
    .filter((s) => s.control.length === 0 && s.permission.length === 0)
    .map((s) => ({ layer: 'zoning_text', district: s.district.code, reason: `the code text held states no permission or control for district ${s.district.code}` }));
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
    // an interval wholly before retention is answered on the earliest retained date alone
    asOf = asOf.kind === 'instant' ? { ...asOf, date: earliest } : { ...asOf, from: earliest, to: asOf.to < earliest ? earliest : asOf.to };
  }
  // a location too coarse (or ambiguous) for a parcel is answered at the jurisdiction: no district
  const placed = c.resolved.state === 'resolved' && c.resolved.geojson ? c.resolved.geojson : null;
  const q = { jurisdictionId: j.id, geojson: placed, point: placed ? c.resolved.point : null, uses: req.params.use, controlTypes: req.params.control_type, include, heldLayers: held };
  const known = c.times.knownAsOf;
  // what the store holds of the layers not held and the includes asked, and why not (api/place/held.ts)
  const state = await heldLayers(db, j, [...LAW_LAYERS.filter((l) => !held.has(l)), ...include], { asOf: asOf.kind === 'instant' ? asOf.date : asOf.to, knownAsOf: known }, c.frame?.coverage);
  const iq = { jurisdictionId: j.id, geojson: placed, point: q.point, include, held: state };
  const at = async (date: string) => {
    const t = { asOf: date, knownAsOf: known };
    const it: Record<string, unknown> = await ruleAt(db, q, t);
    return { ...it, ...(await ruleIncludes(db, iq, it, t)) };
  };
  let item: Record<string, unknown>;
  let segments = 1;
  if (asOf.kind === 'instant') {
    item = await at(asOf.date);
  } else {
    const s = await segmentsOver(db, j.id, asOf.from, asOf.to, known, at, include.has('standalone_ordinance') ? ['ordinance'] : []);
    segments = s.length;
    item = { segment: s.map((x) => ({ from: x.from, to: x.to, ...x.value })) };
  }
  const coarseReason = `the location ${c.resolved.state === 'ambiguous' ? 'is ambiguous' : `resolves only to a ${c.resolved.grain}`}: it is placed in no district, so the rules stated per district are not consulted`;
  const coarse = placed ? [] : DISTRICT_LAYERS.filter((l) => held.has(l)).map((layer) => ({ layer, reason: coarseReason }));
  item.not_consulted = [
    ...LAW_LAYERS.filter((l) => !held.has(l)).map((layer) => ({ layer, reason: state.get(layer)!.reason! })),
    ...coarse,
    ...(held.has('zoning_text') ? silentDistricts(item) : []),
    ...includesNotConsulted(iq, coarseReason),
  ];
  const block = asOfBlock({ ...c, asOf }, earliestRetained(coverage), segments);
  const notice = [
    ...(segments > 1 ? [{ code: 'as_of_interval_spans_change', severity: 'info', detail: `The rules changed within the interval; the answer has ${segments} segments.`, count: segments, subject: [] }] : []),
    ...(c.settled ? [settledNotice(c.settled)] : []),
  ];
  return {
    item,
    extra: {
      resolution: resolutionBlock(c),
      jurisdiction: jurisdictionBlock(j),
      authority: clamped || asOf.kind === 'interval' ? authorityItems(await authorities(db, j.id, ['zoning'], { asOf: asOf.kind === 'instant' ? asOf.date : asOf.to, knownAsOf: known })) : authorityItems(c.frame!.authorities),
      coverage,
      as_of: clamped ? { ...block, basis: 'clamped', requested: c.asOf.text } : block,
      ...(notice.length ? { notice } : {}),
    },
  };
}

/** The rule answer for parsed location, time and rule parameters (also used by batches). */
export async function ruleAnswer(services: Services, params: Record<string, any>) {
  const controlTypes = await knownControlTypes(services.pool, params.control_type);
  const uses = await knownUses(services.pool, params.use);
  const c = await placeContextFor(services, params);
  if (!c.jurisdiction || !c.frame) {
    // not even the jurisdiction can be named (a street in several): nothing about law is stated
    const extra: Record<string, unknown> = { resolution: resolutionBlock(c), jurisdiction: null, as_of: asOfBlock(c, {}) };
    return { item: null as Record<string, unknown> | null, extra, meta: {}, charge: { keys: [] as string[] }, context: c };
  }
  const answer = await rule({ services, params: { ...params, use: uses, control_type: controlTypes } }, c);
  return { ...answer, meta: { answer_through: c.frame?.through ?? (await answerThrough(services.pool, c.times.knownAsOf)) }, charge: { keys: [placeKey(c)] }, context: c };
}

/** Field selection over the rule answer: the item's sections and the blocks beside it. */
const RULE_FIELDS = { extras: true, known: ['share', 'sliver', 'overlay', 'unlisted_uses', 'moratorium', 'definition', 'standalone_ordinance', 'future_land_use', 'provenance', 'segment', 'not_consulted', 'resolution', 'jurisdiction', 'authority', 'coverage', 'as_of', 'notice'] };

const GET_RULE: Route = {
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
    fields: RULE_FIELDS,
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
      const { context: _c, ...a } = await ruleAnswer(req.services, { ...req.params, geometry: geometryParam(req.params.geometry, req.body) });
      return { ...a, answerId: newId('answer') };
    },
  };

export const ruleRoutes = defineRoutes([
  GET_RULE,
  { ...GET_RULE, id: 'postRule', method: 'POST', summary: 'Every rule at a location, for a geometry too long for a query string', body: GEOMETRY_BODY },
]);
