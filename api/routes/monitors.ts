// Monitors (spec 2.8, 4.9, /v1 form): one per list of places, sending permit.created and
// case.created for records filed on the list's places, and monitor.parcel.rezoned and
// monitor.rule.amended for changes of the law there, to the organization's subscribed webhooks
// (matching: store/monitors/). Reading takes place:read, changing alert:write (as lists do); all
// free. Another organization's monitor, or its list, is 404.
import { invalid, notFound } from '../../core/errors.ts';
import { newId, requireId } from '../../core/ids.ts';
import { collectionParams, runCollection, type Where } from '../../core/query/index.ts';
import { FREE } from '../plans.ts';
import { ensureMonitor, getMonitor, listMonitors, MATCH_KINDS, MATCHES, type MatchRow, type MonitorRow, setMonitorActive, stopMonitor } from '../../store/monitors.ts';
import { type Answer, defineRoutes, type JsonSchema, type Req } from '../route.ts';

const iso = (t: Date | string) => new Date(t).toISOString();
const href = (id: string) => `/v1/monitor/${id}`;

const MONITOR: JsonSchema = {
  type: 'object',
  required: ['object', 'id', 'list', 'active', 'created_at', 'updated_at', 'href'],
  properties: {
    object: { const: 'monitor' },
    id: { type: 'string', pattern: '^mon_' },
    list: { type: 'string', pattern: '^lst_', description: 'The list watched' },
    active: { type: 'boolean', description: 'false: nothing is matched or sent until it is true again (what happens meanwhile is not sent later)' },
    created_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' },
    href: { type: 'string' },
  },
};

const REF = { type: 'object', properties: { id: { type: 'string' }, href: { type: 'string' } } };
const MATCH: JsonSchema = {
  type: 'object',
  required: ['object', 'kind', 'type', 'record', 'change_event', 'seq', 'item', 'parcel', 'matched_at', 'event'],
  properties: {
    object: { const: 'monitor_match' },
    kind: { type: 'string', enum: [...MATCH_KINDS], description: 'permit (a permit or application), case, or law (a change event)' },
    type: { type: 'string', description: 'The event type sent: permit.created, case.created, monitor.parcel.rezoned, monitor.rule.amended' },
    record: { type: ['object', 'null'], description: 'The permit, application or case (object, id, number, href); null for law', properties: { object: { type: 'string' }, id: { type: 'string' }, number: { type: 'string' }, href: { type: 'string' } } },
    change_event: { type: ['object', 'null'], description: 'The change event (id, seq, layer, kind, href) and the district it is about; null for records' },
    seq: { type: ['integer', 'null'], description: "The change event's seq; null for records" },
    item: { ...REF, description: 'The site of the list matched' },
    parcel: { type: 'array', items: REF, description: 'The parcels of the site the record or change is about' },
    matched_at: { type: 'string', format: 'date-time' },
    event: { type: 'string', pattern: '^evt_', description: 'The webhook event it produced (the id in each delivery’s body)' },
  },
};

const MONITOR_ID = (name: string) => ({ name, in: 'path' as const, type: 'string' as const, required: true, description: 'mon_ id' });
const CREATE: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['list'],
  properties: { list: { type: 'string', maxLength: 60, description: 'lst_ id of one of the organization’s lists' }, active: { type: 'boolean', description: 'Default true' } },
};
const UPDATE: JsonSchema = { type: 'object', additionalProperties: false, required: ['active'], properties: { active: { type: 'boolean', description: 'false pauses it; true resumes' } } };

function monitorObject(m: MonitorRow) {
  return { object: 'monitor', id: m.id, list: m.list_id, active: m.active, created_at: iso(m.created_at), updated_at: iso(m.updated_at), href: href(m.id) };
}

function matchObject(m: MatchRow) {
  const p = m.payload;
  const record = p.permit ?? p.case ?? null;
  const ce = p.change_event ?? null;
  return {
    object: 'monitor_match',
    kind: m.kind,
    type: m.type,
    record: record && { object: record.object, id: record.id, number: record.number, type: record.type, status: record.status, href: record.href },
    change_event: ce && { id: ce.id, seq: ce.seq, layer: ce.layer, kind: ce.kind, subject: ce.subject, effective_date: ce.effective_date, district: p.district ?? null, href: ce.href },
    seq: m.seq === null ? null : Number(m.seq),
    item: p.item ?? { id: m.item_id, href: null },
    parcel: p.parcel ?? m.parcel_ids.map((id) => ({ id, href: `/parcel/${id}` })),
    matched_at: iso(m.matched_at),
    event: m.event_id,
  };
}

const org = (req: Req) => req.actor!.organizationId;

