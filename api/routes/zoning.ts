// Zoning in the /v1 form (spec 4.7): the classifications in force at a place (base first, then
// overlays) or a government's legend; allowances and standards by include; GeoJSON by format or
// Accept, Geobuf by Accept. A use the ordinance never names is absent from allowances: that is
// not a prohibition.
import { ApiError, invalid, notFound } from '../../core/errors.ts';
import { GEOBUF_TYPE } from '../../core/geobuf.ts';
import { isId } from '../../core/ids.ts';
import { parseBbox } from '../../core/query/bbox.ts';
import { timeParams } from '../../core/query/index.ts';
import { PROVISIONAL_ZONE, resolveTimes, type TimeSpec } from '../../core/time.ts';
import type { Queryable } from '../../store/db.ts';
import { heldFor, lastAmendments, mapCitations } from '../../store/district-standing.ts';
import { type CitationView, citationsByIds } from '../../store/evidence.ts';
import { containment } from '../../store/jurisdictions.ts';
import { loadFrame } from '../../store/place/frame.ts';
import { apartSlivers, controlsFor, districtShares, permissionsFor, type Share, sliverView, unlistedUseRule } from '../../store/place/law.ts';
import { resolveLocation, type Times } from '../../store/place/resolve.ts';
import { acceptedFeatureForm, type FeatureForm, featureAnswer } from '../features.ts';
import { coverageBlock, knownUses, settledNotice, settleKnown } from '../place/common.ts';
import { continueWalk, type ListWalk, listSignature, pageAfter } from '../place/pages.ts';
import { adoptionView, appliesOverView, precedenceView } from '../place/standing.ts';
import { inOwnZone, type ResolvedTimes } from '../place/zone.ts';
import { defineRoutes, type Req } from '../route.ts';
import { type ProposedChange, proposedChanges } from '../town/proposed.ts';
import { jurisdictionByRef } from './jurisdiction.ts';

const RESULT: Record<string, string> = { by_right: 'permitted', permitted_with_standards: 'permitted', administrative_approval: 'conditional', conditional_use: 'conditional', prohibited: 'prohibited', unknown: 'unknown' };
const INCLUDES = ['allowance', 'standard', 'geometry'] as const;
const zon = (districtId: string) => `zon_${districtId.slice(4)}`;
const dst = (zoningId: string) => `dst_${zoningId.slice(4)}`;

/** The parameters that decide the list: a cursor is used with the same ones (include and format only shape it). */
const LIST_PARAMS = ['address', 'lat', 'lon', 'parcel', 'bbox', 'jurisdiction', 'fips', 'code', 'kind', 'use', 'result', 'legal_status', 'as_of', 'known_as_of'];

const inline = (c: CitationView | undefined) => (c ? { id: c.id, section: c.section_ref, passage: c.quote, url: c.href, effective: c.effective_from } : null);

interface ZoningRow {
  id: string;
  jurisdiction_id: string;
  kind: string;
  code_normalized: string;
  local_label: string | null;
  type: string | null;
  purpose: string | null;
  section_ref: string | null;
  precedence_rank: number | null;
  citation_id: string | null;
  effective_from: string;
  effective_to: string | null;
  source_url: string | null;
  source_kind: string;
  retrieved_at: string;
  area_m2: number | null;
  geometry: string | null;
}

async function districtsWhere(db: Queryable, where: string, params: unknown[], t: Times, withGeometry: boolean): Promise<ZoningRow[]> {
  const { rows } = await db.query(
    `SELECT DISTINCT ON (d.id) d.id, d.jurisdiction_id, d.kind, d.code_normalized, d.local_label, d.type, d.purpose, d.section_ref, d.precedence_rank,
            d.citation_id, lower(d.valid)::text AS effective_from, upper(d.valid)::text AS effective_to, doc.url_canonical AS source_url, s.kind AS source_kind,
            v.retrieved_at,
            (SELECT sum(ST_Area(a.geom::geography)) FROM district_area a WHERE a.district_id = d.id AND a.valid @> $1::date AND a.known @> $2::timestamptz) AS area_m2,
            ${withGeometry ? `(SELECT ST_AsGeoJSON(ST_Multi(ST_Union(a.geom)), 7) FROM district_area a WHERE a.district_id = d.id AND a.valid @> $1::date AND a.known @> $2::timestamptz)` : 'NULL'} AS geometry
       FROM district d JOIN source s ON s.id = d.source_id
       LEFT JOIN document_version v ON v.id = d.source_version_id LEFT JOIN document doc ON doc.id = v.document_id
      WHERE d.valid @> $1::date AND d.known @> $2::timestamptz AND (${where})
      ORDER BY d.id, CASE s.kind WHEN 'code_text' THEN 0 WHEN 'district_list' THEN 1 ELSE 2 END`,
    [t.asOf, t.knownAsOf, ...params],
  );
  return rows;
}

