// Alerts (spec 4.9 unversioned, 6.4): a predicate over the change feed, triggers, channels
// (a webhook of the organization, or email), a schedule (immediate or a digest at a local time),
// a timezone, an end time. Matched in the transaction that writes the change events
// (store/alerts/match.ts). Every statement names the caller's organization, so another
// organization's alert is 404, never 403.
import { ApiError, invalid, notFound } from '../../core/errors.ts';
import { newId, requireId } from '../../core/ids.ts';
import { collectionParams, type ResourceDef, type Row, runCollection, type Where } from '../../core/query/index.ts';
import { FREE } from '../plans.ts';
import { resolveScope } from '../../core/query/scope.ts';
import { stateFips } from '../../core/states.ts';
import { checkTimezone } from '../../core/time.ts';
import { CHANGE_EVENT_JSON } from '../../store/change-event-json.ts';
import type { Channel } from '../../store/alerts/notify.ts';
import { ALERT_SELECT, type AlertFields, type AlertRow, deleteAlert, getAlert, insertAlert, liveWebhooks, type MatchColumns, markRead, updateAlert } from '../../store/alerts.ts';
import { jurisdictionRefs } from '../../store/regions.ts';
import { KINDS, LAYERS } from '../changes/feed.ts';
import { knownUses } from '../place/common.ts';
import { defineRoutes, type JsonSchema, type Req } from '../route.ts';
import { etagOf, ifMatch, staleVersion } from '../versioned.ts';
import { parseSchedule, renderSchedule, SCHEDULE_GRAMMAR } from './alert-schedule.ts';

export const TRIGGERS = ['entry'] as const;
const SCOPES = ['jurisdiction', 'state', 'county', 'region'] as const;
const MAX_CHANNELS = 20;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const CONTROL_TYPE = /^[a-z_]+(\.[a-z0-9_]+)*$/;

const list = (items: JsonSchema, description: string, maxItems = 100) => ({ type: 'array', minItems: 1, maxItems, uniqueItems: true, items, description });
const PREDICATE: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  description: 'Over the change feed (GET /change_event): every field given must hold; an empty predicate matches every change event. At most one of jurisdiction, state, county, region.',
  properties: {
    layer: list({ enum: [...LAYERS] }, 'Change events of these layers'),
    kind: list({ enum: [...KINDS] }, 'Change events of these kinds'),
    jurisdiction: list({ type: 'string', minLength: 1, maxLength: 100 }, 'jur_ ids, slugs or fips_keys'),
    state: { type: 'string', description: 'Two-letter postal code or two-digit FIPS: its jurisdictions, those held later too' },
    county: { type: 'string', description: "5-digit county FIPS or a county's jur_ id" },
    region: { type: 'string', description: 'A rgn_ saved region of this organization or a sta_ statistical area: its members on the day an event is detected' },
    use: list({ type: 'string', minLength: 1, maxLength: 200 }, 'Uses (vocabulary slugs or use_ ids) a change concerns (a permission of the use, a moratorium pausing it); a slug matches its narrower uses'),
    control_type: list({ type: 'string', minLength: 1, maxLength: 200 }, 'Control types a change concerns (dotted, as /rule names them); a type matches its narrower (dotted) types'),
  },
};
const CHANNEL: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['type'],
  description: '{type: webhook, webhook: whk_ id of this organization} or {type: email, to: address} (target is another name for to)',
  properties: {
    type: { enum: ['webhook', 'email'] },
    webhook: { type: 'string', maxLength: 100 },
    to: { type: 'string', maxLength: 254 },
    target: { type: 'string', maxLength: 254 },
  },
};
const SCHEDULE: JsonSchema = {
  type: 'string',
  maxLength: 100,
  description: `${SCHEDULE_GRAMMAR}; read case-insensitively, answered lower case. immediate (default): each match is sent in the transaction that detects it. daily or weekly: matches wait and are sent together at that local time in the alert's timezone.`,
};
const FIELDS = {
  name: { type: 'string', minLength: 1, maxLength: 200, pattern: '\\S' },
  predicate: PREDICATE,
  trigger: { ...list({ enum: [...TRIGGERS] }, 'entry (default): a change event newly matching the predicate', TRIGGERS.length) },
  channel: { type: 'array', maxItems: MAX_CHANNELS, items: CHANNEL, description: 'Where notifications go; none: matches are only recorded (GET /alert/{alert}/match)' },
  schedule: SCHEDULE,
  timezone: { type: 'string', maxLength: 100, description: 'IANA name (default UTC): the digest time is read in it' },
  end_time: { type: ['string', 'null'], format: 'date-time', description: 'Events detected from then on are not matched; null: no end' },
  enabled: { type: 'boolean', description: 'Default true; false matches and sends nothing' },
};
const CREATE_BODY: JsonSchema = { type: 'object', additionalProperties: false, required: ['name', 'predicate'], properties: FIELDS };
const UPDATE_BODY: JsonSchema = { type: 'object', additionalProperties: false, minProperties: 1, properties: FIELDS };

