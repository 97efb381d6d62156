// Parcels (spec 4.2): find parcels, one parcel, and the /v1 batch of up to 500 locators. Found
// parcels and one parcel come as GeoJSON or Geobuf features when Accept asks (api/features.ts).
import { notFound } from '../../core/errors.ts';
import { GEOBUF_TYPE } from '../../core/geobuf.ts';
import { requireId } from '../../core/ids.ts';
import { parseBbox } from '../../core/query/bbox.ts';
import { collectionParams, type ResourceDef, runCollection, type SqlContext, timeParams } from '../../core/query/index.ts';
import { resolveTimes, type TimeInstant } from '../../core/time.ts';
import type { Queryable } from '../../store/db.ts';
import { resolveLocation, type Times, withinBoth, withinFips, withinJurisdiction } from '../../store/place/resolve.ts';
import { acceptedFeatureForm, featureAnswer, GEOJSON_TYPE } from '../features.ts';
import { FIELD_PARAM, selectFields } from '../fields.ts';
import { pointTimes } from '../place/common.ts';
import { inOwnZone } from '../place/zone.ts';
import { defineRoutes } from '../route.ts';
import { PARCEL } from '../schemas.ts';
import { jurisdictionByRef } from './jurisdiction.ts';

const SQ_FT_PER_M2 = 10.763910417;
const COLUMNS = `p.id, p.jurisdiction_id, p.parcel_key, p.apn, p.attributes, p.map_version_id, p.area_m2, p.geom_sha256,
  lower(p.valid)::text AS effective_from, upper(p.valid)::text AS effective_through`;

const parcels: ResourceDef = {
  name: 'parcel',
  from: 'parcel p',
  id: 'p.id',
  select: `${COLUMNS}, ST_AsGeoJSON(p.geom, 7) AS geometry`,
  defaultSort: 'parcel_key',
  fields: {
    parcel_key: { sql: 'p.parcel_key', type: 'string', sortable: true, nullable: false },
    apn: { sql: 'p.apn', type: 'string' },
    area_m2: { sql: 'p.area_m2', type: 'number', sortable: true },
  },
};

export function parcelItem(r: Record<string, any>) {
  return {
    id: r.id,
    object: 'parcel',
    jurisdiction: r.jurisdiction_id,
    parcel_key: r.parcel_key,
    number: r.parcel_key,
    apn: r.apn,
    area: r.area_m2 === null ? { value: null, unit: 'sq_ft', status: 'withheld', reason: 'the publisher’s polygon has no area' } : { value: Math.round(r.area_m2 * SQ_FT_PER_M2), unit: 'sq_ft', basis: 'computed from the published polygon' },
    acres: r.area_m2 === null ? null : Math.round((r.area_m2 / 4046.8564224) * 1000) / 1000,
    attributes: r.attributes,
    map_version: r.map_version_id,
    effective_from: r.effective_from,
    effective_through: r.effective_through,
    geometry: r.geometry ? JSON.parse(r.geometry) : null,
    href: `/parcel/${r.id}`,
  };
}

/** A parcel as a GeoJSON Feature: its polygon as the geometry, the fields shown as properties. */
function parcelFeature(item: Record<string, unknown>, shown: Record<string, unknown>) {
  const { geometry: _geometry, ...properties } = shown;
  return { type: 'Feature', id: item.id, geometry: item.geometry, properties };
}

async function parcelById(db: Queryable, id: string, t: Times) {
  const { rows } = await db.query(
    `SELECT ${COLUMNS}, ST_AsGeoJSON(p.geom, 7) AS geometry FROM parcel p WHERE p.id = $1 AND p.known @> $2::timestamptz
      ORDER BY p.valid @> $3::date DESC, upper_inf(p.valid) DESC LIMIT 1`,
    [id, t.knownAsOf, t.asOf],
  );
  return rows[0] ?? null;
}

const LOCATOR = {
  type: 'object',
  additionalProperties: false,
  properties: {
    address: { type: 'string', minLength: 1, maxLength: 500 },
    apn: { type: 'string', minLength: 1, maxLength: 100 },
    jurisdiction: { type: 'string', minLength: 1, maxLength: 100 },
    fips: { type: 'string', minLength: 1, maxLength: 10 },
    lat: { type: 'number', minimum: -90, maximum: 90 },
    lon: { type: 'number', minimum: -180, maximum: 180 },
    parcel: { type: 'string', minLength: 1, maxLength: 40 },
  },
};

