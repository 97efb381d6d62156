// GET /place: what is at a location and who governs it (spec 4.2).
import { newId } from '../../core/ids.ts';
import { timeParams } from '../../core/query/index.ts';
import { apartSlivers, lawAt } from '../../store/place/law.ts';
import { FIELD_PARAM } from '../fields.ts';
import { GEOMETRY_BODY, geometryParam, LOCATION_PARAMS } from '../location/params.ts';
import { asOfBlock, coverageBlock, earliestRetained, type JurisdictionRef, jurisdictionBlock, type PlaceContext, placeContextFor, resolutionBlock, placeKey, settledNotice } from '../place/common.ts';
import { futureLandUseAt } from '../place/future-land-use.ts';
import { type Held, heldLayers, isHeldLayer } from '../place/held.ts';
import { PROPERTY_LIMIT, propertiesOn } from '../place/property.ts';
import { segmentsOver } from '../place/segments.ts';
import type { Times } from '../../store/place/resolve.ts';
import type { Services } from '../services.ts';
import { defineRoutes, type Route } from '../route.ts';
import type { Queryable } from '../../store/db.ts';

const SUBJECTS = ['zoning', 'subdivision', 'building_code', 'fire_code'] as const;
const CONTEXT_TYPES = ['flood_zone', 'wetland', 'service_area', 'utility_territory'] as const;
const INCLUDES = ['authority', 'parcel', 'property', 'assignment', 'special_district', 'context_layer', 'future_land_use', 'boundary'] as const;
/** Field selection over the place answer: the item's sections and the blocks beside it. */
const PLACE_FIELDS = { extras: true, known: ['assignment', 'parcel', 'boundary', 'property', 'property_total', 'future_land_use', 'segment', 'notice', 'resolution', 'jurisdiction', 'coverage', 'as_of', 'authority', 'layer'] };

export async function answerThrough(db: Queryable, knownAsOf: string): Promise<number> {
  const { rows } = await db.query('SELECT COALESCE(max(seq), 0)::bigint AS seq FROM change_event WHERE detected_at <= $1::timestamptz', [knownAsOf]);
  return Number(rows[0].seq);
}

export function authorityItems(rows: Array<Record<string, any>>) {
  return rows.map((a) => ({
    id: a.id,
    subject: a.subject,
    jurisdiction: a.jurisdiction_id,
    jurisdiction_key: a.fips_key,
    jurisdiction_path: `/jurisdiction/${a.slug}`,
    legal_name: a.legal_name,
    governing_jurisdiction: a.governing_jurisdiction_id,
    basis: a.basis,
    resolution_basis: 'boundary_match',
    citation: a.citation_id,
    relationship: a.relationship,
    effective_from: a.effective_from,
    effective_through: a.effective_through,
    agency: a.agency,
    status: 'stated',
  }));
}

async function assignment(db: Queryable, jurisdictionId: string, geojson: string, point: string | null, times: Times) {
  const held = await lawAt(db, { jurisdictionId, geojson, point, codeText: false, moratoria: false }, times);
  const { facts, citations: cites } = held;
  // slivers (store/place/law.ts) are left out of the assignment: the parcel is not split there
  return apartSlivers(held.shares).shares.map((s) => {
    const f = facts.get(s.district_id);
    return {
      district: { id: s.district_id, kind: s.kind, code: f?.code_normalized ?? s.code, code_raw: f?.code_raw ?? s.code, local_label: f?.local_label ?? null, type: f?.type ?? null, href: `/jurisdiction/${jurisdictionId}/district/${s.district_id}` },
      share: s.share,
      area_m2: s.area_m2,
      on_boundary: s.on_boundary || undefined,
      contains_point: s.contains_point ?? undefined,
      map_version: s.map_version,
      citation: f?.citation_id ? cites.get(f.citation_id) ?? null : null,
      status: f ? f.status : 'stated',
      effective_from: f?.effective_from ?? null,
    };
  });
}

interface PlaceQuery {
  jurisdiction: JurisdictionRef;
  include: Set<string>;
  /** the location when it is placed (resolved to a shape), else null */
  geojson: string | null;
  point: string | null;
  parcels: string[];
  held: Map<string, Held>;
}

/** The sections of the place answer that are facts in force at one date. */
async function sectionsAt(db: Queryable, q: PlaceQuery, t: Times) {
  const out: Record<string, unknown> = {};
  const j = q.jurisdiction.id;
  if (q.include.has('assignment')) out.assignment = q.geojson ? await assignment(db, j, q.geojson, q.point, t) : null;
  if (q.include.has('property') && q.held.get('property')?.held) {
    const p = await propertiesOn(db, j, q.parcels, t);
    out.property = p.property;
    if (p.total > p.property.length) out.property_total = p.total;
  }
  if (q.include.has('future_land_use') && q.held.get('future_land_use')?.held) out.future_land_use = q.geojson ? await futureLandUseAt(db, j, q.geojson, q.point, t) : null;
  return out;
}

