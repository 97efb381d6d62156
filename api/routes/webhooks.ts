// Webhooks (spec 4.10, 6.2, 6.3): event types, an organization's endpoints, their delivery log, a
// signed test delivery and secret rotation. Every statement names the caller's organization, so
// another organization's webhook or delivery is 404, never 403. Collections are the /v1 list form.
import { invalid, notFound, unknownValue } from '../../core/errors.ts';
import { newId, requireId } from '../../core/ids.ts';
import { collectionParams, type ResourceDef, runCollection, type Where } from '../../core/query/index.ts';
import { FREE } from '../plans.ts';
import { EVENT_TYPE_NAMES, EVENT_TYPES } from '../../core/webhooks/event-types.ts';
import { DEFAULT_POLICY, MAX_WAIT_SECONDS, readPolicy } from '../../core/webhooks/retry-policy.ts';
import { fingerprint, newSecret } from '../../core/webhooks/signature.ts';
import { deliveryItem, deliveryRows } from '../webhook-deliveries.ts';
import { deleteWebhook, getWebhook, insertWebhook, rotateSecret, updateWebhook, type WebhookRow } from '../../store/webhooks/endpoints.ts';
import { enqueueEvent } from '../../store/webhooks/outbox.ts';
import { defineRoutes, type JsonSchema, type Req } from '../route.ts';
import { etagOf, ifMatch, staleVersion } from '../versioned.ts';
import { refuseSelf } from '../webhook-url.ts';

/** How long a rotated-out secret still signs deliveries (beside the new one). */
export const ROTATION_GRACE_SECONDS = 24 * 3600;

const POLICY: JsonSchema = {
  type: 'object',
  description: `Retry policy (spec 2.8, 6.3). Defaults: ${JSON.stringify(DEFAULT_POLICY)}; no wait exceeds ${MAX_WAIT_SECONDS / 3600} hours.`,
  properties: {
    max_attempt: { type: 'integer', minimum: 1, maximum: 50 },
    backoff: { enum: ['exponential', 'linear', 'fixed'] },
    base_seconds: { type: 'integer', minimum: 1, maximum: MAX_WAIT_SECONDS },
    jitter: { type: 'boolean' },
    dead_letter_after_hours: { type: 'integer', minimum: 1, maximum: 336 },
  },
};

const WEBHOOK: JsonSchema = {
  type: 'object',
  required: ['object', 'id', 'name', 'url', 'event_type', 'active', 'secret_fingerprint', 'retry_policy', 'created_at', 'updated_at', 'href'],
  properties: {
    object: { const: 'webhook' },
    id: { type: 'string' },
    name: { type: ['string', 'null'] },
    url: { type: 'string' },
    event_type: { type: 'array', items: { type: 'string' } },
    active: { type: 'boolean' },
    disabled_reason: { type: ['string', 'null'], description: 'Why the service turned it off (a 410 Gone); cleared by PATCH active' },
    secret_fingerprint: { type: 'string' },
    previous_secret_fingerprint: { type: ['string', 'null'], description: 'A rotated-out secret still signing until previous_secret_until' },
    previous_secret_until: { type: ['string', 'null'], format: 'date-time' },
    retry_policy: POLICY,
    version: { type: 'integer' },
    created_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' },
    href: { type: 'string' },
    secret: { type: 'string', description: 'Only when created or rotated: the signing secret (whsec_…), shown once' },
  },
};

const EVENT_TYPE_LIST: JsonSchema = { type: 'array', minItems: 1, maxItems: EVENT_TYPES.length, uniqueItems: true, items: { type: 'string' } };

const CREATE_BODY: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['url', 'event_type'],
  properties: {
    url: { type: 'string', maxLength: 2000, description: 'http(s) URL the events are POSTed to; not this service' },
    name: { type: ['string', 'null'], maxLength: 200 },
    event_type: { ...EVENT_TYPE_LIST, description: 'Event type names (GET /event_type)' },
    active: { type: 'boolean', description: 'Default true; false holds deliveries' },
    retry_policy: { ...POLICY, type: ['object', 'null'] },
  },
};

const UPDATE_BODY: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    url: { type: 'string', maxLength: 2000, description: 'Queued deliveries go to the new URL' },
    name: { type: ['string', 'null'], maxLength: 200, description: 'null clears' },
    event_type: { ...EVENT_TYPE_LIST, description: 'Replaces the whole subscription' },
    active: { type: ['boolean', 'null'], description: 'false holds deliveries; true (or null) resumes' },
    retry_policy: { ...POLICY, type: ['object', 'null'], description: 'Replaces the whole policy: anything left out returns to its default; null restores every default' },
  },
};

const TEST_BODY: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: { data: { type: 'object', description: 'Echoed in the ping event data, to tell test deliveries apart' } },
};

const iso = (t: Date | null) => (t ? new Date(t).toISOString() : null);

