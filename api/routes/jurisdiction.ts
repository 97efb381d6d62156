// Jurisdictions (spec 4.6): the list (bare form, and the /v1 list form) and one by id, slug or fips_key.
import { ApiError, invalid, notFound } from '../../core/errors.ts';
import { requireId } from '../../core/ids.ts';
import { stateFips } from '../../core/states.ts';
import {
  JURISDICTION_LEVELS,
  JURISDICTION_TYPES,
  type JurisdictionRow,
  NAME_SIMILARITY,
  NORMALIZED_NAME,
  agencies,
  containment,
  findJurisdiction,
  jurisdictionItem,
  jurisdictionResource,
  normalizeName,
} from '../../store/jurisdictions.ts';
import { type FilterSet, type Row, type Where, addCondition, collectionParams, runCollection } from '../../core/query/index.ts';
import { FIELD_PARAM } from '../fields.ts';
import type { Param } from '../params.ts';
import { type Req, defineRoutes } from '../route.ts';
import { JURISDICTION } from '../schemas.ts';
import { BODY_SCHEMA, codeBodies } from '../code-bodies.ts';
import type { Queryable } from '../../store/db.ts';

const FIPS_LENGTH: Record<string, number> = { state: 2, county: 5, cousub: 10, place: 7 };
const FIPS_KEY = /^us:(state|county|cousub|place):(\d+)$/;
const ITEM_FIELDS = ['id', 'slug', 'name', 'legal_name', 'type', 'gnis_id', 'population', 'population_year', 'lifecycle_status', 'fips', 'timezone', 'parent', 'href', 'created_at', 'updated_at', 'filter_outcome'];
const RANGES = ['gte', 'lte', 'gt', 'lt'] as const;

const refuse = (name: string, what: string) => (): never => {
  throw new ApiError('not_available', {
    field: name,
    detail: `${name} cannot be evaluated on this list yet (${what}), and an unfiltered list would mislead; leave it out and read GET /coverage for what is held.`,
  });
};

const listParams: Param[] = [
  {
    name: 'q',
    in: 'query',
    type: 'string',
    description: 'Name match, case and punctuation insensitive (contains, or trigram-similar).',
    parse: ([raw], name) => {
      const q = normalizeName(raw);
      if (q === '') throw invalid(name, 'q has no letters or digits');
      if (q.length > 200) throw invalid(name, 'q is longer than 200 characters');
      return q;
    },
  },
  { name: 'state', in: 'query', type: 'string', description: 'Postal code (MA) or 2-digit FIPS (25).', parse: ([raw], name) => stateFips(raw, name) },
  {
    name: 'county',
    in: 'query',
    type: 'string',
    description: "County FIPS: 5 digits, or 3 digits with state; or a county's jur_ id.",
    parse: ([raw], name) => {
      if (raw.startsWith('jur_')) return { id: requireId('jurisdiction', raw, name) };
      if (/^\d{5}$/.test(raw)) return { state: raw.slice(0, 2), county: raw.slice(2) };
      if (/^\d{3}$/.test(raw)) return { county: raw };
      throw invalid(name, `${JSON.stringify(raw)} is not a county: 5-digit FIPS, 3 digits with state, or a jur_ id`);
    },
  },
  { name: 'type', in: 'query', type: 'array', items: { type: 'string', enum: JURISDICTION_TYPES }, description: 'Place type; several are ORed.' },
  { name: 'level', in: 'query', type: 'string', enum: JURISDICTION_LEVELS, description: 'FIPS level.' },
  {
    name: 'fips',
    in: 'query',
    type: 'string',
    description: 'A fips_key (us:<level>:<code>), or a bare code with level.',
    parse: ([raw], name) => {
      const m = FIPS_KEY.exec(raw);
      if (m) {
        if (m[2].length !== FIPS_LENGTH[m[1]]) throw invalid(name, `a ${m[1]} code has ${FIPS_LENGTH[m[1]]} digits`);
        return { level: m[1], code: m[2] };
      }
      if (/^\d{2,10}$/.test(raw)) return { code: raw };
      throw invalid(name, `${JSON.stringify(raw)} is neither a fips_key (us:<level>:<code>) nor a FIPS code`);
    },
  },
  ...RANGES.map((op): Param => ({ name: `population[${op}]`, in: 'query', type: 'integer', min: 0, description: `Population ${op}; rows without population are indeterminate.` })),
  { name: 'has_zoning', in: 'query', type: 'boolean', description: 'Refused (501): coverage is not joined into this list.', parse: refuse('has_zoning', 'whether zoning is held is kept per layer in coverage, not on jurisdictions') },
  { name: 'coverage_tier', in: 'query', type: 'string', description: 'Refused (501): coverage is not joined into this list.', parse: refuse('coverage_tier', 'coverage tiers are kept per layer, not per jurisdiction') },
  ...collectionParams(jurisdictionResource),
  FIELD_PARAM,
];