/** layer[]: each layer asked for that the answer cannot give, with why (api/place/held.ts). */
function missingLayers(c: PlaceContext, q: PlaceQuery, contextTypes: string[], last: Record<string, unknown>) {
  const out: Array<{ layer: string; held: boolean; reason: string }> = [];
  for (const layer of ['special_district', 'context_layer', 'future_land_use', 'property']) {
    const h = q.held.get(layer);
    if (q.include.has(layer) && h && !h.held) out.push({ layer, held: false, reason: h.reason! });
  }
  for (const type of contextTypes) out.push({ layer: type, held: false, reason: q.held.get('context_layer')!.reason! });
  const r = c.resolved;
  if (q.held.get('future_land_use')?.held && q.include.has('future_land_use') && !q.geojson) out.push({ layer: 'future_land_use', held: true, reason: `the location ${r.state === 'ambiguous' ? 'is ambiguous' : `resolves only to a ${r.grain}`}: it is placed in no area` });
  if (q.held.get('property')?.held && q.include.has('property') && (last.property as unknown[]).length === 0) {
    out.push({
      layer: 'property',
      held: true,
      reason: q.parcels.length
        ? `no property record held for ${q.jurisdiction.name} is on parcel ${r.parcels.map((p) => p.parcel_key || p.id).join(', ')} in force on ${c.times.asOf} as known at ${c.times.knownAsOf}`
        : `the location ${r.state === 'ambiguous' ? 'is ambiguous' : `resolves to ${/^[aeiou]/.test(r.grain) ? 'an' : 'a'} ${r.grain}`}, not a parcel: property records are held per parcel`,
    });
  }
  return out;
}

/** The place answer for parsed location, time and include parameters (also used by batches). */
export async function placeAnswer(services: Services, params: Record<string, any>) {
  const c = await placeContextFor(services, params, params.subject ?? ['zoning']);
  const include = new Set<string>(params.include ?? ['authority']);
  const db = services.pool;
  const j = c.jurisdiction;
  const coverage = coverageBlock(c, ['district_map', 'overlay', 'parcel', 'zoning_text', ...(include.has('property') ? ['assessor'] : []), ...(include.has('future_land_use') ? ['future_land_use'] : [])]);
  const extra: Record<string, unknown> = { resolution: resolutionBlock(c), jurisdiction: jurisdictionBlock(j), coverage };
  if (j && include.has('authority')) extra.authority = authorityItems(c.frame!.authorities);
  const item: Record<string, unknown> = {};
  const placed = c.resolved.state === 'resolved' && c.resolved.geojson ? c.resolved.geojson : null;
  if (include.has('parcel')) item.parcel = c.resolved.parcels.map((p) => ({ id: p.id, parcel_key: p.parcel_key, href: `/parcel/${p.id}` }));
  if (include.has('boundary')) item.boundary = placed ? JSON.parse(placed) : null;
  let segments = 1;
  const notice: unknown[] = [];
  if (j) {
    const contextTypes: string[] = params.context_type ?? [];
    const asked = [...include, ...(contextTypes.length ? ['context_layer'] : [])].filter(isHeldLayer);
    const held = await heldLayers(db, j, asked, c.times, c.frame?.coverage);
    const q: PlaceQuery = { jurisdiction: j, include, geojson: placed, point: placed ? c.resolved.point : null, parcels: c.resolved.parcels.map((p) => p.id), held };
    let last: Record<string, unknown>;
    if (c.asOf.kind === 'instant') {
      last = await sectionsAt(db, q, c.times);
      Object.assign(item, last);
    } else {
      const known = c.times.knownAsOf;
      const s = await segmentsOver(db, j.id, c.asOf.from, c.asOf.to, known, (date) => sectionsAt(db, q, { asOf: date, knownAsOf: known }), include.has('property') ? ['property'] : []);
      segments = s.length;
      item.segment = s.map((x) => ({ from: x.from, to: x.to, ...x.value }));
      last = s[s.length - 1].value;
      if (segments > 1) notice.push({ code: 'as_of_interval_spans_change', severity: 'info', detail: `What is at the place changed within the interval; the answer has ${segments} segments.`, count: segments, subject: [] });
    }
    const layers = missingLayers(c, q, contextTypes, last);
    if (layers.length) extra.layer = layers;
    if (typeof last.property_total === 'number') notice.push({ code: 'property_truncated', severity: 'info', detail: `${last.property_total} property records are on the parcels; the first ${PROPERTY_LIMIT} are embedded.`, count: last.property_total, subject: q.parcels });
  } else if (include.has('assignment')) item.assignment = null;
  extra.as_of = asOfBlock(c, earliestRetained(coverage), segments);
  if (c.settled) notice.push(settledNotice(c.settled));
  if (notice.length) extra.notice = notice;
  return { item, extra, meta: { answer_through: c.frame?.through ?? (await answerThrough(db, c.times.knownAsOf)) }, charge: { keys: [placeKey(c)] }, context: c };
}

const GET_PLACE: Route = {
    id: 'getPlace',
    method: 'GET',
    path: '/place',
    summary: 'What is at a location and who governs it',
    tag: 'Ask about a place',
    credential: 'key',
    scope: 'place:read',
    form: 'plain',
    dryRun: true,
    price: { credits: 1, per: 'call', note: 'One credit per place.' },
    fields: PLACE_FIELDS,
    params: [
      ...LOCATION_PARAMS,
      { name: 'subject', in: 'query', type: 'array', items: { type: 'string', enum: SUBJECTS }, default: ['zoning'], description: 'Subjects whose authority is asked.' },
      { name: 'context_type', in: 'query', type: 'array', items: { type: 'string', enum: CONTEXT_TYPES }, description: 'Context layers; those not held are named in layer[] with why.' },
      { name: 'include', in: 'query', type: 'array', items: { type: 'string', enum: INCLUDES }, default: ['authority'], description: 'Sections to embed.' },
      ...timeParams(),
      FIELD_PARAM,
    ],
    handler: async (req) => {
      const { context: _c, ...a } = await placeAnswer(req.services, { ...req.params, geometry: geometryParam(req.params.geometry, req.body) });
      return { ...a, answerId: newId('answer') };
    },
  };

export const placeRoutes = defineRoutes([
  GET_PLACE,
  { ...GET_PLACE, id: 'postPlace', method: 'POST', summary: 'What is at a location and who governs it, for a geometry too long for a query string', body: GEOMETRY_BODY },
]);
