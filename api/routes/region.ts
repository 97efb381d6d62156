// Regions (spec 2.1 rgn_, sta_; 4.0.4): an organization's saved regions, named sets of
// jurisdictions with the dates each is a member, created, listed, read, changed (If-Match with
// the ETag read) and deleted under the organization's credential; and statistical areas, public
// data read only where a source of them is held. Either is a scope resolving at as_of.
import { ApiError, invalid, notFound } from '../../core/errors.ts';
import { newId, requireId } from '../../core/ids.ts';
import type { TimeSpec } from '../../core/time.ts';
import { citationsByIds } from '../../store/evidence.ts';
import {
  deleteRegion,
  getRegion,
  getStatisticalArea,
  inForce,
  insertRegion,
  isNameTaken,
  jurisdictionRefs,
  type Membership,
  type NewMember,
  type RegionRow,
  regionMembers,
  statisticalAreasMissing,
  updateRegion,
} from '../../store/regions.ts';
import { collectionParams, type ResourceDef, runCollection, timeParams, type Where } from '../../core/query/index.ts';
import { etagOf, ifMatch, staleVersion } from '../versioned.ts';
import { defineRoutes, type JsonSchema, type Req } from '../route.ts';

const MAX_MEMBERS = 2000;
const FREE = { credits: 0, per: 'call' as const, note: 'Free.' };
const AS_OF = timeParams().filter((p) => p.name === 'as_of').map((p) => ({ ...p, description: 'The date membership is read on (default now, in each member\'s timezone); an interval reads every member in force on any day of it.' }));
const ID_PARAM = { name: 'region', in: 'path' as const, type: 'string' as const, required: true, description: 'A rgn_ saved region or a sta_ statistical area.' };

const date = { type: ['string', 'null'], format: 'date' };
const MEMBER_IN: JsonSchema = {
  oneOf: [
    { type: 'string', minLength: 1, maxLength: 100, description: 'A jur_ id, slug or fips_key: a member on every date' },
    {
      type: 'object',
      additionalProperties: false,
      required: ['jurisdiction'],
      properties: {
        jurisdiction: { type: 'string', minLength: 1, maxLength: 100, description: 'A jur_ id, slug or fips_key' },
        from: { ...date, description: 'First day of membership (inclusive); absent or null: always before' },
        through: { ...date, description: 'Last day of membership (inclusive); absent or null: still a member' },
      },
    },
  ],
};
const NAME = { type: 'string', minLength: 1, maxLength: 200, pattern: '\\S' };
const DESCRIPTION = { type: ['string', 'null'], maxLength: 2000 };
const MEMBERS = { type: 'array', items: MEMBER_IN, maxItems: MAX_MEMBERS };
const CREATE_BODY: JsonSchema = { type: 'object', additionalProperties: false, required: ['name', 'member'], properties: { name: NAME, description: DESCRIPTION, member: MEMBERS } };
const UPDATE_BODY: JsonSchema = { type: 'object', additionalProperties: false, minProperties: 1, properties: { name: NAME, description: DESCRIPTION, member: { ...MEMBERS, description: 'Replaces every membership' } } };

const JURISDICTION_REF = { type: 'object', required: ['id'], properties: { id: { type: 'string' }, name: { type: 'string' }, slug: { type: 'string' }, fips_key: { type: 'string' }, href: { type: 'string' } } };
const REGION: JsonSchema = {
  type: 'object',
  required: ['id', 'object', 'name', 'href', 'member', 'jurisdiction', 'as_of'],
  properties: {
    id: { type: 'string', pattern: '^(rgn|sta)_' },
    object: { enum: ['region', 'statistical_area'] },
    name: { type: 'string' },
    description: { type: ['string', 'null'] },
    kind: { type: 'string', description: 'statistical_area: the kind its source names (cbsa, csa …)' },
    code: { type: 'string', description: "statistical_area: the source's code" },
    source: { type: 'string' },
    citation: { type: ['object', 'null'] },
    version: { type: 'integer', description: 'region: raised by every change (the ETag carries it)' },
    href: { type: 'string' },
    created_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' },
    member: {
      type: 'array',
      items: { type: 'object', required: ['jurisdiction', 'from', 'through', 'in_force'], properties: { jurisdiction: JURISDICTION_REF, from: date, through: date, in_force: { type: 'boolean', description: 'A member at as_of' } } },
    },
    jurisdiction: { type: 'array', items: { type: 'string' }, description: 'The jurisdictions in the region at as_of: what the region scope reads' },
    as_of: { type: 'object', properties: { requested: { type: 'string' }, basis: { enum: ['requested', 'default'] } } },
  },
};