const READ_BODY: JsonSchema = {
  type: ['object', 'null'],
  additionalProperties: false,
  description: 'Optional',
  properties: { through: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'A match id (GET /alert/{alert}/match): it and every earlier match are marked read; default the newest match' } },
};

const ALERT: JsonSchema = {
  type: 'object',
  required: ['id', 'object', 'name', 'predicate', 'predicate_version', 'trigger', 'channel', 'schedule', 'timezone', 'end_time', 'enabled', 'monitoring_started_at', 'created_at', 'unread_count', 'href'],
  properties: {
    id: { type: 'string', pattern: '^alr_' },
    object: { const: 'alert' },
    name: { type: 'string' },
    predicate: { type: 'object' },
    predicate_version: { type: 'integer', description: 'Raised when the predicate changes; each match names the version it matched' },
    trigger: { type: 'array', items: { type: 'string' } },
    channel: { type: 'array', items: { type: 'object', required: ['type'], properties: { type: { enum: ['webhook', 'email'] }, webhook: { type: 'string' }, to: { type: 'string' }, target: { type: 'string' } } } },
    schedule: { type: 'string', pattern: '^(immediate|daily [0-2][0-9]:[0-5][0-9]|weekly (monday|tuesday|wednesday|thursday|friday|saturday|sunday) [0-2][0-9]:[0-5][0-9])$', description: SCHEDULE_GRAMMAR },
    timezone: { type: 'string' },
    end_time: { type: ['string', 'null'], format: 'date-time' },
    enabled: { type: 'boolean' },
    monitoring_started_at: { type: 'string', format: 'date-time' },
    monitoring_since_seq: { type: 'integer', description: 'The change feed watermark when it was created: events with a higher seq are watched' },
    unread_count: { type: 'integer', description: 'Matches not yet marked read (POST /alert/{alert}/read)' },
    match_count: { type: 'integer' },
    version: { type: 'integer', description: 'Raised by every change (the ETag carries it)' },
    created_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' },
    href: { type: 'string' },
  },
};

const MATCH: JsonSchema = {
  type: 'object',
  required: ['id', 'object', 'seq', 'matched_at', 'predicate_version', 'state', 'change_event', 'notification'],
  properties: {
    id: { type: 'integer', description: "The match's place in the log (increasing): POST /alert/{alert}/read takes it as through" },
    object: { const: 'alert_match' },
    seq: { type: 'integer' },
    matched_at: { type: 'string', format: 'date-time' },
    predicate_version: { type: 'integer' },
    state: { enum: ['sent', 'waiting'], description: 'waiting: a digest match not sent yet' },
    change_event: { type: 'object', description: 'The change event as GET /change_event serves it' },
    notification: {
      type: ['object', 'null'],
      description: 'What was sent for it (null while a digest waits)',
      properties: {
        kind: { enum: ['immediate', 'digest'] },
        sent_at: { type: 'string', format: 'date-time' },
        period_end: { type: ['string', 'null'], format: 'date-time' },
        match_count: { type: 'integer' },
        webhook: { type: 'array', items: { type: 'object', properties: { webhook: { type: 'string' }, delivery: { type: 'string' }, event: { type: 'string' }, state: { type: 'string' }, attempt_count: { type: 'integer' }, href: { type: 'string' } } } },
        email: { type: 'array', items: { type: 'object', properties: { to: { type: 'string' }, state: { enum: ['queued', 'sent'] }, sent_at: { type: ['string', 'null'], format: 'date-time' } } } },
      },
    },
  },
};

