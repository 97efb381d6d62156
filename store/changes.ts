// Change events. seq comes from a sequence taken under a transaction-level advisory lock that
// is held until commit, so events commit in seq order: a reader that has seen seq k has seen
// every event below k. Call writeChangeEvents last in the load's transaction.
//
// Knowledge loads (sql/migrations/009): a load stamps its facts and events with the instant it
// began but they become visible only at commit, so every load is announced (knowledge_load)
// before its transaction starts and settled after; readers ask settledKnowledge for the instant
// they may answer at, which keeps an answer at known_as_of = T the same on every repetition.
import { stableId } from '../core/ids.ts';
import type { Logger } from '../core/log.ts';
import { fanOutChangeEvents } from './webhooks/outbox.ts';
import { matchChangeEvents } from './monitors/law.ts';
import { matchAlerts } from './alerts/match.ts';
import { type Client, named, type Pool, type Queryable } from './db.ts';

export const SEQ_LOCK = 7_301_100;
/** Advisory lock class held (with the knowledge_load id) by the session running that load. */
export const LOAD_LOCK = 7_301_101;

export interface ChangeEventDraft {
  jurisdictionId: string;
  kind: 'adoption' | 'amendment' | 'repeal' | 'map_change';
  layer: 'authority' | 'district' | 'district_map' | 'overlay';
  subject: Record<string, unknown>;
  fieldPath: string;
  previous: unknown;
  current: unknown;
  effectiveDate: string | null;
  adoptedOn?: string | null;
  ordinanceId?: string | null;
  sourceVersionId: string | null;
}

export async function writeChangeEvents(client: Client, events: ChangeEventDraft[], detectedAt: Date): Promise<number> {
  if (events.length === 0) return 0;
  await client.query('SELECT pg_advisory_xact_lock($1)', [SEQ_LOCK]);
  const ids = events.map((e) => stableId('change_event', e.jurisdictionId, e.layer, e.fieldPath, e.kind, e.effectiveDate, e.sourceVersionId));
  const { rowCount } = await client.query(
    `INSERT INTO change_event (id, seq, jurisdiction_id, kind, layer, subject, field_path, previous, current, effective_date, adopted_on, detected_at, ordinance_id, source_version_id)
     SELECT e.id, nextval('change_event_seq'), e.jurisdiction_id, e.kind, e.layer, e.subject, e.field_path, e.previous, e.current,
            e.effective_date, e.adopted_on, $2::timestamptz, e.ordinance_id, e.source_version_id
       FROM jsonb_to_recordset($1::jsonb) AS e(id text, jurisdiction_id text, kind text, layer text, subject jsonb, field_path text,
            previous jsonb, current jsonb, effective_date date, adopted_on date, ordinance_id text, source_version_id text, ord int)
      ORDER BY e.ord
     ON CONFLICT (id) DO NOTHING`,
    [
      JSON.stringify(
        events.map((e, i) => ({
          id: ids[i],
          jurisdiction_id: e.jurisdictionId,
          kind: e.kind,
          layer: e.layer,
          subject: e.subject,
          field_path: e.fieldPath,
          previous: e.previous ?? null,
          current: e.current ?? null,
          effective_date: e.effectiveDate,
          adopted_on: e.adoptedOn ?? null,
          ordinance_id: e.ordinanceId ?? null,
          source_version_id: e.sourceVersionId,
          ord: i,
        })),
      ),
      detectedAt.toISOString(),
    ],
  );
  await fanOutChangeEvents(client, ids);
  await matchChangeEvents(client, ids);
  await matchAlerts(client, ids);
  await client.query(`SELECT pg_notify('landlex_change_event', '')`);
  return rowCount ?? 0;
}

export interface KnowledgeLoadInput {
  /** what is loaded, for the record (source key and version) */
  label: string;
  /** the jurisdictions whose facts and events the load writes */
  jurisdictionIds: string[];
  /** the stamp the load writes (facts' known, events' detected_at) */
  detectedAt: Date;
  /** the clock read after commit or rollback: the end of the load's window */
  clock: () => Date;
}

/**
 * Run fn in one transaction as a knowledge load: announced (committed) before the transaction
 * begins, settled after it commits or rolls back. While announced and until settled, readers
 * answer those jurisdictions as known just before detectedAt.
 */
