// Deliveries as the dispatcher sees them: which are due (the head of each active webhook's queue,
// so one endpoint receives its events in order), a lease while one is sent, and the outcome of
// each attempt written with the attempt itself.
import type { RetryPolicy } from '../../core/webhooks/retry-policy.ts';
import type { Pool, Queryable } from '../db.ts';

/**
 * The deliveries that may be sent next: per active webhook its head (first pending by ord), and
 * every pending test delivery of an active webhook (they do not wait their turn), with when each
 * falls due (its next attempt, or the end of a lease on it).
 */
const HEADS = `
  SELECT h.id, greatest(h.next_attempt_at, h.leased_until) AS due_at FROM webhook w
   CROSS JOIN LATERAL (SELECT d.id, d.next_attempt_at, d.leased_until FROM webhook_delivery d
                        WHERE d.webhook_id = w.id AND d.state = 'pending' AND NOT d.test ORDER BY d.ord LIMIT 1) h
   WHERE w.active AND w.deleted_at IS NULL
  UNION ALL
  SELECT d.id, greatest(d.next_attempt_at, d.leased_until) FROM webhook_delivery d JOIN webhook w ON w.id = d.webhook_id
   WHERE d.test AND d.state = 'pending' AND w.active AND w.deleted_at IS NULL`;

/** What a sender needs of a leased delivery (its webhook's URL, secrets and policy; its event). */
const LEASED_COLUMNS = `d.id, d.webhook_id, d.attempt_count, w.url, w.secret, w.previous_secret, w.previous_secret_until > now() AS previous_valid,
  w.retry_policy, v.id AS event_id, v.type, v.seq, v.payload, v.created_at AS event_created_at`;

function leasedOf(r: Record<string, any>): Leased {
  return {
    id: r.id,
    webhook_id: r.webhook_id,
    url: r.url,
    secrets: r.previous_valid && r.previous_secret ? [r.secret, r.previous_secret] : [r.secret],
    policy: r.retry_policy,
    attempt_count: r.attempt_count,
    event: { id: r.event_id, type: r.type, seq: r.seq, payload: r.payload, created_at: r.event_created_at },
  };
}

/**
 * Lease up to `limit` due deliveries (the head of each active webhook's queue, and test
 * deliveries) in one statement, drawn at random among the due so every webhook gets its turn (a
 * long backlog never starves another webhook's retry), skipping `except` (in flight here) and
 * rows another sender holds. A row finished or leased since the due list was read is left
 * out by the recheck of the lock.
 */
export async function claimDue(db: Queryable, limit: number, leaseSeconds: number, except: string[] = []): Promise<Leased[]> {
  const { rows } = await db.query(
    `WITH due AS (SELECT id FROM (${HEADS}) x WHERE x.due_at <= now() AND id <> ALL($3::text[]) ORDER BY random() LIMIT $1),
          locked AS (SELECT d.id FROM webhook_delivery d JOIN due USING (id)
                      WHERE d.state = 'pending' AND (d.leased_until IS NULL OR d.leased_until < now())
                      FOR UPDATE OF d SKIP LOCKED),
          leased AS (UPDATE webhook_delivery d SET leased_until = now() + make_interval(secs => $2) FROM locked WHERE d.id = locked.id
                     RETURNING d.id, d.webhook_id, d.event_id, d.attempt_count)
     SELECT ${LEASED_COLUMNS} FROM leased d JOIN webhook w ON w.id = d.webhook_id JOIN webhook_event v ON v.id = d.event_id`,
    [limit, leaseSeconds, except],
  );
  return rows.map(leasedOf);
}

/** The soonest instant a pending delivery of an active webhook comes due (null: none). */
export async function nextDueAt(db: Queryable): Promise<Date | null> {
  const { rows } = await db.query(`SELECT min(due_at) AS at FROM (${HEADS}) x`);
  return rows[0]?.at ?? null;
}

export interface Leased {
  id: string;
  webhook_id: string;
  url: string;
  secrets: string[];
  policy: RetryPolicy;
  attempt_count: number;
  event: { id: string; type: string; seq: string | null; payload: Record<string, unknown>; created_at: Date };
}

export type LeaseRefusal = { refused: 'finished' | 'deleted' | 'inactive' | 'not_due' | 'not_head' | 'held_elsewhere'; at: Date | null };