const iso = (t: Date | string | null) => (t ? new Date(t).toISOString() : null);

export function alertItem(a: AlertRow) {
  return {
    id: a.id,
    object: 'alert',
    name: a.name,
    predicate: a.predicate,
    predicate_version: a.predicate_version,
    trigger: a.trigger,
    channel: a.channel.map((c) => (c.type === 'email' ? { type: 'email', to: c.to, target: c.to } : { type: 'webhook', webhook: c.webhook })),
    schedule: renderSchedule(a.schedule),
    timezone: a.timezone,
    end_time: iso(a.end_time),
    enabled: a.enabled,
    monitoring_started_at: iso(a.created_at),
    monitoring_since_seq: Number(a.since_seq),
    unread_count: a.unread_count,
    match_count: a.match_count,
    version: a.version,
    created_at: iso(a.created_at),
    updated_at: iso(a.updated_at),
    href: `/alert/${a.id}`,
  };
}

/** A refusal of the scope reader, naming the predicate's field. */
function inPredicate(err: unknown): never {
  if (err instanceof ApiError && err.field) throw new ApiError(err.code, { field: `predicate.${err.field}`, detail: err.detail });
  throw err;
}

async function readScope(req: Req, p: Row): Promise<Pick<MatchColumns, 'm_jurisdiction' | 'm_state' | 'm_county' | 'm_region'>> {
  const out = { m_jurisdiction: null as string[] | null, m_state: null as string | null, m_county: null as string | null, m_region: null as string | null };
  const given = SCOPES.filter((k) => p[k] !== undefined);
  if (given.length > 1) throw invalid(`predicate.${given[1]}`, `give one scope, not ${given.join(' and ')}`);
  const db = req.services.pool;
  if (p.jurisdiction) {
    const refs: string[] = p.jurisdiction;
    const ids = await jurisdictionRefs(db, refs);
    const i = refs.findIndex((r) => !ids.has(r));
    if (i >= 0) throw invalid(`predicate.jurisdiction[${i}]`, `not a jurisdiction held: ${refs[i]} (give a jur_ id, slug or fips_key)`);
    out.m_jurisdiction = [...new Set(refs.map((r) => ids.get(r)!))];
  } else if (given.length === 1) {
    const k = given[0];
    await resolveScope(db, { [k]: p[k] }, { organizationId: req.actor!.organizationId }).catch(inPredicate);
    if (k === 'state') out.m_state = stateFips(p.state, 'predicate.state');
    else if (k === 'region') out.m_region = p.region;
    else if (/^\d{5}$/.test(p.county)) out.m_county = p.county;
    else out.m_county = (await db.query(`SELECT fips_state || fips_county AS f FROM jurisdiction WHERE id = $1`, [p.county])).rows[0].f;
  }
  return out;
}

async function readPredicate(req: Req, p: Row): Promise<AlertFields['predicate']> {
  const uses = await knownUses(req.services.pool, p.use, (i) => `predicate.use[${i}]`);
  (p.control_type as string[] | undefined)?.forEach((t, i) => {
    if (!CONTROL_TYPE.test(t)) throw invalid(`predicate.control_type[${i}]`, `${JSON.stringify(t)} is not a control type (dotted, e.g. dimensional.setback_front)`);
  });
  const match: MatchColumns = { m_layer: p.layer ?? null, m_kind: p.kind ?? null, ...(await readScope(req, p)), m_use: uses ?? null, m_control_type: p.control_type ?? null };
  return { given: p, match };
}