export function webhookItem(w: WebhookRow) {
  const previousLive = w.previous_secret && w.previous_secret_until && new Date(w.previous_secret_until) > new Date();
  return {
    object: 'webhook',
    id: w.id,
    name: w.name,
    url: w.url,
    event_type: w.event_type,
    active: w.active,
    disabled_reason: w.disabled_reason,
    secret_fingerprint: fingerprint(w.secret),
    previous_secret_fingerprint: previousLive ? fingerprint(w.previous_secret!) : null,
    previous_secret_until: previousLive ? iso(w.previous_secret_until) : null,
    retry_policy: w.retry_policy,
    version: w.version,
    created_at: iso(w.created_at),
    updated_at: iso(w.updated_at),
    href: `/webhook/${w.id}`,
  };
}

function readEventTypes(raw: unknown): string[] {
  const list = raw as string[];
  list.forEach((t, i) => {
    if (!EVENT_TYPE_NAMES.includes(t)) throw unknownValue(`event_type[${i}]`, t, EVENT_TYPE_NAMES);
  });
  return list;
}

function readUrl(req: Req, raw: string): string {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw invalid('url', 'is not an absolute URL');
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw invalid('url', `must be http or https, not ${u.protocol.replace(':', '')}`);
  refuseSelf(req, u);
  return u.toString();
}

const webhooks: ResourceDef = {
  name: 'webhook',
  from: 'webhook w',
  id: 'w.id',
  select: 'w.*',
  defaultSort: '-created_at',
  snapshotColumn: 'w.created_at',
  fields: { created_at: { sql: 'w.created_at', type: 'timestamp', sortable: true, nullable: false } },
};

const orgWhere = (req: Req): Where[] => [(c) => `w.organization_id = ${c.bind(req.actor!.organizationId)}`, () => 'w.deleted_at IS NULL'];

async function mine(req: Req): Promise<WebhookRow> {
  const id = requireId('webhook', req.params.webhook, 'webhook');
  const w = await getWebhook(req.services.pool, req.actor!.organizationId, id);
  if (!w) throw notFound('webhook', id, 'webhook');
  return w;
}

const PAGE = collectionParams(webhooks).filter((p) => ['cursor', 'size'].includes(p.name));
const WEBHOOK_ID = { name: 'webhook', in: 'path' as const, type: 'string' as const, required: true, description: 'whk_ id' };
const common = { tag: 'Webhooks', credential: 'key' as const, form: 'v1' as const, price: FREE };