export async function withKnowledgeLoad<T>(pool: Pool, o: KnowledgeLoadInput, fn: (client: Client) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    let id: number;
    try {
      // a load of these jurisdictions whose process died ends where this check finds it dead,
      // before this load's window begins (else the first reader's clock would end it)
      await settleAbandoned(client, o.jurisdictionIds);
      // a killed worker's session ends within a second even inside a long statement or a lock
      // wait (PostgreSQL otherwise notices only when the statement ends), releasing its lock
      await client.query(`SET client_connection_check_interval = '1s'`);
      // the session lock is taken before the row is visible, so a visible unsettled row without
      // its lock is one whose process died
      await client.query('BEGIN');
      id = (await client.query('INSERT INTO knowledge_load (label, jurisdiction_ids, detected_at) VALUES ($1, $2, $3) RETURNING id', [o.label, o.jurisdictionIds, o.detectedAt])).rows[0].id;
      await client.query('SELECT pg_advisory_lock($1, $2)', [LOAD_LOCK, id]);
      await client.query('COMMIT');
    } catch (err) {
      broken = err as Error; // a session lock may outlive the rollback: the connection is dropped
      await client.query('ROLLBACK').catch(() => {});
      throw err;
    }
    let outcome: 'committed' | 'rolled_back' = 'rolled_back';
    try {
      await client.query('BEGIN');
      const result = await fn(client);
      await client.query('COMMIT');
      outcome = 'committed';
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      throw err;
    } finally {
      try {
        const end = o.clock();
        if (end.getTime() > o.detectedAt.getTime()) await client.query('UPDATE knowledge_load SET settled_at = $2, outcome = $3 WHERE id = $1', [id, end, outcome]);
        else await client.query('DELETE FROM knowledge_load WHERE id = $1', [id]); // an empty window
        await client.query('SELECT pg_advisory_unlock($1, $2)', [LOAD_LOCK, id]);
      } catch (err) {
        broken = err as Error; // left unsettled: readers settle it once the lock is gone
      }
    }
  } finally {
    client.release(broken);
  }
}

const ISO_US = `'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'`;

/** A load row `l` announced and never settled whose session (and so its lock) is gone. */
const ABANDONED = `(l.settled_at IS NULL AND NOT EXISTS (
    SELECT 1 FROM pg_locks k WHERE k.locktype = 'advisory' AND k.classid = ${LOAD_LOCK} AND k.objid = l.id::oid AND k.objsubid = 2 AND k.granted
       AND k.database = (SELECT oid FROM pg_database WHERE datname = current_database())))`;

/**
 * Rows announced and never settled whose session is gone (of the jurisdictions $1, or of all when
 * null): settled as abandoned at the instant this check finds the session gone (the database's
 * clock). Every load of a jurisdiction runs this check before it announces itself, so nothing of
 * that jurisdiction commits between the death and the check: the window ends no later than it must.
 */
const SETTLE_ABANDONED = `UPDATE knowledge_load l SET settled_at = greatest(clock_timestamp(), l.detected_at + interval '1 microsecond'), outcome = 'abandoned'
  WHERE ${ABANDONED} AND ($1::text[] IS NULL OR l.jurisdiction_ids && $1::text[])
  RETURNING l.id, l.label`;

/** Settle the loads whose process died (of these jurisdictions, or all); what was settled, by label. */
export async function settleAbandoned(db: Queryable, jurisdictionIds: string[] | null = null): Promise<string[]> {
  const { rows } = await db.query(SETTLE_ABANDONED, [jurisdictionIds]);
  return rows.map((r) => r.label as string);
}

/** At the start of a process that reads or loads knowledge: settle every load whose process died, and say so. */
export async function settleAbandonedAtStart(db: Queryable, log: Logger): Promise<void> {
  const loads = await settleAbandoned(db);
  if (loads.length > 0) log.warn('settled loads whose process died', { loads });
}

/**
 * The instant each jurisdiction's knowledge can be answered at for a knowledge instant `at`:
 * only the jurisdictions for which it differs (a load's window holds `at`), with the instant
 * just before the earliest such load began. Everything else is answered at `at` itself.
 */
export async function settledKnowledge(db: Queryable, at: string, jurisdictionIds: string[]): Promise<Map<string, string>> {
  const read = () =>
    db.query(
      named(
        'settled-knowledge',
        `SELECT x.j, to_char(knowledge_settled(x.j, $1::timestamptz) AT TIME ZONE 'UTC', ${ISO_US}) AS t, x.abandoned
         FROM (SELECT j, bool_or(${ABANDONED}) AS abandoned
                 FROM knowledge_load l, unnest(l.jurisdiction_ids) j
                WHERE tstzrange(l.detected_at, l.settled_at, '[)') @> $1::timestamptz AND j = ANY($2::text[])
                GROUP BY j) x`,
        [at, jurisdictionIds],
      ),
    );
  let { rows } = await read();
  if (rows.some((r) => r.abandoned)) {
    await settleAbandoned(db);
    ({ rows } = await read());
  }
  return new Map(rows.map((r) => [r.j as string, r.t as string]));
}

/**
 * For answers that span jurisdictions (a tile): the instant before every load whose window holds
 * `at` began, again while that instant is in a window; `at` itself when no load held it.
 */
export async function settledAnywhere(db: Queryable, at: string): Promise<string> {
  let t = at;
  for (;;) {
    const { rows } = await db.query(
      `SELECT to_char((min(l.detected_at) - interval '1 microsecond') AT TIME ZONE 'UTC', ${ISO_US}) AS t, bool_or(${ABANDONED}) AS abandoned
         FROM knowledge_load l WHERE tstzrange(l.detected_at, l.settled_at, '[)') @> $1::timestamptz`,
      [t],
    );
    if (rows[0].abandoned) {
      await settleAbandoned(db);
      continue;
    }
    if (!rows[0].t) return t;
    t = rows[0].t;
  }
}
