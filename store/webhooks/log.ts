// The delivery log as an organization reads it: deliveries with their event and attempts.
import type { Queryable } from '../db.ts';

export interface DeliveryRow {
  id: string;
  webhook_id: string;
  webhook_active: boolean;
  event_id: string;
  type: string;
  seq: string | null;
  event_created_at: Date;
  test: boolean;
  state: 'pending' | 'succeeded' | 'dead_lettered';
  attempt_count: number;
  next_attempt_at: Date;
  dead_letter_reason: string | null;
  created_at: Date;
  finished_at: Date | null;
}

export interface AttemptRow {
  delivery_id: string;
  n: number;
  url: string;
  started_at: Date;
  duration_ms: number;
  outcome: string;
  status_code: number | null;
  response_excerpt: string | null;
  error: string | null;
}

/** FROM and SELECT of a delivery with its event, for the log's collection and for one delivery. */
export const DELIVERY_FROM = 'webhook_delivery d JOIN webhook_event v ON v.id = d.event_id JOIN webhook w ON w.id = d.webhook_id';
export const DELIVERY_SELECT = `d.id, d.webhook_id, w.active AS webhook_active, d.event_id, v.type, v.seq, v.created_at AS event_created_at, d.test, d.state,
  d.attempt_count, d.next_attempt_at, d.dead_letter_reason, d.created_at, d.finished_at`;

export async function getDelivery(db: Queryable, organizationId: string, id: string): Promise<DeliveryRow | null> {
  const { rows } = await db.query(`SELECT ${DELIVERY_SELECT} FROM ${DELIVERY_FROM} WHERE d.id = $1 AND d.organization_id = $2`, [id, organizationId]);
  return rows[0] ?? null;
}

export async function attemptsOf(db: Queryable, deliveryIds: string[]): Promise<Map<string, AttemptRow[]>> {
  const out = new Map<string, AttemptRow[]>();
  if (deliveryIds.length === 0) return out;
  const { rows } = await db.query('SELECT * FROM webhook_attempt WHERE delivery_id = ANY($1) ORDER BY delivery_id, n', [deliveryIds]);
  for (const r of rows as AttemptRow[]) out.set(r.delivery_id, [...(out.get(r.delivery_id) ?? []), r]);
  return out;
}