async function readChannels(req: Req, raw: Array<Record<string, string>>): Promise<Channel[]> {
  const org = req.actor!.organizationId;
  const live = await liveWebhooks(req.services.pool, org, raw.flatMap((c) => (c.type === 'webhook' && c.webhook ? [c.webhook] : [])));
  const out: Channel[] = [];
  const seen = new Map<string, number>();
  raw.forEach((c, i) => {
    const f = `channel[${i}]`;
    let ch: Channel;
    if (c.type === 'webhook') {
      for (const k of ['to', 'target']) if (c[k] !== undefined) throw invalid(`${f}.${k}`, 'is not a field of a webhook channel (give webhook)');
      if (c.webhook === undefined) throw invalid(`${f}.webhook`, 'is required: a whk_ id of this organization');
      requireId('webhook', c.webhook, `${f}.webhook`);
      if (!live.has(c.webhook)) throw invalid(`${f}.webhook`, `no webhook of this organization has the id ${c.webhook}`);
      ch = { type: 'webhook', webhook: c.webhook };
    } else {
      if (c.webhook !== undefined) throw invalid(`${f}.webhook`, 'is not a field of an email channel (give to)');
      if (c.to !== undefined && c.target !== undefined && c.to !== c.target) throw invalid(`${f}.target`, 'give to or target, not both');
      const to = (c.to ?? c.target)?.trim();
      const field = c.to === undefined && c.target !== undefined ? `${f}.target` : `${f}.to`;
      if (!to) throw invalid(field, 'is required: the address to mail');
      if (!EMAIL.test(to)) throw invalid(field, `${JSON.stringify(to)} is not an email address`);
      ch = { type: 'email', to };
    }
    const key = `${ch.type}:${(ch.webhook ?? ch.to)!.toLowerCase()}`;
    if (seen.has(key)) throw invalid(f, `is the same channel as channel[${seen.get(key)}]`);
    seen.set(key, i);
    out.push(ch);
  });
  return out;
}

/** An IANA name both this runtime and PostgreSQL know, as the runtime spells it. */
async function readTimezone(req: Req, raw: string): Promise<string> {
  const tz = new Intl.DateTimeFormat('en-US', { timeZone: checkTimezone(raw, 'timezone') }).resolvedOptions().timeZone;
  await req.services.pool.query('SELECT now() AT TIME ZONE $1', [tz]).catch(() => {
    throw invalid('timezone', `${JSON.stringify(raw)} is not an IANA timezone the database knows`);
  });
  return tz;
}

/** The body's fields, read and checked (only those given). */
async function readFields(req: Req, b: Row): Promise<Partial<AlertFields>> {
  const f: Partial<AlertFields> = {};
  if (b.name !== undefined) f.name = b.name.trim();
  if (b.predicate !== undefined) f.predicate = await readPredicate(req, b.predicate);
  if (b.trigger !== undefined) f.trigger = b.trigger;
  if (b.channel !== undefined) f.channel = await readChannels(req, b.channel);
  if (b.schedule !== undefined) f.schedule = parseSchedule(b.schedule);
  if (b.timezone !== undefined) f.timezone = await readTimezone(req, b.timezone);
  if (b.end_time !== undefined) f.end_time = b.end_time;
  if (b.enabled !== undefined) f.enabled = b.enabled;
  return f;
}

const alerts: ResourceDef = {
  name: 'alert',
  from: 'alert a',
  id: 'a.id',
  select: ALERT_SELECT,
  defaultSort: '-created_at',
  snapshotColumn: 'a.created_at',
  fields: { created_at: { sql: 'a.created_at', type: 'timestamp', sortable: true, nullable: false } },
};

