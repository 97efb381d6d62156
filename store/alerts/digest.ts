// Digests: a digest alert's matches wait until its next scheduled instant (schedule.at in its
// timezone, every day or week), then one notification sends every match since the last one.
// Exactly once with any number of senders: the alert row is locked while a digest is written and
// (alert_id, period_end) is unique, so a period already sent is never sent again.
import { type Pool, withTransaction } from '../db.ts';
import { enqueueEvent } from '../webhooks/outbox.ts';
import { alertMail, type FeedEvent } from './mail.ts';
import { CHANGE_EVENT_JSON } from '../change-event-json.ts';
import { type Channel, finishNotification, openNotification } from './notify.ts';

/** Change events carried in one digest's webhook event; the rest are in the alert's match log. */
export const DIGEST_EVENTS = 1000;

/**
 * The instant a waiting match is sent up to, at `now`: a digest alert's last scheduled instant;
 * for an alert since made immediate, `now` (its waiting matches go at once).
 */
const BOUNDARY = `CASE WHEN a.schedule->>'kind' = 'digest' THEN alert_digest_boundary(a.schedule, a.timezone, $1::timestamptz) ELSE $1::timestamptz END`;

/** Alerts with matches waiting for a period that has come and not been sent. */
export async function dueDigests(db: Pool, now: Date): Promise<string[]> {
  const { rows } = await db.query(
    `SELECT a.id FROM alert a, LATERAL (SELECT ${BOUNDARY} AS b) x
      WHERE a.id IN (SELECT DISTINCT m.alert_id FROM alert_match m WHERE m.notification_id IS NULL AND NOT m.immediate)
        AND a.enabled AND a.deleted_at IS NULL
        AND EXISTS (SELECT 1 FROM alert_match m WHERE m.alert_id = a.id AND m.notification_id IS NULL AND NOT m.immediate AND m.matched_at <= x.b)
        AND NOT EXISTS (SELECT 1 FROM alert_notification n WHERE n.alert_id = a.id AND n.period_end = x.b)
      ORDER BY a.id`,
    [now],
  );
  return rows.map((r) => r.id);
}

/** Send one alert's digest for the period ending before `now`; the notification id, or null when there was nothing to send (or another sender has it). */
export async function sendDigest(pool: Pool, alertId: string, now: Date): Promise<number | null> {
  return withTransaction(pool, async (c) => {
    const { rows } = await c.query(
      `SELECT a.id, a.organization_id, a.name, a.channel, a.schedule, a.timezone, ${BOUNDARY} AS b
         FROM alert a WHERE a.id = $2 AND a.enabled AND a.deleted_at IS NULL FOR UPDATE SKIP LOCKED`,
      [now, alertId],
    );
    const a = rows[0];
    if (!a) return null;
    const channel = a.channel as Channel[];
    const id = await openNotification(c, { alertId, organizationId: a.organization_id, kind: 'digest', periodEnd: a.b, channel });
    if (id === null) return null;
    const { rows: claimed } = await c.query(
      `WITH m AS (UPDATE alert_match SET notification_id = $1 WHERE alert_id = $2 AND notification_id IS NULL AND NOT immediate AND matched_at <= $3 RETURNING change_event_id, seq)
       SELECT ${CHANGE_EVENT_JSON} AS event FROM m JOIN change_event e ON e.id = m.change_event_id JOIN jurisdiction j ON j.id = e.jurisdiction_id ORDER BY m.seq`,
      [id, alertId, a.b],
    );
    if (claimed.length === 0) {
      await c.query('DELETE FROM alert_notification WHERE id = $1', [id]);
      return null;
    }
    const events = claimed.map((r) => r.event as FeedEvent & Record<string, unknown>);
    const periodEnd = new Date(a.b);
    const digest = { period_end: periodEnd.toISOString(), every: a.schedule.every ?? null, at: a.schedule.at ?? null, timezone: a.timezone, match_count: events.length, truncated: events.length > DIGEST_EVENTS, change_event: events.slice(0, DIGEST_EVENTS) };
    const webhooks = channel.filter((x) => x.type === 'webhook').map((x) => x.webhook!);
    let webhookEventId: string | null = null;
    if (webhooks.length > 0) {
      const data = { alert: { id: alertId, name: a.name, href: `/alert/${alertId}` }, kind: 'digest', digest };
      webhookEventId = (await enqueueEvent(c, { organizationId: a.organization_id, type: 'alert.triggered', data, seq: events[events.length - 1].seq, webhookIds: webhooks })).eventId;
    }
    const mail = alertMail({ alert: { id: alertId, name: a.name, timezone: a.timezone }, events, digest: { periodEnd, every: a.schedule.every ?? 'day' } });
    await finishNotification(c, id, { channel, mail, webhookEventId }, events.length);
    return id;
  });
}