/** One locator of a batch: every entry is answered, a bad one with status invalid. */
async function locate(db: Queryable, l: Record<string, any>, zones: Map<string, string>) {
  const ways = ['address', 'apn', 'parcel', 'lat'].filter((k) => l[k] !== undefined);
  if ((l.lat === undefined) !== (l.lon === undefined)) return { status: 'invalid', detail: 'lat and lon go together' };
  if (ways.length !== 1) return { status: 'invalid', detail: ways.length ? `name the parcel one way, not ${ways.join(' and ')}` : 'name the parcel: address, apn, parcel or lat and lon' };
  try {
    // jurisdiction and fips narrow every locator: a place outside them is unmatched
    const named = l.jurisdiction ? await withinJurisdiction(db, (await jurisdictionByRef(db, l.jurisdiction, 'jurisdiction')).id) : null;
    const within = withinBoth(named, l.fips ? await withinFips(db, l.fips) : null) ?? undefined;
    const input = { address: l.address, apn: l.apn, parcel: l.parcel ? [l.parcel] : undefined, point: l.lat !== undefined ? { lat: l.lat, lon: l.lon } : undefined, within };
    // today in the parcel's own jurisdiction
    const placed = await inOwnZone(db, {}, (z) => resolveLocation(db, input, pointTimes(z.asOf, z.knownAsOf)), (x) => x.jurisdiction, zones);
    const r = placed.found;
    const t = pointTimes(placed.times.asOf, placed.times.knownAsOf);
    // several parcels fit (best first, the detail says why); several places named alike name no parcel
    if (r.state === 'ambiguous' && r.candidates.some((c) => c.parcel)) return { status: 'ambiguous', candidates: r.candidates.length, detail: r.detail, candidate: r.candidates };
    if (r.parcels.length !== 1) return { status: 'unmatched', candidates: 0, detail: r.detail ?? `the location resolves to a ${r.grain}, not one parcel` };
    const row = await parcelById(db, r.parcels[0].id, t);
    return { status: 'matched', candidates: 1, match: { method: ways[0] === 'lat' ? 'point_in_polygon' : ways[0], precision: r.precision }, parcel: parcelItem(row) };
  } catch (err) {
    const e = err as { code?: string; detail?: string; status?: number };
    if (e.status === 404 || e.code === 'location_unmatched') return { status: 'unmatched', candidates: 0, detail: e.detail };
    if (e.status === 422) return { status: 'invalid', detail: e.detail };
    throw err;
  }
}

