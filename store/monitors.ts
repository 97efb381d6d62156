// Monitors (mon_): one per list of an organization, and what each has matched. Matching itself is
// in store/monitors/ (records.ts for permits and cases, law.ts for change events), called from the
// loads that write what it matches.
import type { ResourceDef } from '../core/query/index.ts';
import { type Pool, type Queryable, withTransaction } from './db.ts';

export interface MonitorRow {
  id: string;
  organization_id: string;
  list_id: string;
  active: boolean;
  created_at: Date;
  updated_at: Date;
}

const LIVE = 'm.deleted_at IS NULL';

/** One of the organization's live monitors; another organization's, or a stopped one, is not found. */
export async function getMonitor(db: Queryable, organizationId: string, id: string): Promise<MonitorRow | null> {
  const { rows } = await db.query(`SELECT m.* FROM monitor m WHERE m.id = $1 AND m.organization_id = $2 AND ${LIVE}`, [id, organizationId]);
  return rows[0] ?? null;
}

/** The organization's live monitors, most recently created first. */
export async function listMonitors(db: Queryable, organizationId: string): Promise<MonitorRow[]> {
  const { rows } = await db.query(`SELECT m.* FROM monitor m WHERE m.organization_id = $1 AND ${LIVE} ORDER BY m.created_at DESC, m.id DESC`, [organizationId]);
  return rows;
}

/**
 * The list's monitor: made (created true) unless the list has one, which is returned unchanged.
 * `missing` when the organization has no such list.
 */
export async function ensureMonitor(pool: Pool, r: { id: string; organizationId: string; listId: string; active: boolean }): Promise<{ monitor: MonitorRow; created: boolean } | 'missing'> {
  return withTransaction(pool, async (c) => {
    // the list's lock orders two creations for one list: the second finds the first's monitor
    const { rows: list } = await c.query('SELECT id FROM list WHERE id = $1 AND organization_id = $2 FOR UPDATE', [r.listId, r.organizationId]);
    if (!list[0]) return 'missing';
    const { rows: held } = await c.query(`SELECT m.* FROM monitor m WHERE m.list_id = $1 AND ${LIVE}`, [r.listId]);
    if (held[0]) return { monitor: held[0], created: false };
    const { rows } = await c.query('INSERT INTO monitor (id, organization_id, list_id, active) VALUES ($1, $2, $3, $4) RETURNING *', [r.id, r.organizationId, r.listId, r.active]);
    return { monitor: rows[0], created: true };
  });
}

export async function setMonitorActive(db: Queryable, organizationId: string, id: string, active: boolean): Promise<MonitorRow | null> {
  const { rows } = await db.query(
    `UPDATE monitor m SET active = $3, updated_at = CASE WHEN m.active = $3 THEN m.updated_at ELSE now() END
      WHERE m.id = $1 AND m.organization_id = $2 AND ${LIVE} RETURNING m.*`,
    [id, organizationId, active],
  );
  return rows[0] ?? null;
}

/** Stop a monitor: it matches nothing more and is gone for its organization; its matches stay on record. */
export async function stopMonitor(db: Queryable, organizationId: string, id: string): Promise<boolean> {
  const { rowCount } = await db.query(`UPDATE monitor m SET active = false, deleted_at = now(), updated_at = now() WHERE m.id = $1 AND m.organization_id = $2 AND ${LIVE}`, [id, organizationId]);
  return (rowCount ?? 0) > 0;
}

export const MATCH_KINDS = ['permit', 'case', 'law'] as const;

export interface MatchRow {
  event_id: string;
  monitor_id: string;
  kind: (typeof MATCH_KINDS)[number];
  subject_id: string;
  seq: string | null;
  item_id: string;
  parcel_ids: string[];
  matched_at: Date;
  type: string;
  payload: Record<string, any>;
}

/** A monitor's matches, newest first (the route binds monitor_id), with the event each produced. */
export const MATCHES: ResourceDef = {
  name: 'monitor_match',
  from: 'monitor_match mm JOIN webhook_event v ON v.id = mm.event_id',
  id: 'mm.event_id',
  select: 'mm.*, v.type, v.payload',
  defaultSort: '-matched_at',
  snapshotColumn: 'mm.matched_at',
  fields: {
    matched_at: { sql: 'mm.matched_at', type: 'timestamp', sortable: true, nullable: false },
    kind: { sql: 'mm.kind', type: 'enum', enum: MATCH_KINDS, nullable: false },
  },
};
