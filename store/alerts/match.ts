// Alerts matched against change events in the transaction that writes them (called at the end
// by writeChangeEvents): one alert_match per (alert, event) newly matching an enabled, unended
// alert's predicate; an immediate alert then sends at once, in the same transaction, one
// alert.triggered webhook event per match to its webhook channels and one email per load to its
// email channels. A digest alert's matches wait for the digest sender (activities/alerts/digest.ts).
import { CHANGE_EVENT_JSON } from '../change-event-json.ts';
import type { Queryable } from '../db.ts';
import { randomIdSql } from '../webhooks/outbox.ts';
import { type AlertMail, alertMail } from './mail.ts';
import { writeNotification } from './notify.ts';

/** The values of the event's sides a predicate list can name: `key` in subject, current and previous, and arrays under `list`. */
const named = (key: string, list?: string) => `ARRAY[e.subject->>'${key}', e.current->>'${key}', e.previous->>'${key}'${key === 'use' ? `, e.current->>'use_slug', e.previous->>'use_slug'` : ''}]${
  list ? ` || ARRAY(SELECT jsonb_array_elements_text(s) FROM unnest(ARRAY[e.current->'${list}', e.previous->'${list}']) s WHERE jsonb_typeof(s) = 'array')` : ''
}`;

/** A listed value, or a narrower one under it (dotted): residential matches residential.dwelling. */
const within = (values: string, wanted: string) => `EXISTS (SELECT 1 FROM unnest(${values}) v, unnest(${wanted}) w WHERE v = w OR starts_with(v, w || '.'))`;

/** The predicate of alert `a` over event `e` of jurisdiction `j` (null columns match anything). */
export const PREDICATE_SQL = `(a.m_layer IS NULL OR e.layer = ANY(a.m_layer))
  AND (a.m_kind IS NULL OR e.kind = ANY(a.m_kind))
  AND (a.m_jurisdiction IS NULL OR e.jurisdiction_id = ANY(a.m_jurisdiction))
  AND (a.m_state IS NULL OR j.fips_state = a.m_state)
  AND (a.m_county IS NULL OR j.fips_state || j.fips_county = a.m_county)
  AND (a.m_region IS NULL OR EXISTS (SELECT 1 FROM region_member r WHERE r.region_id = a.m_region AND r.jurisdiction_id = e.jurisdiction_id
         AND r.valid @> (e.detected_at AT TIME ZONE j.timezone)::date)
       OR EXISTS (SELECT 1 FROM statistical_area_member s WHERE s.statistical_area_id = a.m_region AND s.jurisdiction_id = e.jurisdiction_id
         AND upper_inf(s.known) AND s.valid @> (e.detected_at AT TIME ZONE j.timezone)::date))
  AND (a.m_use IS NULL OR ${within(named('use', 'uses'), 'a.m_use')})
  AND (a.m_control_type IS NULL OR ${within(named('control_type'), 'a.m_control_type')})`;

/** Match the change events just written (by id) against every live alert; returns the matches made. */
export async function matchAlerts(db: Queryable, changeEventIds: string[]): Promise<number> {
  if (changeEventIds.length === 0) return 0;
  // an event already matched (a load that wrote it again) or at or below the alert's watermark is not new
  const { rows } = await db.query(
    `INSERT INTO alert_match (alert_id, organization_id, change_event_id, seq, predicate_version, immediate)
     SELECT a.id, a.organization_id, e.id, e.seq, a.predicate_version, a.schedule->>'kind' = 'immediate'
       FROM change_event e JOIN jurisdiction j ON j.id = e.jurisdiction_id
       JOIN alert a ON a.enabled AND a.deleted_at IS NULL AND e.seq > a.since_seq AND (a.end_time IS NULL OR e.detected_at < a.end_time)
      WHERE e.id = ANY($1) AND ${PREDICATE_SQL}
      ORDER BY e.seq, a.id
     ON CONFLICT (alert_id, change_event_id) DO NOTHING
     RETURNING id, alert_id, immediate`,
    [changeEventIds],
  );
  const immediate = rows.filter((r) => r.immediate).map((r) => Number(r.id));
  if (immediate.length > 0) await sendImmediate(db, immediate);
  return rows.length;
}

/** The immediate matches (by id): their webhook events and deliveries, then one notification (and mail) per alert. */
async function sendImmediate(db: Queryable, matchIds: number[]): Promise<void> {
  const { rowCount } = await db.query(
    `WITH ev AS (
       SELECT m.id AS match_id, ${randomIdSql('evt')} AS event_id, m.organization_id, m.seq, a.channel,
              jsonb_build_object('alert', jsonb_build_object('id', a.id, 'name', a.name, 'href', '/alert/' || a.id),
                                 'kind', 'immediate', 'change_event', ${CHANGE_EVENT_JSON}) AS payload
         FROM alert_match m JOIN alert a ON a.id = m.alert_id
         JOIN change_event e ON e.id = m.change_event_id JOIN jurisdiction j ON j.id = e.jurisdiction_id
        WHERE m.id = ANY($1) AND jsonb_path_exists(a.channel, '$[*] ? (@.type == "webhook")')
     ), events AS (
       INSERT INTO webhook_event (id, organization_id, type, seq, payload) SELECT event_id, organization_id, 'alert.triggered', seq, payload FROM ev ORDER BY seq
     ), marked AS (
       UPDATE alert_match m SET webhook_event_id = ev.event_id FROM ev WHERE m.id = ev.match_id
     )
     INSERT INTO webhook_delivery (id, webhook_id, organization_id, event_id)
     SELECT ${randomIdSql('dlv')}, w.id, w.organization_id, ev.event_id
       FROM ev JOIN webhook w ON w.organization_id = ev.organization_id AND w.deleted_at IS NULL
        AND w.id IN (SELECT c->>'webhook' FROM jsonb_array_elements(ev.channel) c WHERE c->>'type' = 'webhook')
      ORDER BY ev.seq, w.id`,
    [matchIds],
  );
  if (rowCount) await db.query(`SELECT pg_notify('landlex_webhook', '')`);

  const { rows } = await db.query(
    `SELECT a.id, a.organization_id, a.name, a.channel, a.timezone, array_agg(m.id ORDER BY m.seq) AS match_ids,
            jsonb_agg(${CHANGE_EVENT_JSON} ORDER BY m.seq) AS events
       FROM alert_match m JOIN alert a ON a.id = m.alert_id
       JOIN change_event e ON e.id = m.change_event_id JOIN jurisdiction j ON j.id = e.jurisdiction_id
      WHERE m.id = ANY($1) GROUP BY a.id ORDER BY a.id`,
    [matchIds],
  );
  for (const a of rows) {
    const mail: AlertMail = { alert: { id: a.id, name: a.name, timezone: a.timezone }, events: a.events, digest: null };
    await writeNotification(db, { alertId: a.id, organizationId: a.organization_id, kind: 'immediate', periodEnd: null, channel: a.channel, matchIds: a.match_ids.map(Number), mail: alertMail(mail), webhookEventId: null });
  }
}