export const parcelRoutes = defineRoutes([
  {
    id: 'listParcels',
    method: 'GET',
    path: '/parcel',
    summary: 'Find parcels in a jurisdiction (by key, APN or bounding box)',
    tag: 'Ask about a place',
    credential: 'key',
    scope: 'place:read',
    form: 'plain',
    collection: true,
    dryRun: true,
    price: { credits: 1, per: 'call', note: 'One credit per page.' },
    response: PARCEL,
    produces: [GEOJSON_TYPE, GEOBUF_TYPE],
    fields: { default: ['id', 'object', 'jurisdiction', 'parcel_key', 'number', 'apn', 'area', 'acres', 'map_version', 'effective_from', 'effective_through', 'href'], fixed: ['id'] },
    params: [
      { name: 'jurisdiction', in: 'query', type: 'string', required: true, description: 'jur_ id, slug or fips_key.' },
      { name: 'parcel_key', in: 'query', type: 'array', maxItems: 200 },
      { name: 'apn', in: 'query', type: 'array', maxItems: 200 },
      { name: 'bbox', in: 'query', type: 'string', description: 'west,south,east,north (WGS 84).' },
      ...timeParams(),
      ...collectionParams(parcels),
      FIELD_PARAM,
    ],
    handler: async (req) => {
      const db = req.services.pool;
      const p = req.params;
      const j = await jurisdictionByRef(db, p.jurisdiction, 'jurisdiction');
      const times = resolveTimes(p, j.timezone);
      const bbox = p.bbox ? parseBbox(p.bbox) : null;
      const r = await runCollection(db, parcels, p, req.services.secret, {
        snapshot: times.knownAsOf.basis === 'requested' ? (times.knownAsOf as TimeInstant).instant : null,
        where: [
          (c) => `p.jurisdiction_id = ${c.bind(j.id)}`,
          (c) => `p.known @> ${c.snapshot} AND p.valid @> ${times.asOf.basis === 'requested' ? c.bind((times.asOf as TimeInstant).date, 'date') : `(${c.snapshot} AT TIME ZONE ${c.bind(j.timezone)})::date`}`,
          ...(p.parcel_key ? [(c: SqlContext) => `p.parcel_key = ANY(${c.bind(p.parcel_key, 'text[]')})`] : []),
          ...(p.apn ? [(c: SqlContext) => `p.apn = ANY(${c.bind(p.apn, 'text[]')})`] : []),
          ...(bbox ? [(c: SqlContext) => `p.geom && ST_MakeEnvelope(${c.bind(bbox[0], 'float8')}, ${c.bind(bbox[1], 'float8')}, ${c.bind(bbox[2], 'float8')}, ${c.bind(bbox[3], 'float8')}, 4326)`] : []),
        ],
        map: parcelItem,
      });
      const form = acceptedFeatureForm(req);
      if (form) {
        // properties are the fields the JSON form shows; the polygon is the geometry whatever they are
        const shown = selectFields(r.items, p.field, req.route.fields!) as Array<Record<string, unknown>>;
        return featureAnswer(form, { type: 'FeatureCollection', features: r.items.map((x, i) => parcelFeature(x, shown[i])), page: r.page });
      }
      return { item: r.items, page: r.page };
    },
  },
  {
    id: 'getParcel',
    method: 'GET',
    path: '/parcel/{parcel}',
    summary: 'One parcel with its polygon',
    tag: 'Ask about a place',
    credential: 'key',
    scope: 'place:read',
    form: 'plain',
    dryRun: true,
    price: { credits: 1, per: 'call', note: 'One credit.' },
    response: PARCEL,
    produces: [GEOJSON_TYPE, GEOBUF_TYPE],
    params: [{ name: 'parcel', in: 'path', type: 'string', required: true }, ...timeParams(), FIELD_PARAM],
    handler: async (req) => {
      const id = requireId('parcel', req.params.parcel, 'parcel');
      const db = req.services.pool;
      const placed = await inOwnZone(db, req.params, (z) => parcelById(db, id, pointTimes(z.asOf, z.knownAsOf)), (x) => x?.jurisdiction_id);
      const t = pointTimes(placed.times.asOf, placed.times.knownAsOf);
      const row = placed.found;
      if (!row) throw notFound('parcel', id);
      const props = await req.services.pool.query(`SELECT DISTINCT id FROM property WHERE $1 = ANY(parcel_ids) AND known @> $2::timestamptz`, [id, t.knownAsOf]);
      const item = { ...parcelItem(row), property: props.rows.map((r) => r.id) };
      const form = acceptedFeatureForm(req);
      if (form) return featureAnswer(form, parcelFeature(item, item));
      return { item };
    },
  },
  {
    id: 'batchParcels',
    method: 'POST',
    path: '/v1/parcel/batch',
    summary: 'Up to 500 locators, each answered with its status and best parcel',
    tag: 'Ask about a place',
    credential: 'key',
    scope: 'place:read',
    form: 'v1',
    dryRun: true,
    idempotent: true,
    price: { credits: 1, per: 'item', repeatFreeHours: 24, note: 'One credit per parcel returned; free again for a day; an unmatched locator costs nothing.', estimateUnits: (req) => req.body?.item?.length ?? 0 },
    body: { type: 'object', additionalProperties: false, required: ['item'], properties: { item: { type: 'array', minItems: 1, maxItems: 500, items: LOCATOR } } },
    handler: async (req) => {
      const zones = new Map<string, string>(); // each jurisdiction's timezone, read once per batch
      const items: Array<Record<string, unknown> & { status: string }> = [];
      for (const l of req.body.item as Array<Record<string, unknown>>) items.push({ input: l, ...(await locate(req.services.pool, l, zones)) });
      const count = (s: string) => items.filter((i) => i.status === s).length;
      const keys = items.flatMap((i) => ('parcel' in i && i.parcel ? [`parcel:${(i.parcel as { id: string }).id}`] : []));
      return {
        item: { object: 'parcel_batch', item: items, matched: count('matched'), ambiguous: count('ambiguous'), unmatched: count('unmatched'), invalid: count('invalid') },
        charge: { keys },
      };
    },
  },
]);