const matches: ResourceDef = {
  name: 'alert_match',
  from: `alert_match m JOIN change_event e ON e.id = m.change_event_id JOIN jurisdiction j ON j.id = e.jurisdiction_id
    LEFT JOIN alert_notification n ON n.id = m.notification_id`,
  id: `lpad(m.id::text, 20, '0')`,
  select: `m.id AS match_id, m.seq, m.predicate_version, m.matched_at, ${CHANGE_EVENT_JSON} AS change_event,
    n.id AS notification_id, n.kind, n.period_end, n.created_at AS sent_at, n.match_count,
    (SELECT coalesce(jsonb_agg(jsonb_build_object('webhook', d.webhook_id, 'delivery', d.id, 'event', d.event_id, 'state', d.state, 'attempt_count', d.attempt_count,
              'href', '/webhook/' || d.webhook_id || '/delivery/' || d.id) ORDER BY d.webhook_id), '[]')
       FROM webhook_delivery d WHERE d.webhook_id = ANY(n.webhook_id) AND d.event_id = coalesce(m.webhook_event_id, n.webhook_event_id)) AS webhook,
    (SELECT coalesce(jsonb_agg(jsonb_build_object('to', o.to_address, 'state', CASE WHEN o.sent_at IS NULL THEN 'queued' ELSE 'sent' END,
              'sent_at', to_char(o.sent_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) ORDER BY o.id), '[]')
       FROM email_outbox o WHERE o.id = ANY(n.email_id)) AS email`,
  defaultSort: '-matched',
  fields: { matched: { sql: 'm.id', type: 'integer', sortable: true, nullable: false } },
};

function matchItem(r: Row) {
  const notification = r.notification_id
    ? { kind: r.kind, sent_at: iso(r.sent_at), period_end: iso(r.period_end), match_count: r.match_count, webhook: r.webhook, email: r.email }
    : null;
  return { id: Number(r.match_id), object: 'alert_match', seq: Number(r.seq), matched_at: iso(r.matched_at), predicate_version: r.predicate_version, state: notification ? 'sent' : 'waiting', change_event: r.change_event, notification };
}

async function mine(req: Req): Promise<AlertRow> {
  const id = requireId('alert', req.params.alert, 'alert');
  const a = await getAlert(req.services.pool, req.actor!.organizationId, id);
  if (!a) throw notFound('alert', id, 'alert');
  return a;
}

const PAGE = collectionParams(alerts).filter((p) => ['cursor', 'size'].includes(p.name));
const ALERT_ID = { name: 'alert', in: 'path' as const, type: 'string' as const, required: true, description: 'alr_ id' };
const common = { tag: 'Alerts', credential: 'key' as const, scope: 'alert:write' as const, form: 'plain' as const, price: FREE };

