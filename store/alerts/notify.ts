// One notification of an alert (an immediate alert's per load, a digest per period): the row
// that says what was sent, the matches it covers, and its mail to every email channel.
import { enqueueEmail } from '../email-outbox.ts';
import type { Queryable } from '../db.ts';

export interface Channel {
  type: 'webhook' | 'email';
  webhook?: string;
  to?: string;
}

export interface NotificationDraft {
  alertId: string;
  organizationId: string;
  kind: 'immediate' | 'digest';
  /** digest: the scheduled instant it covers up to (unique per alert) */
  periodEnd: Date | null;
  channel: Channel[];
  /** immediate: the matches it covers (a digest claims its own: claimMatches) */
  matchIds?: number[];
  mail: { subject: string; text: string };
  webhookEventId: string | null;
}

/** Open a notification; null when one for this alert and period exists (a digest already sent). */
export async function openNotification(db: Queryable, n: Pick<NotificationDraft, 'alertId' | 'organizationId' | 'kind' | 'periodEnd' | 'channel'>): Promise<number | null> {
  const webhooks = n.channel.filter((c) => c.type === 'webhook').map((c) => c.webhook!);
  const { rows } = await db.query(
    `INSERT INTO alert_notification (alert_id, organization_id, kind, period_end, webhook_id) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (alert_id, period_end) DO NOTHING RETURNING id`,
    [n.alertId, n.organizationId, n.kind, n.periodEnd, webhooks],
  );
  return rows[0] ? Number(rows[0].id) : null;
}

/** Mail every email channel and record what the notification sent. */
export async function finishNotification(db: Queryable, id: number, n: Pick<NotificationDraft, 'channel' | 'mail' | 'webhookEventId'>, matchCount: number): Promise<void> {
  const emails: number[] = [];
  for (const c of n.channel) if (c.type === 'email') emails.push(await enqueueEmail(db, { to: c.to!, subject: n.mail.subject, text: n.mail.text, purpose: 'alert' }));
  await db.query('UPDATE alert_notification SET email_id = $2, webhook_event_id = $3, match_count = $4 WHERE id = $1', [id, emails, n.webhookEventId, matchCount]);
}

/** An immediate alert's notification for the matches of one load. */
export async function writeNotification(db: Queryable, n: NotificationDraft): Promise<number> {
  const id = (await openNotification(db, n))!;
  await db.query('UPDATE alert_match SET notification_id = $1 WHERE id = ANY($2)', [id, n.matchIds ?? []]);
  await finishNotification(db, id, n, n.matchIds?.length ?? 0);
  return id;
}
