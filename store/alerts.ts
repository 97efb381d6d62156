// Alerts of an organization (spec 4.9, 6.4): created, read, changed under a version (If-Match),
// deleted. Every statement names the organization, so another organization's alert is never seen.
// Matching is store/alerts/match.ts; digests store/alerts/digest.ts.

import type { Channel } from './alerts/notify.ts';
import { SEQ_LOCK } from './changes.ts';
import { type Pool, type Queryable, withTransaction } from './db.ts';

/** The predicate as matched (null: any); see PREDICATE_SQL in store/alerts/match.ts. */
export interface MatchColumns {
  m_layer: string[] | null;
  m_kind: string[] | null;
  m_jurisdiction: string[] | null;
  m_state: string | null;
  m_county: string | null;
  m_region: string | null;
  m_use: string[] | null;
  m_control_type: string[] | null;
}

export const MATCH_COLUMNS: Array<keyof MatchColumns> = ['m_layer', 'm_kind', 'm_jurisdiction', 'm_state', 'm_county', 'm_region', 'm_use', 'm_control_type'];

/** The schedule as stored; the API reads and answers it as a string (api/routes/alert-schedule.ts). */
export interface Schedule {
  kind: 'immediate' | 'digest';
  every?: 'day' | 'week';
  at?: string;
  day?: string;
}

export interface AlertRow extends MatchColumns {
  id: string;
  organization_id: string;
  name: string;
  predicate: Record<string, unknown>;
  predicate_version: number;
  trigger: string[];
  channel: Channel[];
  schedule: Schedule;
  timezone: string;
  end_time: Date | null;
  enabled: boolean;
  since_seq: string;
  read_through: string;
  version: number;
  created_at: Date;
  updated_at: Date;
  unread_count: number;
  match_count: number;
}

/** What a create or a change writes (a change: only the fields given). */
export interface AlertFields {
  name: string;
  predicate: { given: Record<string, unknown>; match: MatchColumns };
  trigger: string[];
  channel: Channel[];
  schedule: Schedule;
  timezone: string;
  end_time: string | null;
  enabled: boolean;
}

/** Counts beside the row: matches not yet read, and all matches. */
const COUNTS = `(SELECT count(*) FROM alert_match m WHERE m.alert_id = a.id AND m.id > a.read_through)::int AS unread_count,
  (SELECT count(*) FROM alert_match m WHERE m.alert_id = a.id)::int AS match_count`;
export const ALERT_SELECT = `a.*, ${COUNTS}`;

async function read(db: Queryable, organizationId: string, id: string): Promise<AlertRow | null> {
  const { rows } = await db.query(`SELECT ${ALERT_SELECT} FROM alert a WHERE a.id = $1 AND a.organization_id = $2 AND a.deleted_at IS NULL`, [id, organizationId]);
  return rows[0] ?? null;
}
export const getAlert = read;

/**
 * Create an alert watching the change feed from now: its watermark is the highest seq committed,
 * read under the feed's lock (shared), so every later load's events are above it and every
 * later load's matching sees the alert.
 */
export async function insertAlert(pool: Pool, id: string, organizationId: string, f: AlertFields): Promise<AlertRow> {
  return withTransaction(pool, async (c) => {
    await c.query('SELECT pg_advisory_xact_lock_shared($1)', [SEQ_LOCK]);
    const m = f.predicate.match;
    await c.query(
      `INSERT INTO alert (id, organization_id, name, predicate, trigger, channel, schedule, timezone, end_time, enabled, since_seq, ${MATCH_COLUMNS.join(', ')})
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, (SELECT coalesce(max(seq), 0) FROM change_event), ${MATCH_COLUMNS.map((_, i) => `$${i + 11}`).join(', ')})`,
      [id, organizationId, f.name, JSON.stringify(f.predicate.given), f.trigger, JSON.stringify(f.channel), JSON.stringify(f.schedule), f.timezone, f.end_time, f.enabled, ...MATCH_COLUMNS.map((k) => m[k])],
    );
    return (await read(c, organizationId, id))!;
  });
}

