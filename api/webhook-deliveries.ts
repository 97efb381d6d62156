// Delivery records as answered (spec 6.3 leaves their fields open): the event, the state, when
// the next call is due, and every attempt with its status, duration and an excerpt of the answer.
import type { ResourceDef } from '../core/query/index.ts';
import { runCollection } from '../core/query/index.ts';
import type { Queryable } from '../store/db.ts';
import type { WebhookRow } from '../store/webhooks/endpoints.ts';
import { type AttemptRow, attemptsOf, DELIVERY_FROM, DELIVERY_SELECT, type DeliveryRow, getDelivery } from '../store/webhooks/log.ts';
import type { Req } from './route.ts';

const iso = (t: Date | null) => (t ? new Date(t).toISOString() : null);

const deliveries: ResourceDef = {
  name: 'webhook_delivery',
  from: DELIVERY_FROM,
  id: 'd.id',
  select: DELIVERY_SELECT,
  defaultSort: '-created_at',
  snapshotColumn: 'd.created_at',
  fields: { created_at: { sql: 'd.created_at', type: 'timestamp', sortable: true, nullable: false } },
};

function item(d: DeliveryRow, attempts: AttemptRow[]) {
  const pending = d.state === 'pending';
  return {
    object: 'webhook_delivery',
    id: d.id,
    webhook: { id: d.webhook_id, href: `/webhook/${d.webhook_id}` },
    event: { id: d.event_id, type: d.type, seq: d.seq === null ? null : Number(d.seq), created_at: iso(d.event_created_at) },
    test: d.test,
    state: d.state,
    /** pending but not being sent: the webhook is turned off */
    held: pending && !d.webhook_active,
    attempt_count: d.attempt_count,
    next_attempt_at: pending ? iso(d.next_attempt_at) : null,
    dead_letter_reason: d.dead_letter_reason,
    created_at: iso(d.created_at),
    finished_at: iso(d.finished_at),
    attempt: attempts.map((a) => ({
      n: a.n,
      url: a.url,
      started_at: iso(a.started_at),
      duration_ms: a.duration_ms,
      outcome: a.outcome,
      status_code: a.status_code,
      response_excerpt: a.response_excerpt,
      error: a.error,
    })),
    href: `/webhook/${d.webhook_id}/delivery/${d.id}`,
  };
}

export type DeliveryItem = ReturnType<typeof item>;

export async function deliveryItem(db: Queryable, organizationId: string, id: string): Promise<DeliveryItem | null> {
  const d = await getDelivery(db, organizationId, id);
  if (!d) return null;
  return item(d, (await attemptsOf(db, [id])).get(id) ?? []);
}

export async function deliveryRows(req: Req, w: WebhookRow) {
  const p = req.params;
  const r = await runCollection<DeliveryRow>(req.services.pool, deliveries, p, req.services.secret, {
    where: [
      (c) => `d.webhook_id = ${c.bind(w.id)} AND d.organization_id = ${c.bind(w.organization_id)}`,
      ...(p.state ? [(c: { bind: (v: unknown) => string }) => `d.state = ANY(${c.bind(p.state)}::text[])`] : []),
      ...(p.event_type ? [(c: { bind: (v: unknown) => string }) => `v.type = ANY(${c.bind(p.event_type)}::text[])`] : []),
    ],
  });
  const attempts = await attemptsOf(req.services.pool, r.items.map((d) => d.id));
  return { items: r.items.map((d) => item(d, attempts.get(d.id) ?? [])), page: r.page };
}