export const alertRoutes = defineRoutes([
  {
    ...common,
    id: 'listAlerts',
    method: 'GET',
    path: '/alert',
    summary: "The organization's alerts, newest first",
    collection: true,
    params: PAGE,
    response: ALERT,
    handler: async (req) => {
      const where: Where[] = [(c) => `a.organization_id = ${c.bind(req.actor!.organizationId)}`, () => 'a.deleted_at IS NULL'];
      const r = await runCollection<AlertRow>(req.services.pool, alerts, req.params, req.services.secret, { where });
      return { item: r.items.map(alertItem), page: r.page };
    },
  },
  {
    ...common,
    id: 'createAlert',
    method: 'POST',
    path: '/alert',
    summary: 'Create an alert: a predicate over the change feed, its channels and schedule; Idempotency-Key replays the first answer for 24 hours',
    description:
      'Matching runs in the transaction that writes the change events: an immediate alert sends each match there (alert.triggered to its webhook channels, one email per load to its email channels); a digest sends every match since the last one at its local time. An unknown use is 422 vocabulary_value_unknown naming predicate.use[i]; a webhook not of this organization is 422 naming channel[i].webhook.',
    status: 201,
    idempotent: true,
    body: CREATE_BODY,
    response: ALERT,
    refuses: ['vocabulary_value_unknown', 'not_available'],
    handler: async (req) => {
      const f = await readFields(req, req.body);
      const fields: AlertFields = { trigger: ['entry'], channel: [], schedule: { kind: 'immediate' }, timezone: 'UTC', end_time: null, enabled: true, ...(f as Pick<AlertFields, 'name' | 'predicate'>) };
      const a = await insertAlert(req.services.pool, newId('alert'), req.actor!.organizationId, fields);
      return { status: 201, item: alertItem(a), headers: { Location: `/alert/${a.id}`, ETag: etagOf(a) } };
    },
  },
  {
    ...common,
    id: 'getAlert',
    method: 'GET',
    path: '/alert/{alert}',
    summary: 'One alert, with its ETag',
    params: [ALERT_ID],
    response: ALERT,
    handler: async (req) => {
      const a = await mine(req);
      return { item: alertItem(a), headers: { ETag: etagOf(a) } };
    },
  },
  {
    ...common,
    id: 'updateAlert',
    method: 'PATCH',
    path: '/alert/{alert}',
    summary: 'Change an alert (fields given replace the whole field; end_time null clears); If-Match with its ETag, 409 when stale',
    params: [ALERT_ID],
    body: UPDATE_BODY,
    response: ALERT,
    refuses: ['vocabulary_value_unknown', 'not_available', 'version_conflict'],
    handler: async (req) => {
      const id = requireId('alert', req.params.alert, 'alert');
      if (!(await getAlert(req.services.pool, req.actor!.organizationId, id))) throw notFound('alert', id, 'alert');
      const out = await updateAlert(req.services.pool, req.actor!.organizationId, id, ifMatch(req, id), await readFields(req, req.body));
      if (out === 'missing') throw notFound('alert', id, 'alert');
      if (out === 'stale') throw staleVersion('Alert', id, `/alert/${id}`);
      return { item: alertItem(out), headers: { ETag: etagOf(out) } };
    },
  },
  {
    ...common,
    id: 'deleteAlert',
    method: 'DELETE',
    path: '/alert/{alert}',
    summary: 'Delete an alert: nothing more is matched or sent; If-Match with its ETag, 409 when stale',
    status: 204,
    params: [ALERT_ID],
    refuses: ['version_conflict'],
    handler: async (req) => {
      const id = requireId('alert', req.params.alert, 'alert');
      const out = await deleteAlert(req.services.pool, req.actor!.organizationId, id, ifMatch(req, id));
      if (out === 'missing') throw notFound('alert', id, 'alert');
      if (out === 'stale') throw staleVersion('Alert', id, `/alert/${id}`);
      return { status: 204 };
    },
  },
  {
    ...common,
    id: 'listAlertMatches',
    method: 'GET',
    path: '/alert/{alert}/match',
    summary: 'What an alert matched (newest first), each with what was sent for it: webhook deliveries and emails; reading changes nothing (POST /alert/{alert}/read marks matches read)',
    collection: true,
    params: [ALERT_ID, ...PAGE],
    response: MATCH,
    handler: async (req) => {
      const a = await mine(req);
      const where: Where[] = [(c) => `m.alert_id = ${c.bind(a.id)}`];
      const r = await runCollection<Row>(req.services.pool, matches, req.params, req.services.secret, { where });
      return { item: r.items.map(matchItem), page: r.page };
    },
  },
  {
    ...common,
    id: 'markAlertRead',
    method: 'POST',
    path: '/alert/{alert}/read',
    summary: "Mark an alert's matches read up to one (through: a match id from GET /alert/{alert}/match; default its newest); answers the alert with its unread_count",
    description:
      'Matches after through stay unread: give the newest id you have read so that matches arriving meanwhile are not marked. Marking read never unmarks (an older through changes nothing) and leaves the ETag as it is. A through that is no match of this alert is 422 naming through.',
    params: [ALERT_ID],
    body: READ_BODY,
    response: ALERT,
    handler: async (req) => {
      const a = await mine(req);
      const through: number | null = req.body?.through ?? null;
      const marked = await markRead(req.services.pool, req.actor!.organizationId, a.id, through);
      if (through !== null && marked === null) throw invalid('through', `no match of alert ${a.id} has the id ${through} (give an id from GET /alert/${a.id}/match)`);
      const out = await getAlert(req.services.pool, req.actor!.organizationId, a.id);
      if (!out) throw notFound('alert', a.id, 'alert');
      return { item: alertItem(out), headers: { ETag: etagOf(out) } };
    },
  },
]);