/** A classification of a list before its page is read in full. */
interface Listed {
  id: string;
  kind: string;
  code: string;
}

/** A government's legend in force: base first, then overlays, each by code. */
async function legend(db: Queryable, jurisdictionId: string, t: Times, kind: string | null, code: string | null): Promise<Listed[]> {
  const { rows } = await db.query(
    `SELECT DISTINCT d.id, d.kind, d.code_normalized AS code FROM district d
      WHERE d.jurisdiction_id = $1 AND d.valid @> $2::date AND d.known @> $3::timestamptz
        AND ($4::text IS NULL OR d.kind = $4) AND ($5::text IS NULL OR d.code_normalized = upper($5))`,
    [jurisdictionId, t.asOf, t.knownAsOf, kind, code],
  );
  return (rows as Listed[]).sort((a, b) => a.kind.localeCompare(b.kind) || a.code.localeCompare(b.code) || a.id.localeCompare(b.id));
}

async function zoningObjects(req: Req, rows: ZoningRow[], t: Times, use?: string) {
  const db = req.services.pool;
  const include = new Set<string>(req.params.include ?? []);
  const ids = rows.map((r) => r.id);
  const permissions = include.has('allowance') || use ? await permissionsFor(db, ids, t, use ? [use] : undefined) : [];
  const controls = include.has('standard') ? await controlsFor(db, ids, t) : [];
  const jurisdictions = [...new Set(rows.map((r) => r.jurisdiction_id))];
  const unlisted = new Map(await Promise.all(jurisdictions.map(async (j) => [j, await unlistedUseRule(db, j, t)] as const)));
  const standing = new Map(
    await Promise.all(
      jurisdictions.map(async (j) => {
        const own = rows.filter((r) => r.jurisdiction_id === j).map((r) => ({ id: r.id, code: r.code_normalized }));
        return [j, { held: await heldFor(db, j, t), amendments: await lastAmendments(db, j, own, t) }] as const;
      }),
    ),
  );
  const mapCites = await mapCitations(db, rows.filter((r) => r.kind === 'overlay' && r.area_m2 !== null).map((r) => r.id), t);
  const adopters = [...standing.values()].flatMap((s) => [...s.amendments.values()].map((a) => a.citation_id));
  const cites = await citationsByIds(db, [...rows.map((r) => r.citation_id), ...permissions.map((p) => p.citation_id), ...controls.map((c) => c.citation_id), ...[...unlisted.values()].map((u) => u?.citation_id), ...adopters, ...mapCites.values()]);
  const js = new Map<string, Record<string, any>>();
  for (const j of jurisdictions) {
    const { rows: jr } = await db.query('SELECT id, name, type, fips_key FROM jurisdiction WHERE id = $1', [j]);
    js.set(j, { id: jr[0].id, name: jr[0].name, type: jr[0].type, fips: jr[0].fips_key, href: `/jurisdiction/${jr[0].id}`, within: await containment(db, j) });
  }
  return rows.map((r) => {
    const j = js.get(r.jurisdiction_id)!;
    const allowances = permissions
      .filter((p) => p.district_id === r.id)
      .map((p) => ({ use: { code: p.use_slug ?? p.use_label_raw, name: p.use_name ?? p.use_label_raw, category: p.use_slug?.split('.')[0] ?? null }, result: RESULT[p.level], qualification: p.conditions, process: p.process, symbol: p.symbol, citation: inline(cites.get(p.citation_id)) }));
    const u = unlisted.get(r.jurisdiction_id);
    const s = standing.get(r.jurisdiction_id)!;
    const d = { code: r.code_normalized, kind: r.kind, precedence_rank: r.precedence_rank, source_kind: r.source_kind };
    const c = { jurisdiction: j.name, held: s.held, asOf: t.asOf };
    const adoption = adoptionView(d, c, s.amendments.get(r.id), (id) => inline(cites.get(id ?? '')));
    const obj: Record<string, unknown> = {
      object: 'zoning',
      id: zon(r.id),
      code: r.code_normalized,
      name: r.local_label,
      kind: r.kind,
      applies_over: r.kind === 'overlay' ? appliesOverView(d, c, r.area_m2 !== null, inline(cites.get(mapCites.get(r.id) ?? ''))) : null,
      precedence: precedenceView(d, c),
      jurisdiction: { id: j.id, name: j.name, type: j.type, fips: j.fips, href: j.href },
      within: j.within.map((w: Record<string, string>) => ({ id: w.id, name: w.name, tier: w.level, type: w.type, fips: w.fips_key })),
      category: { code: r.type, description: r.type ? r.type.replace(/_/g, ' ') : null },
      purpose: r.purpose,
      ordinance: { citation: inline(cites.get(r.citation_id ?? '')), section: r.section_ref, url: r.source_url, adopted: adoption.adopted, adopted_by: adoption.adopted_by, effective: r.effective_from, withheld: adoption.withheld },
      effective: { from: r.effective_from, to: r.effective_to },
      legal_status: 'adopted',
      mapped_area_m2: r.area_m2 === null ? null : Math.round(r.area_m2),
      unlisted_uses: u ? { result: u.result, process: u.process, citation: inline(cites.get(u.citation_id)) } : null,
      sources: [{ kind: r.source_kind, url: r.source_url, acquired: r.retrieved_at ? new Date(r.retrieved_at).toISOString() : null }],
      as_of: t.asOf,
      href: `/v1/zoning/${zon(r.id)}`,
    };
    if (include.has('allowance')) obj.allowances = allowances;
    if (include.has('standard')) {
      obj.standards = controls.filter((c) => c.district_id === r.id).map((c) => ({ type: c.control_type, value: { min: c.min, max: c.max, unit: c.unit }, text: c.value_text, qualification: [c.building_type, c.qualifier, c.conditions].filter(Boolean).join('; ') || null, citation: inline(cites.get(c.citation_id)) }));
    }
    if (include.has('geometry')) obj.geometry = r.geometry ? JSON.parse(r.geometry) : null;
    return { obj, allowances };
  });
}

