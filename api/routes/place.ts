// GET /place: what is at a location and who governs it (spec 4.2).
import { newId } from '../../core/ids.ts';
import { timeParams } from '../collection/index.ts';
import { apartSlivers, lawAt } from '../../store/place/law.ts';
import { FIELD_PARAM } from '../fields.ts';
import { GEOMETRY_BODY, geometryParam, LOCATION_PARAMS } from '../location/params.ts';
import { asOfBlock, coverageBlock, earliestRetained, jurisdictionBlock, placeContextFor, resolutionBlock, placeKey, settledNotice } from '../place/common.ts';
import type { Services } from '../services.ts';
import { defineRoutes, type Route } from '../route.ts';
import type { Queryable } from '../../store/db.ts';

const SUBJECTS = ['zoning', 'subdivision', 'building_code', 'fire_code'] as const;
const CONTEXT_TYPES = ['flood_zone', 'wetland', 'service_area', 'utility_territory'] as const;
const INCLUDES = ['authority', 'parcel', 'property', 'assignment', 'special_district', 'context_layer', 'future_land_use', 'boundary'] as const;
/** Field selection over the place answer: the item's sections and the blocks beside it. */
const PLACE_FIELDS = { extras: true, known: ['assignment', 'parcel', 'boundary', 'resolution', 'jurisdiction', 'coverage', 'as_of', 'authority', 'layer'] };

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

async function assignment(db: Queryable, jurisdictionId: string, geojson: string, point: string | null, times: { asOf: string; knownAsOf: string }) {
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

/** The place answer for parsed location, time and include parameters (also used by batches). */
export async function placeAnswer(services: Services, params: Record<string, any>) {
  const c = await placeContextFor(services, params, params.subject ?? ['zoning']);
  const include = new Set<string>(params.include ?? ['authority']);
  const db = services.pool;
  const j = c.jurisdiction;
  const coverage = coverageBlock(c, ['district_map', 'overlay', 'parcel', 'zoning_text']);
  const extra: Record<string, unknown> = {
    resolution: resolutionBlock(c),
    jurisdiction: jurisdictionBlock(j),
    coverage,
    as_of: asOfBlock(c, earliestRetained(coverage)),
  };
  if (j && include.has('authority')) extra.authority = authorityItems(c.frame!.authorities);
  const item: Record<string, unknown> = {};
  const placed = c.resolved.state === 'resolved' && c.resolved.geojson;
  if (include.has('assignment')) item.assignment = placed && j ? await assignment(db, j.id, c.resolved.geojson!, c.resolved.point, c.times) : null;
  if (include.has('parcel')) item.parcel = c.resolved.parcels.map((p) => ({ id: p.id, parcel_key: p.parcel_key, href: `/parcel/${p.id}` }));
  if (include.has('boundary')) item.boundary = placed ? JSON.parse(c.resolved.geojson!) : null;
  const missing = [...include].filter((i) => ['special_district', 'context_layer', 'future_land_use', 'property'].includes(i));
  const layers = [...missing, ...(params.context_type ?? [])].map((layer) => ({ layer, held: false, reason: 'no public source for this layer is held for this jurisdiction' }));
  if (layers.length) extra.layer = layers;
  if (c.settled) extra.notice = [settledNotice(c.settled)];
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
      { name: 'context_type', in: 'query', type: 'array', items: { type: 'string', enum: CONTEXT_TYPES }, description: 'Context layers (none held yet: named in layer[]).' },
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