const regions: ResourceDef = {
  name: 'region',
  from: 'region r',
  id: 'r.id',
  select: 'r.*',
  defaultSort: '-created_at',
  snapshotColumn: 'r.created_at',
  fields: {
    created_at: { sql: 'r.created_at', type: 'timestamp', sortable: true, nullable: false },
    name: { sql: 'r.name', type: 'string', sortable: true, nullable: false },
  },
};

const iso = (t: Date) => new Date(t).toISOString();
const asOfBlock = (spec: TimeSpec | undefined) => ({ requested: spec?.text ?? 'now', basis: spec ? 'requested' : 'default' });

function members(list: Membership[], asOf: TimeSpec | undefined) {
  const member = list.map((m) => ({
    jurisdiction: { id: m.jurisdiction_id, name: m.name, slug: m.slug, fips_key: m.fips_key, href: `/jurisdiction/${m.jurisdiction_id}` },
    from: m.from,
    through: m.through,
    in_force: inForce(m, asOf),
  }));
  return { member, jurisdiction: [...new Set(member.filter((m) => m.in_force).map((m) => m.jurisdiction.id))] };
}

function regionItem(r: RegionRow, list: Membership[], asOf: TimeSpec | undefined) {
  return {
    id: r.id,
    object: 'region',
    name: r.name,
    description: r.description,
    version: r.version,
    href: `/region/${r.id}`,
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
    ...members(list, asOf),
    as_of: asOfBlock(asOf),
  };
}

/** The body's members as rows: every reference held, from ≤ through, no jurisdiction twice on one day. */
async function readMembers(req: Req, input: unknown[]): Promise<NewMember[]> {
  const given = input.map((m) => (typeof m === 'string' ? { jurisdiction: m, from: null, through: null } : (m as { jurisdiction: string; from?: string | null; through?: string | null })));
  const ids = await jurisdictionRefs(req.services.pool, [...new Set(given.map((m) => m.jurisdiction))]);
  const out: NewMember[] = [];
  given.forEach((m, i) => {
    const id = ids.get(m.jurisdiction);
    if (!id) throw invalid(`member[${i}]`, `not a jurisdiction held: ${m.jurisdiction} (give a jur_ id, slug or fips_key)`);
    const from = m.from ?? null;
    const through = m.through ?? null;
    if (from && through && from > through) throw invalid(`member[${i}].through`, `is before from (${from})`);
    const j = out.findIndex((o) => o.jurisdiction_id === id && (o.from === null || through === null || o.from <= through) && (o.through === null || from === null || o.through >= from));
    if (j >= 0) throw invalid(`member[${i}]`, `${m.jurisdiction} is already a member on some of these dates (member[${j}])`);
    out.push({ jurisdiction_id: id, from, through });
  });
  return out;
}

const stale = (id: string) => staleVersion('Region', id, `/region/${id}`);

