// Webhook endpoints of an organization: created, read, changed under a version (If-Match), deleted.
// Every statement names the organization, so another organization's webhook is never seen.
import type { RetryPolicy } from '../../core/webhooks/retry-policy.ts';
import type { Queryable } from '../db.ts';

export interface WebhookRow {
  id: string;
  organization_id: string;
  name: string | null;
  url: string;
  event_type: string[];
  active: boolean;
  secret: string;
  previous_secret: string | null;
  previous_secret_until: Date | null;
  retry_policy: RetryPolicy;
  disabled_reason: string | null;
  version: number;
  created_at: Date;
  updated_at: Date;
}

export async function insertWebhook(
  db: Queryable,
  w: { id: string; organizationId: string; name: string | null; url: string; eventType: string[]; active: boolean; secret: string; policy: RetryPolicy },
): Promise<WebhookRow> {
  const { rows } = await db.query(
    `INSERT INTO webhook (id, organization_id, name, url, event_type, active, secret, retry_policy)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING *`,
    [w.id, w.organizationId, w.name, w.url, w.eventType, w.active, w.secret, JSON.stringify(w.policy)],
  );
  return rows[0];
}

export async function getWebhook(db: Queryable, organizationId: string, id: string): Promise<WebhookRow | null> {
  const { rows } = await db.query('SELECT * FROM webhook WHERE id = $1 AND organization_id = $2 AND deleted_at IS NULL', [id, organizationId]);
  return rows[0] ?? null;
}

export interface WebhookChange {
  url?: string;
  name?: string | null;
  eventType?: string[];
  active?: boolean;
  policy?: RetryPolicy;
}

/**
 * Apply a change if the webhook is at one of `versions` (null: any). Setting active clears the
 * reason the service disabled it. 'missing' when not this organization's; 'stale' on a version.
 */
export async function updateWebhook(db: Queryable, organizationId: string, id: string, versions: number[] | null, c: WebhookChange): Promise<WebhookRow | 'missing' | 'stale'> {
  const { rows } = await db.query(
    `UPDATE webhook SET
        url = coalesce($4, url),
        name = CASE WHEN $5 THEN $6 ELSE name END,
        event_type = coalesce($7, event_type),
        active = coalesce($8, active),
        disabled_reason = CASE WHEN $8 IS NOT NULL THEN NULL ELSE disabled_reason END,
        retry_policy = coalesce($9::jsonb, retry_policy),
        version = version + 1, updated_at = now()
      WHERE id = $1 AND organization_id = $2 AND deleted_at IS NULL AND ($3::int[] IS NULL OR version = ANY($3))
      RETURNING *`,
    [id, organizationId, versions, c.url ?? null, c.name !== undefined, c.name ?? null, c.eventType ?? null, c.active ?? null, c.policy ? JSON.stringify(c.policy) : null],
  );
  if (rows[0]) return rows[0];
  return (await getWebhook(db, organizationId, id)) ? 'stale' : 'missing';
}

/** Soft delete (the delivery log keeps its webhook); pending deliveries are not sent. */
export async function deleteWebhook(db: Queryable, organizationId: string, id: string, versions: number[] | null): Promise<'deleted' | 'missing' | 'stale'> {
  const { rowCount } = await db.query(
    `UPDATE webhook SET deleted_at = now(), active = false, version = version + 1, updated_at = now()
      WHERE id = $1 AND organization_id = $2 AND deleted_at IS NULL AND ($3::int[] IS NULL OR version = ANY($3))`,
    [id, organizationId, versions],
  );
  if (rowCount) return 'deleted';
  return (await getWebhook(db, organizationId, id)) ? 'stale' : 'missing';
}

/** A new secret; the old one is still signed with until `graceSeconds` from now. */
export async function rotateSecret(db: Queryable, organizationId: string, id: string, secret: string, graceSeconds: number): Promise<WebhookRow | null> {
  const { rows } = await db.query(
    `UPDATE webhook SET previous_secret = secret, previous_secret_until = now() + make_interval(secs => $4),
            secret = $3, version = version + 1, updated_at = now()
      WHERE id = $1 AND organization_id = $2 AND deleted_at IS NULL RETURNING *`,
    [id, organizationId, secret, graceSeconds],
  );
  return rows[0] ?? null;
}