/** GeoJSON or Geobuf by Accept (api/features.ts), unless format is named: format=geojson is GeoJSON, format=json as before. */
function featureForm(req: Req): FeatureForm | null {
  if (req.ctx.query.format === undefined) return acceptedFeatureForm(req);
  req.ctx.vary('Accept');
  return req.params.format === 'geojson' || /application\/geo\+json/.test(req.ctx.get('accept')) ? 'geojson' : null;
}

function feature(o: Record<string, unknown>) {
  const { geometry, ...properties } = o;
  return { type: 'Feature', id: o.id, geometry: geometry ?? null, properties };
}

/** One date (in the zone the answer's jurisdiction keeps) and one knowledge instant. */
function atOneDate(t: ResolvedTimes): Times {
  if (t.asOf.kind === 'interval') throw invalid('as_of', 'zoning answers at one date; ask /rule or a district for an interval');
  return { asOf: t.asOf.date, knownAsOf: t.knownAsOf.kind === 'instant' ? t.knownAsOf.instant : t.knownAsOf.end };
}

const times = (params: { as_of?: TimeSpec; known_as_of?: TimeSpec }, tz: string): Times => atOneDate(resolveTimes(params, tz));

/** The knowledge instant settled for a jurisdiction's loads in flight (api/place/common.ts). */
async function settled(db: Queryable, t: Times, jurisdictionId: string) {
  const s = await settleKnown(db, { kind: 'instant', instant: t.knownAsOf, date: t.knownAsOf.slice(0, 10), text: '', basis: 'requested' }, [jurisdictionId]);
  return s.settled ? { t: { ...t, knownAsOf: s.settled.instant }, notice: settledNotice(s.settled) } : { t, notice: null };
}