export const regionRoutes = defineRoutes([
  {
    id: 'listRegions',
    method: 'GET',
    path: '/region',
    summary: "The organization's saved regions, newest first, with their members at as_of",
    tag: 'Regions',
    credential: 'key',
    scope: 'law:read',
    form: 'plain',
    collection: true,
    price: FREE,
    response: REGION,
    params: [...AS_OF, ...collectionParams(regions).filter((p) => ['cursor', 'size', 'sort'].includes(p.name))],
    handler: async (req) => {
      const org = req.actor!.organizationId;
      const where: Where[] = [(c) => `r.organization_id = ${c.bind(org)}`];
      const r = await runCollection<RegionRow>(req.services.pool, regions, req.params, req.services.secret, { where });
      const lists = await regionMembers(req.services.pool, r.items.map((x) => x.id));
      return { item: r.items.map((x) => regionItem(x, lists.get(x.id) ?? [], req.params.as_of)), page: r.page };
    },
  },
  {
    id: 'createRegion',
    method: 'POST',
    path: '/region',
    summary: 'Save a region: a name and its member jurisdictions, each from and through the dates given',
    tag: 'Regions',
    credential: 'key',
    scope: 'alert:write',
    form: 'plain',
    status: 201,
    idempotent: true,
    price: FREE,
    body: CREATE_BODY,
    response: REGION,
    handler: async (req) => {
      const member = await readMembers(req, req.body.member);
      const id = newId('region');
      const row = await insertRegion(req.services.pool, { id, organizationId: req.actor!.organizationId, name: req.body.name.trim(), description: req.body.description ?? null, members: member }).catch((err) => {
        throw isNameTaken(err) ? invalid('name', 'another region of this organization has this name') : err;
      });
      const list = (await regionMembers(req.services.pool, [id])).get(id)!;
      return { status: 201, item: regionItem(row, list, undefined), headers: { Location: `/region/${id}`, ETag: etagOf(row) } };
    },
  },
  {
    id: 'getRegion',
    method: 'GET',
    path: '/region/{region}',
    summary: 'One saved region of the organization, or a statistical area where one is held, with its members at as_of',
    tag: 'Regions',
    credential: 'key',
    scope: 'law:read',
    form: 'plain',
    price: FREE,
    response: REGION,
    refuses: ['not_available'],
    params: [ID_PARAM, ...AS_OF],
    handler: async (req) => {
      const id = requireId(['region', 'statistical_area'], req.params.region, 'region');
      const db = req.services.pool;
      const asOf: TimeSpec | undefined = req.params.as_of;
      if (id.startsWith('sta_')) {
        const missing = await statisticalAreasMissing(db);
        if (missing) throw new ApiError('not_available', { field: 'region', detail: missing });
        const area = await getStatisticalArea(db, id, new Date().toISOString());
        if (!area) throw notFound('statistical area', id, 'region');
        const cite = area.citation_id ? ((await citationsByIds(db, [area.citation_id])).get(area.citation_id) ?? null) : null;
        const item = { id, object: 'statistical_area', kind: area.kind, code: area.code, name: area.name, source: area.source_id, citation: cite, href: `/region/${id}`, ...members(area.member, asOf), as_of: asOfBlock(asOf) };
        return { item };
      }
      const row = await getRegion(db, req.actor!.organizationId, id);
      if (!row) throw notFound('region', id, 'region');
      const list = (await regionMembers(db, [id])).get(id)!;
      return { item: regionItem(row, list, asOf), headers: { ETag: etagOf(row) } };
    },
  },
  {
    id: 'updateRegion',
    method: 'PATCH',
    path: '/region/{region}',
    summary: "Change a saved region's name, description or members (member replaces every membership); If-Match with the ETag read, else 409",
    tag: 'Regions',
    credential: 'key',
    scope: 'alert:write',
    form: 'plain',
    price: FREE,
    body: UPDATE_BODY,
    response: REGION,
    refuses: ['version_conflict'],
    params: [ID_PARAM],
    handler: async (req) => {
      const id = requireId('region', req.params.region, 'region');
      const member = req.body.member ? await readMembers(req, req.body.member) : undefined;
      const change = { name: req.body.name?.trim(), description: req.body.description, members: member };
      const out = await updateRegion(req.services.pool, req.actor!.organizationId, id, ifMatch(req, id), change).catch((err) => {
        throw isNameTaken(err) ? invalid('name', 'another region of this organization has this name') : err;
      });
      if (out === 'missing') throw notFound('region', id, 'region');
      if (out === 'stale') throw stale(id);
      const list = (await regionMembers(req.services.pool, [id])).get(id)!;
      return { item: regionItem(out, list, undefined), headers: { ETag: etagOf(out) } };
    },
  },
  {
    id: 'deleteRegion',
    method: 'DELETE',
    path: '/region/{region}',
    summary: 'Delete a saved region; If-Match with the ETag read, else 409',
    tag: 'Regions',
    credential: 'key',
    scope: 'alert:write',
    form: 'plain',
    status: 204,
    price: FREE,
    refuses: ['version_conflict'],
    params: [ID_PARAM],
    handler: async (req) => {
      const id = requireId('region', req.params.region, 'region');
      const out = await deleteRegion(req.services.pool, req.actor!.organizationId, id, ifMatch(req, id));
      if (out === 'missing') throw notFound('region', id, 'region');
      if (out === 'stale') throw stale(id);
      return { status: 204 };
    },
  },
]);