/**
 * Take a delivery to send it: it must be pending, its webhook active, its time come, no earlier
 * delivery of the webhook pending, and no lease on it. The lease outlives the call's timeout.
 */
export async function leaseDelivery(pool: Pool, id: string, leaseSeconds: number): Promise<Leased | LeaseRefusal> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const { rows } = await client.query(
      `SELECT ${LEASED_COLUMNS}, d.state, d.leased_until, d.next_attempt_at, w.active, w.deleted_at,
              d.next_attempt_at <= now() AS due, d.leased_until > now() AS leased,
              NOT d.test AND EXISTS (SELECT 1 FROM webhook_delivery e WHERE e.webhook_id = d.webhook_id AND e.state = 'pending' AND NOT e.test AND e.ord < d.ord) AS behind
         FROM webhook_delivery d JOIN webhook w ON w.id = d.webhook_id JOIN webhook_event v ON v.id = d.event_id
        WHERE d.id = $1 FOR UPDATE OF d SKIP LOCKED`,
      [id],
    );
    const r = rows[0];
    const refuse = async (refused: LeaseRefusal['refused'], at: Date | null = null): Promise<LeaseRefusal> => {
      await client.query('COMMIT');
      return { refused, at };
    };
    if (!r) return await refuse('held_elsewhere');
    if (r.state !== 'pending') return await refuse('finished');
    if (r.deleted_at) return await refuse('deleted');
    if (!r.active) return await refuse('inactive');
    if (r.leased) return await refuse('held_elsewhere', r.leased_until);
    if (!r.due) return await refuse('not_due', r.next_attempt_at);
    if (r.behind) return await refuse('not_head');
    await client.query('UPDATE webhook_delivery SET leased_until = now() + make_interval(secs => $2) WHERE id = $1', [id, leaseSeconds]);
    await client.query('COMMIT');
    return leasedOf(r);
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}

export interface AttemptRecord {
  n: number;
  url: string;
  startedAt: Date;
  durationMs: number;
  outcome: 'succeeded' | 'failed' | 'timeout' | 'refused' | 'gone';
  statusCode: number | null;
  responseExcerpt: string | null;
  error: string | null;
}

export type AttemptEnd = { state: 'succeeded' } | { state: 'pending'; retryAt: Date } | { state: 'held'; reason: string } | { state: 'dead_lettered'; reason: string };

/** Write one attempt and what follows from it, releasing the lease: one statement, so all or nothing. */
export async function recordAttempt(db: Queryable, d: Leased, a: AttemptRecord, end: AttemptEnd): Promise<void> {
  const state = end.state === 'succeeded' || end.state === 'dead_lettered' ? end.state : 'pending';
  const next = end.state === 'pending' ? end.retryAt : null;
  const reason = end.state === 'dead_lettered' ? end.reason : null;
  const held = end.state === 'held' ? end.reason : null;
  await db.query(
    `WITH attempt AS (
       INSERT INTO webhook_attempt (delivery_id, n, url, started_at, duration_ms, outcome, status_code, response_excerpt, error)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)),
     delivery AS (
       UPDATE webhook_delivery SET attempt_count = $2, state = $10, leased_until = NULL, next_attempt_at = coalesce($11, next_attempt_at),
              dead_letter_reason = $12, finished_at = CASE WHEN $10 = 'pending' THEN NULL ELSE now() END
        WHERE id = $1)
     UPDATE webhook SET active = false, disabled_reason = $14, version = version + 1, updated_at = now()
      WHERE id = $13 AND $14::text IS NOT NULL AND active`,
    [d.id, a.n, a.url, a.startedAt, a.durationMs, a.outcome, a.statusCode, a.responseExcerpt, a.error, state, next, reason, d.webhook_id, held],
  );
}

/** Temporal: pending deliveries no workflow was started for yet, oldest first. */
export async function unstartedDeliveries(db: Queryable, limit: number): Promise<string[]> {
  const { rows } = await db.query(`SELECT id FROM webhook_delivery WHERE state = 'pending' AND workflow_started_at IS NULL ORDER BY ord LIMIT $1`, [limit]);
  return rows.map((r) => r.id);
}

export async function markWorkflowStarted(db: Queryable, ids: string[]): Promise<void> {
  await db.query('UPDATE webhook_delivery SET workflow_started_at = now() WHERE id = ANY($1) AND workflow_started_at IS NULL', [ids]);
}
