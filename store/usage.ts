// Usage and credit of one organization, read from usage_event, credit_account and credit_ledger.
// Every query is filtered by the organization asked for; callers pass the actor's own.
import type { Queryable } from './db.ts';

export interface Tally {
  name: string;
  requests: number;
  credits: number;
}

export interface UsageSummary {
  organization_id: string;
  since: string;
  until: string;
  requests: number;
  credits_spent: number;
  free_requests: number;
  credit_balance: number;
  included_credits: number;
  daily: Array<{ day: string; requests: number; credits: number }>;
  by_endpoint: Tally[];
  by_key: Array<Tally & { id: string | null; kind: 'key' | 'session' | 'oauth_client' }>;
}

/** The window of `days` UTC days that ends today (today included), up to now. */
export function usageWindow(days: number, now = new Date()): { since: Date; until: Date } {
  const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return { since: new Date(midnight - (days - 1) * 86_400_000), until: now };
}

export async function accountOf(db: Queryable, organizationId: string): Promise<{ name: string; slug: string; plan: string; balance: number; included_credits: number }> {
  const { rows } = await db.query(
    `SELECT o.name, o.slug, o.plan, o.included_credits, COALESCE(a.balance, 0) AS balance
       FROM organization o LEFT JOIN credit_account a ON a.organization_id = o.id WHERE o.id = $1`,
    [organizationId],
  );
  if (!rows[0]) throw new Error(`No organization ${organizationId}`);
  return rows[0];
}

export async function usageSummary(db: Queryable, organizationId: string, days: number, now = new Date()): Promise<UsageSummary> {
  const { since, until } = usageWindow(days, now);
  const args = [organizationId, since.toISOString(), until.toISOString()];
  const window = 'organization_id = $1 AND at >= $2 AND at <= $3';
  const [totals, daily, endpoints, keys, account] = await Promise.all([
    db.query(
      `SELECT count(*)::int AS requests, COALESCE(sum(credits), 0)::bigint AS credits,
              (count(*) FILTER (WHERE credits = 0 AND status < 400))::int AS free
         FROM usage_event WHERE ${window}`,
      args,
    ),
    db.query(
      `SELECT to_char(d, 'YYYY-MM-DD') AS day, COALESCE(u.requests, 0)::int AS requests, COALESCE(u.credits, 0)::bigint AS credits
         FROM generate_series(($2::timestamptz AT TIME ZONE 'UTC')::date, ($3::timestamptz AT TIME ZONE 'UTC')::date, interval '1 day') AS d
         LEFT JOIN (SELECT (at AT TIME ZONE 'UTC')::date AS day, count(*) AS requests, sum(credits) AS credits
                      FROM usage_event WHERE ${window} GROUP BY 1) u ON u.day = d::date
        ORDER BY d`,
      args,
    ),
    db.query(
      `SELECT endpoint AS name, count(*)::int AS requests, sum(credits)::bigint AS credits
         FROM usage_event WHERE ${window} GROUP BY endpoint ORDER BY count(*) DESC, endpoint`,
      args,
    ),
    db.query(
      `SELECT COALESCE(u.key_id, u.person_id) AS id,
              CASE WHEN u.key_id IS NULL THEN 'session' WHEN c.id IS NOT NULL THEN 'oauth_client' ELSE 'key' END AS kind,
              COALESCE(k.name, 'oauth: ' || c.name, 'session: ' || p.email, 'unknown') AS name, count(*)::int AS requests, sum(u.credits)::bigint AS credits
         FROM usage_event u LEFT JOIN api_key k ON k.id = u.key_id LEFT JOIN oauth_client c ON c.id = u.key_id
         LEFT JOIN person p ON p.id = u.person_id AND u.key_id IS NULL
        WHERE u.organization_id = $1 AND u.at >= $2 AND u.at <= $3
        GROUP BY 1, 2, 3 ORDER BY count(*) DESC, 3`,
      args,
    ),
    accountOf(db, organizationId),
  ]);
  const t = totals.rows[0];
  return {
    organization_id: organizationId,
    since: since.toISOString(),
    until: until.toISOString(),
    requests: t.requests,
    credits_spent: t.credits,
    free_requests: t.free,
    credit_balance: account.balance,
    included_credits: account.included_credits,
    daily: daily.rows,
    by_endpoint: endpoints.rows,
    by_key: keys.rows,
  };
}

export interface LedgerEntry {
  seq: number;
  at: string;
  kind: 'grant' | 'purchase' | 'usage' | 'adjustment';
  amount: number;
  balance_after: number;
  detail: Record<string, unknown>;
}

/** Ledger moves newest first, after the move `beforeSeq` when given; one more than `limit` tells if more follow. */
export async function ledgerPage(db: Queryable, organizationId: string, limit: number, beforeSeq: number | null): Promise<LedgerEntry[]> {
  const { rows } = await db.query(
    `SELECT id AS seq, at, kind, amount, balance_after, detail FROM credit_ledger
      WHERE organization_id = $1 AND ($2::bigint IS NULL OR id < $2)
      ORDER BY id DESC LIMIT $3`,
    [organizationId, beforeSeq, limit + 1],
  );
  return rows.map((r) => ({ ...r, at: new Date(r.at).toISOString() }));
}
