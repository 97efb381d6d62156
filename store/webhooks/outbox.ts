// The webhook outbox: an event and one delivery per subscribed webhook, written in the caller's
// transaction (the change event's load, the monitor's match, the test call), so a delivery exists
// exactly when what caused it committed. The dispatcher (activities/webhooks/dispatch.ts) sends them.
import { newId } from '../../core/ids.ts';
import { CHANGE_EVENT_JSON } from '../change-event-json.ts';
import type { Queryable } from '../db.ts';

/** SQL for a random id with a prefix (hex is within the id alphabet), for ids made in set-based inserts. */
export const randomIdSql = (prefix: string) => `'${prefix}_' || left(replace(gen_random_uuid()::text, '-', ''), 24)`;
const DELIVERY_ID = randomIdSql('dlv');

export interface EventDraft {
  organizationId: string;
  type: string;
  data: Record<string, unknown>;
  seq?: number | null;
  /** only these webhooks (an alert's channels, a test call); default: every webhook of the organization subscribed to the type */
  webhookIds?: string[];
  test?: boolean;
}

/** Write an organization's event and its deliveries; returns the event id and how many deliveries. */
export async function enqueueEvent(db: Queryable, e: EventDraft): Promise<{ eventId: string; deliveries: string[] }> {
  const eventId = newId('webhook_event');
  await db.query('INSERT INTO webhook_event (id, organization_id, type, seq, payload) VALUES ($1, $2, $3, $4, $5)', [eventId, e.organizationId, e.type, e.seq ?? null, JSON.stringify(e.data)]);
  const { rows } = await db.query(
    `INSERT INTO webhook_delivery (id, webhook_id, organization_id, event_id, test)
     SELECT ${DELIVERY_ID}, w.id, w.organization_id, $2, $5 FROM webhook w
      WHERE w.organization_id = $1 AND w.deleted_at IS NULL
        AND ($4::text[] IS NULL AND $3 = ANY(w.event_type) OR w.id = ANY($4::text[]))
      ORDER BY w.id
     RETURNING id`,
    [e.organizationId, eventId, e.type, e.webhookIds ?? null, e.test ?? false],
  );
  if (rows.length > 0) await db.query(`SELECT pg_notify('landlex_webhook', '')`);
  return { eventId, deliveries: rows.map((r) => r.id) };
}

/**
 * The feed's events just written (by id), each as a webhook event of type law.<layer>.<kind>
 * and a delivery to every webhook of any organization subscribed to that type, in seq order.
 * Called in the load's transaction, after the change events are inserted.
 */
export async function fanOutChangeEvents(db: Queryable, changeEventIds: string[]): Promise<number> {
  if (changeEventIds.length === 0) return 0;
  await db.query(
    `INSERT INTO webhook_event (id, organization_id, type, seq, payload, created_at)
     SELECT 'evt_' || substr(e.id, 5), NULL, 'law.' || e.layer || '.' || e.kind, e.seq,
            jsonb_build_object('change_event', ${CHANGE_EVENT_JSON}),
            e.detected_at
       FROM change_event e JOIN jurisdiction j ON j.id = e.jurisdiction_id
      WHERE e.id = ANY($1)
        -- only what some webhook subscribes to: a load with no subscriber writes nothing here
        AND EXISTS (SELECT 1 FROM webhook w WHERE w.deleted_at IS NULL AND 'law.' || e.layer || '.' || e.kind = ANY(w.event_type))
      ORDER BY e.seq
     ON CONFLICT (id) DO NOTHING`,
    [changeEventIds],
  );
  const { rowCount } = await db.query(
    `INSERT INTO webhook_delivery (id, webhook_id, organization_id, event_id)
     SELECT ${DELIVERY_ID}, w.id, w.organization_id, v.id
       FROM webhook_event v JOIN webhook w ON v.type = ANY(w.event_type) AND w.deleted_at IS NULL
      WHERE v.id = ANY(SELECT 'evt_' || substr(x, 5) FROM unnest($1::text[]) x)
      ORDER BY v.seq, w.id
     ON CONFLICT (webhook_id, event_id) DO NOTHING`,
    [changeEventIds],
  );
  if (rowCount) await db.query(`SELECT pg_notify('landlex_webhook', '')`);
  return rowCount ?? 0;
}