export const zoningRoutes = defineRoutes([
  {
    id: 'listZoning',
    refuses: ['not_available'],
    method: 'GET',
    path: '/v1/zoning',
    summary: 'Zoning classifications in force at a place (base first, then overlays), or a government’s legend',
    tag: 'Zoning',
    credential: 'key',
    scope: 'place:read',
    form: 'v1',
    collection: true,
    dryRun: true,
    produces: ['application/geo+json', GEOBUF_TYPE],
    price: { credits: 1, per: 'call', repeatFreeHours: 24, note: 'At a place: one credit per place, free again for a day; a legend is charged as a page.' },
    params: [
      { name: 'address', in: 'query', type: 'string' },
      { name: 'lat', in: 'query', type: 'number', min: -90, max: 90 },
      { name: 'lon', in: 'query', type: 'number', min: -180, max: 180 },
      { name: 'parcel', in: 'query', type: 'string' },
      { name: 'bbox', in: 'query', type: 'string' },
      { name: 'jurisdiction', in: 'query', type: 'string' },
      { name: 'fips', in: 'query', type: 'string' },
      { name: 'code', in: 'query', type: 'string' },
      { name: 'kind', in: 'query', type: 'string', enum: ['base', 'overlay'] },
      { name: 'use', in: 'query', type: 'string' },
      { name: 'result', in: 'query', type: 'string', enum: ['permitted', 'conditional', 'prohibited', 'unknown'] },
      { name: 'legal_status', in: 'query', type: 'string', enum: ['adopted', 'proposed'], default: 'adopted' },
      { name: 'include', in: 'query', type: 'array', items: { type: 'string', enum: INCLUDES } },
      { name: 'format', in: 'query', type: 'string', enum: ['json', 'geojson'], default: 'json' },
      ...timeParams(),
      { name: 'cursor', in: 'query', type: 'string' },
      { name: 'size', in: 'query', type: 'integer', min: 1, max: 200, default: 25 },
      { name: 'total', in: 'query', type: 'boolean', default: false },
    ],
    handler: async (req) => {
      const p = req.params;
      const db = req.services.pool;
      if (p.result && !p.use) throw invalid('result', 'result filters the answer for a use: send use as well');
      if ((p.lat === undefined) !== (p.lon === undefined)) throw invalid(p.lat === undefined ? 'lat' : 'lon', 'lat and lon go together');
      if (p.code && !p.jurisdiction && !p.fips) throw invalid('code', 'a district code needs jurisdiction or fips');
      // a use the vocabulary does not hold is refused, never answered as "no classification speaks of it"
      const use = p.use ? (await knownUses(db, [p.use]))![0] : undefined;
      atOneDate(resolveTimes(req.params, PROVISIONAL_ZONE)); // an interval is refused before any lookup
      const placeGiven = p.address || p.lat !== undefined || p.parcel || p.bbox;
      // a later page reads the list at the date and instant its first page pinned
      const walk: ListWalk = { resource: 'zoning', order: placeGiven ? 'place' : 'legend', filter: listSignature(p, LIST_PARAMS) };
      const pinned = continueWalk(p.cursor, req.services.secret, walk);
      const tp = pinned ? { as_of: { form: 'date' as const, date: pinned.asOf, text: pinned.asOf }, known_as_of: { form: 'instant' as const, instant: pinned.knownAsOf, text: pinned.knownAsOf } } : req.params;
      const withGeometry = (p.include ?? []).includes('geometry');
      let t: Times;
      let list: Listed[];
      let rows: ZoningRow[] = [];
      let chargeKey: string | null = null;
      let jurisdictionId: string;
      let notice: Array<Record<string, unknown>> = [];
      let atPlace: Map<string, Share> | null = null;
      let sliver: unknown[] | null = null;
      if (placeGiven) {
        const geometry = p.bbox ? (() => { const [w, s, e, n] = parseBbox(p.bbox); return JSON.stringify({ type: 'Polygon', coordinates: [[[w, s], [e, s], [e, n], [w, n], [w, s]]] }); })() : undefined;
        const input = { address: p.address, point: p.lat !== undefined ? { lat: p.lat, lon: p.lon } : undefined, parcel: p.parcel ? [p.parcel] : undefined, geometry };
        const placed = await inOwnZone(db, tp, (z) => resolveLocation(db, input, atOneDate(z)), (x) => x.jurisdiction);
        t = atOneDate(placed.times);
        let r = placed.found;
        if (r.jurisdiction) {
          const s = await settled(db, t, r.jurisdiction);
          if (s.notice) {
            t = s.t;
            notice = [s.notice];
            r = await resolveLocation(db, input, t);
          }
        }
        if (r.state !== 'resolved' || !r.geojson || !r.jurisdiction) throw new ApiError(r.state === 'ambiguous' ? 'location_ambiguous' : 'location_insufficient_precision', { field: p.address ? 'address' : 'location', detail: r.detail ?? `the location resolves to a ${r.grain}` });
        jurisdictionId = r.jurisdiction;
        const { shares, slivers } = apartSlivers(await districtShares(db, r.jurisdiction, r.geojson, t, r.point));
        if (slivers.length) sliver = slivers.map(sliverView);
        if (shares.length === 0) throw new ApiError('not_available', { detail: `No zoning map in force on ${t.asOf} (${placed.timezone}) is held for this place.` });
        rows = await districtsWhere(db, 'd.id = ANY($3::text[])', [shares.map((s) => s.district_id)], t, withGeometry);
        // in the order of the shares: base first, the point's own first, then the largest share
        const order = new Map(shares.map((s, i) => [s.district_id, i]));
        rows.sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0));
        list = rows.map((x) => ({ id: x.id, kind: x.kind, code: x.code_normalized }));
        atPlace = new Map(shares.map((s) => [s.district_id, s]));
        chargeKey = `zoning:${r.parcels.map((x) => x.id).join('+') || r.geojson}`;
      } else {
        if (!p.jurisdiction && !p.fips) throw invalid('jurisdiction', 'name a place (address, lat and lon, parcel, bbox) or a jurisdiction for its legend');
        const j = p.jurisdiction ? await jurisdictionParam(db, p.jurisdiction) : await fipsJurisdiction(db, p.fips);
        jurisdictionId = j.id;
        t = times(tp, j.timezone);
        const s = await settled(db, t, j.id);
        if (s.notice) {
          t = s.t;
          notice = [s.notice];
        }
        list = await legend(db, j.id, t, p.kind ?? null, p.code ?? null);
        if (list.length === 0 && !p.code) throw new ApiError('not_available', { detail: `No zoning is published for ${j.name} in what Landlex holds.` });
      }
      if (p.kind) list = list.filter((r) => r.kind === p.kind);
      let extra: Record<string, unknown> = {};
      let proposed: Awaited<ReturnType<typeof proposedChanges>> | null = null;
      if (p.legal_status === 'proposed') {
        // the classifications an instruction of a pending amendment would change, checked against the law held
        const pending = await pendingOrdinances(db, jurisdictionId, t);
        proposed = await proposedChanges(db, jurisdictionId, t, pending, async (ids) => {
          const m = await citationsByIds(db, ids);
          return (id) => inline(m.get(id ?? ''));
        });
        const changed = proposed.byDistrict;
        list = list.filter((x) => changed.has(x.id));
        const read = proposed.read;
        const views = proposed.views;
        extra = { pending_ordinance: pending.map((o) => ({ ...o, text_read: read.has(o.id), instruction: views.get(o.id) ?? [] })) };
        notice.push(pendingNotice(pending, t.asOf, read, changed.size));
      }
      if (use) {
        const speaks = (await permissionsFor(db, list.map((x) => x.id), t, [use])).filter((a) => !p.result || RESULT[a.level] === p.result);
        const ids = new Set(speaks.map((a) => a.district_id));
        list = list.filter((x) => ids.has(x.id));
      }
      const { page, nextCursor } = pageAfter(list, (x) => x.id, p.size ?? 25, pinned?.after ?? null, { walk, asOf: t.asOf, knownAsOf: t.knownAsOf, secret: req.services.secret });
      const onPage = new Set(page.map((x) => x.id));
      if (placeGiven) rows = rows.filter((x) => onPage.has(x.id));
      else {
        const at = new Map(page.map((x, i) => [x.id, i]));
        rows = (await districtsWhere(db, 'd.id = ANY($3::text[])', [[...onPage]], t, withGeometry)).sort((a, b) => at.get(a.id)! - at.get(b.id)!);
      }
      const out = await zoningObjects(req, rows, t, use);
      if (proposed) for (const o of out) asProposed(o.obj, proposed.byDistrict.get(dst(String(o.obj.id))) ?? [], t.asOf);
      // at a place: the share of it each classification covers, and whether it covers the point asked
      for (const o of out) {
        const s = atPlace?.get(o.obj.id === undefined ? '' : dst(String(o.obj.id)));
        if (s) Object.assign(o.obj, { share: s.share, ...(s.contains_point === null ? {} : { contains_point: s.contains_point }) });
      }
      const data = out.map((o) => o.obj);
      if (notice.length) extra.notice = notice;
      if (sliver) extra.sliver = sliver;
      extra.coverage = await zoningCoverage(db, jurisdictionId, t);
      const charge = chargeKey ? { keys: [chargeKey] } : { keys: [`legend:${req.ctx.querystring}:${Date.now()}`] };
      const total = p.total && !pinned ? { total: { value: list.length, relation: 'eq' } } : {};
      const form = featureForm(req);
      if (form) return featureAnswer(form, { type: 'FeatureCollection', features: data.map(feature), has_more: nextCursor !== null, next_cursor: nextCursor, ...total, ...extra }, charge);
      return { item: data, hasMore: nextCursor !== null, nextCursor, page: total, extra, charge };
    },
  },
  {
    id: 'getZoning',
    method: 'GET',
    path: '/v1/zoning/{zoning_id}',
    summary: 'One zoning classification; unlisted_uses always included',
    tag: 'Zoning',
    credential: 'key',
    scope: 'place:read',
    form: 'v1',
    dryRun: true,
    produces: ['application/geo+json', GEOBUF_TYPE],
    price: { credits: 1, per: 'call', repeatFreeHours: 24, note: 'One credit; repeats within a day are free.' },
    params: [
      { name: 'zoning_id', in: 'path', type: 'string', required: true },
      { name: 'include', in: 'query', type: 'array', items: { type: 'string', enum: INCLUDES } },
      { name: 'format', in: 'query', type: 'string', enum: ['json', 'geojson'], default: 'json' },
      ...timeParams(),
    ],
    handler: async (req) => {
      const id: string = req.params.zoning_id;
      if (!isId('zoning', id)) throw new ApiError('id_malformed', { field: 'zoning_id', detail: `${JSON.stringify(id)} is not a zon_ id` });
      const withGeometry = (req.params.include ?? []).includes('geometry');
      const db = req.services.pool;
      const placed = await inOwnZone(db, req.params, (z) => districtsWhere(db, 'd.id = $3', [dst(id)], atOneDate(z), withGeometry), (x) => x[0]?.jurisdiction_id);
      let t = atOneDate(placed.times);
      let rows = placed.found;
      if (rows[0]) {
        const s = await settled(req.services.pool, t, rows[0].jurisdiction_id);
        if (s.notice) {
          t = s.t;
          rows = await districtsWhere(req.services.pool, 'd.id = $3', [dst(id)], t, withGeometry);
        }
      }
      if (!rows[0]) throw notFound('zoning classification', id);
      const [{ obj }] = await zoningObjects(req, rows, t);
      const charge = { keys: [`zoning:${id}`] };
      const form = featureForm(req);
      if (form) return featureAnswer(form, feature(obj), charge);
      // a v1 object stands alone: it carries the coverage of its jurisdiction itself
      return { item: { ...obj, coverage: await zoningCoverage(req.services.pool, rows[0].jurisdiction_id, t) }, charge };
    },
  },
]);