async function listWhere(req: Req): Promise<Where[]> {
  const p = req.params;
  const w: Where[] = [];
  if (p.q) w.push((c) => `${NORMALIZED_NAME} LIKE '%' || ${c.bind(p.q, 'text')} || '%' OR similarity(${NORMALIZED_NAME}, ${c.bind(p.q, 'text')}) >= ${c.bind(NAME_SIMILARITY, 'real')}`);
  let state: string | undefined = p.state;
  let county: string | undefined;
  if (p.county?.id) {
    const row = await findJurisdiction(req.services.pool, 'id', p.county.id);
    if (!row) throw invalid('county', `No jurisdiction has the id ${p.county.id}.`);
    if (row.level !== 'county') throw invalid('county', `${p.county.id} is a ${row.level}, not a county.`);
    county = row.fips_county!;
    if (state && state !== row.fips_state) throw invalid('county', `${row.name} is not in state ${p.state}.`);
    state = row.fips_state;
  } else if (p.county) {
    if (!p.county.state && !state) throw invalid('county', 'a 3-digit county code needs state; or send the 5-digit FIPS');
    if (p.county.state && state && p.county.state !== state) throw invalid('county', `county ${p.county.state}${p.county.county} is not in state ${state}`);
    state = p.county.state ?? state;
    county = p.county.county;
  }
  if (state) w.push((c) => `j.fips_state = ${c.bind(state)}`);
  if (county) w.push((c) => `j.fips_county = ${c.bind(county)}`);
  if (p.type?.length) w.push((c) => `j.type = ANY(${c.bind(p.type, 'text[]')})`);
  if (p.level) w.push((c) => `j.level = ${c.bind(p.level, 'text')}`);
  if (p.fips) {
    const level = p.fips.level ?? p.level;
    if (!level) throw invalid('fips', 'a bare FIPS code needs level (or send us:<level>:<code>)');
    if (p.fips.level && p.level && p.fips.level !== p.level) throw invalid('fips', `the fips_key is a ${p.fips.level}, level says ${p.level}`);
    if (p.fips.code.length !== FIPS_LENGTH[level]) throw invalid('fips', `a ${level} code has ${FIPS_LENGTH[level]} digits`);
    w.push((c) => `j.fips_key = ${c.bind(`us:${level}:${p.fips.code}`, 'text')}`);
  }
  return w;
}

async function list(req: Req) {
  let filter: FilterSet | undefined = req.params.filter;
  for (const op of RANGES) {
    const v = req.params[`population[${op}]`];
    if (v !== undefined) filter = addCondition(filter, { field: 'population', op, param: `population[${op}]`, operands: [v] });
  }
  return runCollection(req.services.pool, jurisdictionResource, { ...req.params, filter }, req.services.secret, {
    where: await listWhere(req),
    query: req.params.q,
    map: (r: Row) => jurisdictionItem(r as JurisdictionRow),
  });
}

export function resolveRef(raw: string, field = 'id'): ['id' | 'slug' | 'fips_key', string] {
  if (raw.startsWith('jur_')) return ['id', requireId('jurisdiction', raw, field)];
  if (raw.startsWith('us:')) {
    const m = FIPS_KEY.exec(raw);
    if (!m || m[2].length !== FIPS_LENGTH[m[1]]) {
      throw new ApiError('id_malformed', { field, detail: `${JSON.stringify(raw)} is not a fips_key: us:<state|county|cousub|place>:<code of 2, 5, 10 or 7 digits>` });
    }
    return ['fips_key', raw];
  }
  return ['slug', raw];
}

