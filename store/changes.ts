// Change events. seq comes from a sequence taken under a transaction-level advisory lock that
// is held until commit, so events commit in seq order: a reader that has seen seq k has seen
// every event below k. Call writeChangeEvents last in the load's transaction.
import { stableId } from '../core/ids.ts';
import type { Client } from './db.ts';

export const SEQ_LOCK = 7_301_100;

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
  await client.query(`SELECT pg_notify('landlex_change_event', '')`);
  return rowCount ?? 0;
}
