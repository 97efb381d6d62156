// Writing one match: the webhook event (with one delivery per webhook of the organization subscribed
// to its type, through the outbox) and the monitor_match row naming it, in the caller's transaction.
import type { Queryable } from '../db.ts';
import { enqueueEvent } from '../webhooks/outbox.ts';

export interface Watcher {
  monitor_id: string;
  organization_id: string;
  list_id: string;
  item_id: string;
  item_name: string | null;
  filter: unknown;
}

export interface MatchDraft {
  w: Watcher;
  kind: 'permit' | 'case' | 'law';
  type: 'permit.created' | 'case.created' | 'monitor.parcel.rezoned' | 'monitor.rule.amended';
  subjectId: string;
  seq: number | null;
  parcels: Array<{ id: string; number: string | null }>;
  /** what the event is about: { permit } / { case } / { change_event, district } */
  about: Record<string, unknown>;
}

/** Who matched, as every monitor event's data names it. */
export function watcherRefs(w: Watcher, parcels: MatchDraft['parcels']) {
  return {
    monitor: { id: w.monitor_id, href: `/v1/monitor/${w.monitor_id}` },
    list: { id: w.list_id, href: `/v1/list/${w.list_id}` },
    item: { id: w.item_id, name: w.item_name, href: `/v1/list/${w.list_id}/item/${w.item_id}` },
    parcel: parcels.map((p) => ({ id: p.id, number: p.number, href: `/parcel/${p.id}` })),
  };
}

export async function writeMatch(db: Queryable, m: MatchDraft): Promise<string> {
  const data = { ...m.about, ...watcherRefs(m.w, m.parcels) };
  const { eventId } = await enqueueEvent(db, { organizationId: m.w.organization_id, type: m.type, data, seq: m.seq });
  await db.query(
    'INSERT INTO monitor_match (event_id, monitor_id, kind, subject_id, seq, item_id, parcel_ids) VALUES ($1, $2, $3, $4, $5, $6, $7)',
    [eventId, m.w.monitor_id, m.kind, m.subjectId, m.seq, m.w.item_id, m.parcels.map((p) => p.id)],
  );
  return eventId;
}

/** Whether any monitor is on: loads skip matching while none is. */
export async function anyActiveMonitor(db: Queryable): Promise<boolean> {
  const { rows } = await db.query('SELECT EXISTS (SELECT 1 FROM monitor WHERE active AND deleted_at IS NULL) AS on');
  return rows[0].on;
}