/** The jurisdiction a path names by jur_ id, slug or fips_key; 404 when none. */
export async function jurisdictionByRef(db: Queryable, raw: string, field = 'id') {
  const [by, value] = resolveRef(raw, field);
  const row = await findJurisdiction(db, by, value);
  if (!row) throw notFound('jurisdiction', raw, field);
  return row;
}

const PRICE_PAGE = { credits: 1, per: 'call', note: 'One credit per page.' } as const;
const listRoute = {
  method: 'GET',
  tag: 'Jurisdictions',
  credential: 'key',
  scope: 'law:read',
  collection: true,
  params: listParams,
  price: PRICE_PAGE,
  dryRun: true,
  response: JURISDICTION,
} as const;

export const jurisdictionRoutes = defineRoutes([
  {
    ...listRoute,
    id: 'listJurisdictions',
    refuses: ['not_available'],
    path: '/jurisdiction',
    summary: 'Jurisdictions by name, state, county, type, level, FIPS or population',
    form: 'bare',
    fields: { default: ITEM_FIELDS, fixed: ['id', 'filter_outcome'] },
    handler: async (req) => {
      const { items, page } = await list(req);
      return { item: items, page: { ...page, suppressed: 0 } };
    },
  },
  {
    ...listRoute,
    id: 'listJurisdictionsV1',
    refuses: ['not_available'],
    path: '/v1/jurisdiction',
    summary: 'Jurisdictions in the /v1 list form',
    form: 'v1',
    fields: { default: ['object', ...ITEM_FIELDS], fixed: ['object', 'id', 'href', 'filter_outcome'] },
    handler: async (req) => {
      const { items, page } = await list(req);
      const data = items.map((i) => ({ object: 'jurisdiction', ...i }));
      return { item: data, page: { ...page, suppressed: 0 }, hasMore: page.next_cursor !== null, nextCursor: page.next_cursor };
    },
  },
  {
    id: 'getJurisdiction',
    method: 'GET',
    path: '/jurisdiction/{id}',
    summary: 'One jurisdiction by jur_ id, slug or fips_key',
    tag: 'Jurisdictions',
    credential: 'key',
    scope: 'law:read',
    form: 'plain',
    price: { credits: 1, per: 'call', note: 'One credit per call.' },
    dryRun: true,
    fields: { fixed: ['id'] },
    response: { ...JURISDICTION, properties: { ...(JURISDICTION.properties as object), body: BODY_SCHEMA } },
    params: [
      { name: 'id', in: 'path', type: 'string', required: true, description: 'A jur_ id, a slug or a fips_key (us:<level>:<code>).' },
      { name: 'include', in: 'query', type: 'array', items: { type: 'string', enum: ['agency', 'body', 'containment'] }, description: 'Embedded sections.' },
      FIELD_PARAM,
    ],
    handler: async (req) => {
      const raw: string = req.params.id;
      const [by, value] = resolveRef(raw);
      const db = req.services.pool;
      const row = await findJurisdiction(db, by, value);
      if (!row) throw notFound('jurisdiction', raw);
      const item: Record<string, unknown> = jurisdictionItem(row);
      const include: string[] = req.params.include ?? [];
      const notice: Array<Record<string, unknown>> = [];
      const notHeld = (what: string, detail: string) => notice.push({ code: 'not_held', severity: 'info', detail, count: 0, subject: [what] });
      if (include.includes('containment')) item.containment = await containment(db, row.id);
      if (include.includes('agency')) {
        item.agency = await agencies(db, row.id, row.timezone);
        if ((item.agency as unknown[]).length === 0) notHeld('agency', 'No agency is held for this jurisdiction: no current authority names one.');
      }
      if (include.includes('body')) {
        const read = await codeBodies(db, row);
        item.body = read.body;
        if (read.reason) notHeld('body', `No board, commission or council is read for this jurisdiction: ${read.reason}.`);
      }
      return { item, extra: notice.length ? { notice } : undefined };
    },
  },
]);