/** The coverage block of the layers a classification is read from (rule 1.2.4), for the jurisdiction answered. */
async function zoningCoverage(db: Queryable, jurisdictionId: string, t: Times) {
  const frame = await loadFrame(db, jurisdictionId, ['zoning'], t);
  return coverageBlock({ jurisdiction: { ...frame.jurisdiction, href: `/jurisdiction/${jurisdictionId}` }, frame }, ['zoning_text', 'district_list', 'district_map', 'overlay']);
}

interface PendingOrdinance {
  id: string;
  number: string | null;
  title: string;
  kind: string;
  status: string;
  introduced_on: string | null;
  adopted_on: string | null;
  effective_from: string | null;
  citation: ReturnType<typeof inline>;
}

/**
 * Text and map amendments pending at as_of (as known then): introduced or proposed and not
 * adopted by as_of. One adopted later was still pending then; a failed one is left out (the date
 * it failed is not held).
 */
async function pendingOrdinances(db: Queryable, jurisdictionId: string, t: Times): Promise<PendingOrdinance[]> {
  const { rows } = await db.query(
    `SELECT o.id, o.number, o.title, o.kind, o.status, o.introduced_on::text, o.adopted_on::text, o.effective_from::text, o.citation_id FROM (
       SELECT DISTINCT ON (o.id) o.id, o.number, o.title, o.kind, o.status, o.introduced_on, o.adopted_on, o.effective_from, o.citation_id
         FROM ordinance o
        WHERE o.jurisdiction_id = $1 AND o.known @> $3::timestamptz AND o.kind IN ('text_amendment', 'map_amendment')
        ORDER BY o.id, upper_inf(o.valid) DESC, lower(o.valid) DESC) o
      WHERE (o.introduced_on IS NULL OR o.introduced_on <= $2::date)
        AND (o.status IN ('proposed', 'introduced') OR (o.status = 'adopted' AND o.introduced_on IS NOT NULL AND o.adopted_on > $2::date))
      ORDER BY o.introduced_on NULLS LAST, o.number`,
    [jurisdictionId, t.asOf, t.knownAsOf],
  );
  const cites = await citationsByIds(db, rows.map((r) => r.citation_id));
  return rows.map((r) => ({
    id: r.id,
    number: r.number,
    title: r.title,
    kind: r.kind,
    status: r.adopted_on && r.adopted_on > t.asOf ? 'introduced' : r.status,
    introduced_on: r.introduced_on,
    adopted_on: r.adopted_on && r.adopted_on <= t.asOf ? r.adopted_on : null,
    effective_from: r.adopted_on && r.adopted_on <= t.asOf ? r.effective_from : null,
    citation: inline(cites.get(r.citation_id)),
  }));
}