/**
 * Apply a change if the alert is at one of `versions` (null: any); a new predicate raises
 * predicate_version. 'missing' when not this organization's; 'stale' on a version.
 */
export async function updateAlert(db: Queryable, organizationId: string, id: string, versions: number[] | null, f: Partial<AlertFields>): Promise<AlertRow | 'missing' | 'stale'> {
  const values: unknown[] = [id, organizationId, versions];
  const set = (column: string, value: unknown) => {
    values.push(value);
    return `${column} = $${values.length}`;
  };
  const sets: string[] = ['version = version + 1', 'updated_at = now()'];
  if (f.name !== undefined) sets.push(set('name', f.name));
  if (f.predicate) {
    values.push(JSON.stringify(f.predicate.given));
    sets.push(`predicate = $${values.length}`, `predicate_version = predicate_version + (predicate IS DISTINCT FROM $${values.length}::jsonb)::int`);
    for (const k of MATCH_COLUMNS) sets.push(set(k, f.predicate.match[k]));
  }
  if (f.trigger) sets.push(set('trigger', f.trigger));
  if (f.channel) sets.push(set('channel', JSON.stringify(f.channel)));
  if (f.schedule) sets.push(set('schedule', JSON.stringify(f.schedule)));
  if (f.timezone) sets.push(set('timezone', f.timezone));
  if (f.end_time !== undefined) sets.push(set('end_time', f.end_time));
  if (f.enabled !== undefined) sets.push(set('enabled', f.enabled));
  const { rowCount } = await db.query(
    `UPDATE alert SET ${sets.join(', ')} WHERE id = $1 AND organization_id = $2 AND deleted_at IS NULL AND ($3::int[] IS NULL OR version = ANY($3))`,
    values,
  );
  if (rowCount) return (await read(db, organizationId, id))!;
  return (await read(db, organizationId, id)) ? 'stale' : 'missing';
}

/** Delete (the match log stays in the store, no longer served); nothing more is matched or sent. */
export async function deleteAlert(db: Queryable, organizationId: string, id: string, versions: number[] | null): Promise<'deleted' | 'missing' | 'stale'> {
  const { rowCount } = await db.query(
    `UPDATE alert SET deleted_at = now(), enabled = false, version = version + 1, updated_at = now()
      WHERE id = $1 AND organization_id = $2 AND deleted_at IS NULL AND ($3::int[] IS NULL OR version = ANY($3))`,
    [id, organizationId, versions],
  );
  if (rowCount) return 'deleted';
  return (await read(db, organizationId, id)) ? 'stale' : 'missing';
}

/**
 * Mark the alert's matches up to `through` (null: its newest) read; never unmarks. The match id
 * marked through, or null when there is none (`through` no match of this alert, or no matches).
 */
export async function markRead(db: Queryable, organizationId: string, id: string, through: number | null): Promise<number | null> {
  const { rows } = await db.query(
    `WITH t AS (SELECT max(m.id) AS id FROM alert_match m WHERE m.alert_id = $1 AND m.organization_id = $2 AND ($3::bigint IS NULL OR m.id = $3)),
     u AS (UPDATE alert a SET read_through = greatest(a.read_through, t.id) FROM t
            WHERE a.id = $1 AND a.organization_id = $2 AND a.deleted_at IS NULL AND t.id IS NOT NULL RETURNING a.id)
     SELECT t.id FROM t`,
    [id, organizationId, through],
  );
  return rows[0].id === null ? null : Number(rows[0].id);
}

/** The organization's live webhooks among `ids`. */
export async function liveWebhooks(db: Queryable, organizationId: string, ids: string[]): Promise<Set<string>> {
  const { rows } = await db.query('SELECT id FROM webhook WHERE id = ANY($1) AND organization_id = $2 AND deleted_at IS NULL', [ids, organizationId]);
  return new Set(rows.map((r) => r.id));
}