export const webhookRoutes = defineRoutes([
  {
    ...common,
    id: 'listEventTypes',
    method: 'GET',
    path: '/event_type',
    summary: 'The event types a webhook can subscribe to, with what each means',
    collection: true,
    response: { type: 'object', required: ['name', 'description'], properties: { name: { type: 'string' }, description: { type: 'string' } } },
    handler: async () => ({ item: EVENT_TYPES.map((t) => ({ object: 'event_type', name: t.name, description: t.description })), hasMore: false }),
  },
  {
    ...common,
    id: 'listWebhooks',
    method: 'GET',
    path: '/webhook',
    summary: "The organization's webhooks, newest first",
    scope: 'alert:write',
    collection: true,
    params: PAGE,
    response: WEBHOOK,
    handler: async (req) => {
      const r = await runCollection<WebhookRow>(req.services.pool, webhooks, req.params, req.services.secret, { where: orgWhere(req) });
      return { item: r.items.map(webhookItem), page: r.page };
    },
  },
  {
    ...common,
    id: 'createWebhook',
    method: 'POST',
    path: '/webhook',
    summary: 'Register an endpoint for event types; the signing secret is in this answer only',
    description:
      'Deliveries are signed per Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">). A URL that is not http(s), or that points at this service, is 422.',
    scope: 'alert:write',
    status: 201,
    idempotent: true,
    body: CREATE_BODY,
    response: WEBHOOK,
    handler: async (req) => {
      const b = req.body;
      const w = await insertWebhook(req.services.pool, {
        id: newId('webhook'),
        organizationId: req.actor!.organizationId,
        name: b.name ?? null,
        url: readUrl(req, b.url),
        eventType: readEventTypes(b.event_type),
        active: b.active ?? true,
        secret: newSecret(),
        policy: readPolicy(b.retry_policy),
      });
      return { status: 201, item: { ...webhookItem(w), secret: w.secret }, headers: { Location: `/webhook/${w.id}`, ETag: etagOf(w) } };
    },
  },
  {
    ...common,
    id: 'getWebhook',
    method: 'GET',
    path: '/webhook/{webhook}',
    summary: 'One webhook, with its ETag; the secret is identified by secret_fingerprint only',
    scope: 'alert:write',
    params: [WEBHOOK_ID],
    response: WEBHOOK,
    handler: async (req) => {
      const w = await mine(req);
      return { item: webhookItem(w), headers: { ETag: etagOf(w) } };
    },
  },
  {
    ...common,
    id: 'updateWebhook',
    method: 'PATCH',
    path: '/webhook/{webhook}',
    summary: 'Change a webhook (If-Match with its ETag, 409 when stale); the secret is not affected',
    scope: 'alert:write',
    params: [WEBHOOK_ID],
    body: UPDATE_BODY,
    response: WEBHOOK,
    refuses: ['version_conflict'],
    handler: async (req) => {
      const id = requireId('webhook', req.params.webhook, 'webhook');
      const b = req.body;
      const change = {
        url: b.url === undefined ? undefined : readUrl(req, b.url),
        name: b.name,
        eventType: b.event_type === undefined ? undefined : readEventTypes(b.event_type),
        active: b.active === undefined ? undefined : (b.active ?? true),
        policy: 'retry_policy' in b ? readPolicy(b.retry_policy) : undefined,
      };
      const out = await updateWebhook(req.services.pool, req.actor!.organizationId, id, ifMatch(req, id), change);
      if (out === 'missing') throw notFound('webhook', id, 'webhook');
      if (out === 'stale') throw staleVersion('Webhook', id, `/webhook/${id}`);
      return { item: webhookItem(out), headers: { ETag: etagOf(out) } };
    },
  },
  {
    ...common,
    id: 'deleteWebhook',
    method: 'DELETE',
    path: '/webhook/{webhook}',
    summary: 'Delete a webhook (If-Match with its ETag); its pending deliveries are not sent, its log stays readable by no one',
    scope: 'alert:write',
    status: 204,
    params: [WEBHOOK_ID],
    refuses: ['version_conflict'],
    handler: async (req) => {
      const id = requireId('webhook', req.params.webhook, 'webhook');
      const out = await deleteWebhook(req.services.pool, req.actor!.organizationId, id, ifMatch(req, id));
      if (out === 'missing') throw notFound('webhook', id, 'webhook');
      if (out === 'stale') throw staleVersion('Webhook', id, `/webhook/${id}`);
      return { status: 204 };
    },
  },
  {
    ...common,
    id: 'rotateWebhookSecret',
    method: 'POST',
    path: '/webhook/{webhook}/secret',
    summary: `Replace the signing secret (shown once); the old one still signs beside it for ${ROTATION_GRACE_SECONDS / 3600} hours`,
    scope: 'alert:write',
    params: [WEBHOOK_ID],
    response: WEBHOOK,
    handler: async (req) => {
      const w = await mine(req);
      const out = (await rotateSecret(req.services.pool, w.organization_id, w.id, newSecret(), ROTATION_GRACE_SECONDS))!;
      return { item: { ...webhookItem(out), secret: out.secret }, headers: { ETag: etagOf(out) } };
    },
  },
  {
    ...common,
    id: 'listWebhookDeliveries',
    method: 'GET',
    path: '/webhook/{webhook}/delivery',
    summary: 'The delivery log: every delivery of the webhook, newest first, each with its attempts',
    scope: 'alert:write',
    collection: true,
    params: [
      WEBHOOK_ID,
      ...PAGE,
      { name: 'state', in: 'query', type: 'array', items: { type: 'string', enum: ['pending', 'succeeded', 'dead_lettered'] }, description: 'Only deliveries in these states' },
      { name: 'event_type', in: 'query', type: 'array', items: { type: 'string', enum: EVENT_TYPE_NAMES }, description: 'Only deliveries of these event types' },
    ],
    handler: async (req) => {
      const w = await mine(req);
      const r = await deliveryRows(req, w);
      return { item: r.items, page: r.page };
    },
  },
  {
    ...common,
    id: 'testWebhook',
    method: 'POST',
    path: '/webhook/{webhook}/delivery',
    summary: 'Send a signed test delivery (event type ping) now, ahead of any queued events',
    scope: 'alert:write',
    status: 202,
    params: [WEBHOOK_ID],
    body: TEST_BODY,
    handler: async (req) => {
      const w = await mine(req);
      const data = { message: 'A test delivery from Landlex', webhook: { id: w.id, href: `/webhook/${w.id}` }, ...(req.body?.data ? { echo: req.body.data } : {}) };
      const out = await enqueueEvent(req.services.pool, { organizationId: w.organization_id, type: 'ping', data, webhookIds: [w.id], test: true });
      const item = await deliveryItem(req.services.pool, w.organization_id, out.deliveries[0]);
      return { status: 202, item, headers: { Location: `/webhook/${w.id}/delivery/${out.deliveries[0]}` } };
    },
  },
  {
    ...common,
    id: 'getWebhookDelivery',
    method: 'GET',
    path: '/webhook/{webhook}/delivery/{delivery}',
    summary: 'One delivery with every attempt: status, duration and an excerpt of the answer',
    scope: 'alert:write',
    params: [WEBHOOK_ID, { name: 'delivery', in: 'path', type: 'string', required: true, description: 'dlv_ id' }],
    handler: async (req) => {
      const w = await mine(req);
      const id = requireId('delivery', req.params.delivery, 'delivery');
      const item = await deliveryItem(req.services.pool, w.organization_id, id);
      if (!item || item.webhook.id !== w.id) throw notFound('delivery', id, 'delivery');
      return { item };
    },
  },
]);