function pendingNotice(pending: PendingOrdinance[], asOf: string, read: Set<string>, changed: number) {
  const unread = pending.filter((o) => !read.has(o.id));
  const named = unread.map((o) => `${o.number ?? o.id} (${o.title}; ${o.kind.replace('_', ' ')}, ${o.status}${o.introduced_on ? ` ${o.introduced_on}` : ''})`);
  return {
    code: unread.length ? 'proposed_text_not_read' : 'proposed_classifications',
    severity: 'info',
    detail: !pending.length
      ? `No amendment that would change classifications was pending on ${asOf}, as far as the ordinances held show.`
      : `${pending.length} ${pending.length === 1 ? 'amendment was' : 'amendments were'} pending on ${asOf}; ${changed} ${changed === 1 ? 'classification' : 'classifications'} would change by the instructions read from their texts (each listed in pending_ordinance with what became of it).${unread.length ? ` The own text of ${named.join('; ')} is not held, so what ${unread.length === 1 ? 'it' : 'they'} would change is not known.` : ''}`,
    count: pending.length,
    subject: pending.map((o) => o.id),
  };
}

/** A classification as a pending amendment would make it: the changes, applied to its standards where they are shown. */
function asProposed(obj: Record<string, unknown>, changes: ProposedChange[], asOf: string) {
  obj.legal_status = 'proposed';
  obj.effective = { from: null, to: null };
  const withheld = [{ field: 'effective', reason: `Pending on ${asOf}: not adopted, so no date it would take effect is stated.` }];
  if (changes.some((c) => c.field_path === 'geometry')) {
    obj.mapped_area_m2 = null;
    if ('geometry' in obj) obj.geometry = null;
    withheld.push(...changes.flatMap((c) => c.withheld ?? []).filter((w) => w.field === 'geometry'));
  }
  const standards = obj.standards as Array<{ type: string; value: unknown; text: string }> | undefined;
  for (const c of changes) {
    const standard = standards?.find((s) => `standards.${s.type}` === c.field_path && s.text === (c.current as { text?: string })?.text);
    const to = c.proposed as { value: unknown; text: string | null };
    if (standard) Object.assign(standard, { value: to.value, text: to.text, proposed: true });
  }
  obj.proposed = { changes, withheld };
}

// A query parameter that names nothing is 422 naming it (rules 1.2.3, 1.2.4); 404 is for path ids.
async function fipsJurisdiction(db: Queryable, fips: string) {
  if (!/^\d{2}(\d{3})?$/.test(fips)) throw invalid('fips', 'a Census GEOID of 2 (state) or 5 (county) digits');
  const level = fips.length === 2 ? 'state' : 'county';
  const { rows } = await db.query('SELECT id, name, timezone FROM jurisdiction WHERE fips_key = $1', [`us:${level}:${fips}`]);
  if (!rows[0]) throw invalid('fips', `No ${level} with the GEOID ${fips} is held.`);
  return rows[0] as { id: string; name: string; timezone: string };
}

async function jurisdictionParam(db: Queryable, ref: string) {
  try {
    return await jurisdictionByRef(db, ref, 'jurisdiction');
  } catch (e) {
    if (e instanceof ApiError && e.code === 'no_such_resource') throw invalid('jurisdiction', `No jurisdiction is held as ${JSON.stringify(ref)}.`);
    throw e;
  }
}