async function mine(req: Req, param: string): Promise<MonitorRow> {
  const id = requireId('monitor', req.params[param], param);
  const m = await getMonitor(req.services.pool, org(req), id);
  if (!m) throw notFound('monitor', id, param);
  return m;
}

async function create(req: Req): Promise<Answer> {
  const listId = requireId('list', req.body.list, 'list');
  const out = await ensureMonitor(req.services.pool, { id: newId('monitor'), organizationId: org(req), listId, active: req.body.active ?? true });
  if (out === 'missing') throw notFound('list', listId, 'list');
  const headers = { Location: href(out.monitor.id) };
  return { status: out.created ? 201 : 200, item: monitorObject(out.monitor), headers };
}

async function change(req: Req): Promise<Answer> {
  const id = requireId('monitor', req.params.monitor, 'monitor');
  if (typeof req.body.active !== 'boolean') throw invalid('active', 'is true or false');
  const m = await setMonitorActive(req.services.pool, org(req), id, req.body.active);
  if (!m) throw notFound('monitor', id, 'monitor');
  return { item: monitorObject(m) };
}

async function matches(req: Req): Promise<Answer> {
  const m = await mine(req, 'monitor');
  const where: Where[] = [(c) => `mm.monitor_id = ${c.bind(m.id)}`];
  if (req.params.kind) where.push((c) => `mm.kind = ANY(${c.bind(req.params.kind, 'text[]')})`);
  const r = await runCollection<MatchRow>(req.services.pool, MATCHES, req.params, req.services.secret, { where });
  return { item: r.items.map(matchObject), page: r.page };
}

const common = { tag: 'Monitors', credential: 'key' as const, form: 'v1' as const, price: FREE };
const read = { ...common, scope: 'place:read' as const };
const write = { ...common, scope: 'alert:write' as const };

export const monitorRoutes = defineRoutes([
  {
    ...read,
    id: 'listMonitors',
    method: 'GET',
    path: '/v1/monitor',
    summary: "The organization's monitors, most recently created first (not paginated: has_more is always false)",
    collection: true,
    response: MONITOR,
    handler: async (req) => ({ item: (await listMonitors(req.services.pool, org(req))).map(monitorObject), hasMore: false }),
  },
  {
    ...write,
    id: 'createMonitor',
    method: 'POST',
    path: '/v1/monitor',
    summary: 'Monitor a list: 201 with the new monitor; a list that already has one answers it, 200, unchanged',
    description:
      "Sends permit.created and case.created for permits, applications and cases first published on the list's places after each joined its site (the site's filter applied), and monitor.parcel.rezoned and monitor.rule.amended for changes of the law there, to every webhook of the organization subscribed to them, in the transaction that loads them. 422 naming list when the organization has no such list (an id in a body that names nothing is a parameter not accepted).",
    status: 201,
    idempotent: true,
    responses: { 200: { description: 'The list already has a monitor: it, unchanged.', content: { 'application/json': MONITOR } } },
    body: CREATE,
    response: MONITOR,
    handler: create,
  },
  { ...read, id: 'getMonitor', method: 'GET', path: '/v1/monitor/{monitor_id}', summary: 'One monitor', params: [MONITOR_ID('monitor_id')], response: MONITOR, handler: async (req) => ({ item: monitorObject(await mine(req, 'monitor_id')) }) },
  { ...write, id: 'updateMonitor', method: 'PATCH', path: '/v1/monitor/{monitor}', summary: 'Pause (active false) or resume (true) a monitor', params: [MONITOR_ID('monitor')], body: UPDATE, response: MONITOR, handler: change },
  {
    ...write,
    id: 'deleteMonitor',
    method: 'DELETE',
    path: '/v1/monitor/{monitor}',
    summary: 'Stop a monitor: it matches nothing more and is gone (404); the list can be monitored again',
    status: 204,
    params: [MONITOR_ID('monitor')],
    handler: async (req) => {
      const id = requireId('monitor', req.params.monitor, 'monitor');
      if (!(await stopMonitor(req.services.pool, org(req), id))) throw notFound('monitor', id, 'monitor');
      return { status: 204 };
    },
  },
  {
    ...read,
    id: 'listMonitorMatches',
    method: 'GET',
    path: '/monitor/{monitor}/change_event',
    summary: 'What a monitor has matched, newest first: each record or change event, the site and parcels it matched, and the webhook event it produced',
    collection: true,
    params: [
      MONITOR_ID('monitor'),
      { name: 'kind', in: 'query', type: 'array', items: { type: 'string', enum: [...MATCH_KINDS] }, description: 'Only matches of these kinds' },
      ...collectionParams(MATCHES).filter((p) => ['cursor', 'size'].includes(p.name)),
    ],
    response: MATCH,
    handler: matches,
  },
]);
