-- Alerts (spec 4.9, 6.4): an organization's predicate over the change feed, matched in the
-- transaction that writes the change events (store/alerts/match.ts), and what each match sent.
CREATE TABLE alert (
  id text PRIMARY KEY,                              -- alr_
  organization_id text NOT NULL REFERENCES organization(id),
  name text NOT NULL,
  predicate jsonb NOT NULL,                         -- as given (validated), echoed in answers
  predicate_version integer NOT NULL DEFAULT 1,     -- raised when the predicate changes
  trigger text[] NOT NULL,
  channel jsonb NOT NULL,                           -- [{type: webhook, webhook} | {type: email, to}]
  schedule jsonb NOT NULL,                          -- {kind: immediate} | {kind: digest, every, at, day?}
  timezone text NOT NULL,
  end_time timestamptz,
  enabled boolean NOT NULL,
  -- the change feed's seq watermark when the alert was created: it watches events above it
  since_seq bigint NOT NULL,
  -- matches with an id at or below this were read (GET /alert/{alert}/match)
  read_through bigint NOT NULL DEFAULT 0,
  -- the predicate as matched: null is "any"
  m_layer text[],
  m_kind text[],
  m_jurisdiction text[],
  m_state text,                                     -- 2-digit FIPS
  m_county text,                                    -- 5-digit FIPS
  m_region text,                                    -- rgn_ or sta_
  m_use text[],                                     -- use slugs; narrower uses match too
  m_control_type text[],                            -- control types; narrower (dotted) types match too
  version integer NOT NULL DEFAULT 1,               -- raised by every change; the ETag carries it
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz
);
CREATE INDEX alert_org ON alert (organization_id, created_at DESC, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX alert_live ON alert (since_seq) WHERE enabled AND deleted_at IS NULL;

-- One notification: an immediate alert's per load (its matches in that transaction), a digest
-- per period. (alert_id, period_end) is unique, so a digest period is sent once by any number
-- of processes.
CREATE TABLE alert_notification (
  id bigserial PRIMARY KEY,
  alert_id text NOT NULL,                           -- no foreign key: a deleted alert never fails a load
  organization_id text NOT NULL REFERENCES organization(id),
  kind text NOT NULL CHECK (kind IN ('immediate', 'digest')),
  period_end timestamptz,                           -- digest: the scheduled instant it covers up to
  match_count integer NOT NULL DEFAULT 0,
  webhook_id text[] NOT NULL DEFAULT '{}',          -- the webhook channels sent to
  webhook_event_id text,                            -- digest: the one alert.triggered event
  email_id bigint[] NOT NULL DEFAULT '{}',          -- email_outbox rows written
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (alert_id, period_end)
);

CREATE TABLE alert_match (
  id bigserial PRIMARY KEY,
  alert_id text NOT NULL,
  organization_id text NOT NULL REFERENCES organization(id),
  change_event_id text NOT NULL REFERENCES change_event(id),
  seq bigint NOT NULL,
  predicate_version integer NOT NULL,
  immediate boolean NOT NULL,                       -- the schedule when matched
  matched_at timestamptz NOT NULL DEFAULT now(),
  webhook_event_id text,                            -- immediate: this match's alert.triggered event
  notification_id bigint REFERENCES alert_notification(id),
  UNIQUE (alert_id, change_event_id)
);
CREATE INDEX alert_match_log ON alert_match (alert_id, id DESC);
CREATE INDEX alert_match_pending ON alert_match (alert_id, matched_at) WHERE notification_id IS NULL;

-- The latest scheduled digest instant at or before `at`: every day, or every week on `day`
-- (monday by default), at schedule.at (HH:MM) in the alert's timezone.
CREATE FUNCTION alert_digest_boundary(p_schedule jsonb, p_tz text, p_at timestamptz) RETURNS timestamptz
LANGUAGE sql STABLE AS $$
  WITH l AS (
    SELECT (p_at AT TIME ZONE p_tz) AS local_now, (p_schedule->>'at')::time AS hm,
           CASE p_schedule->>'every' WHEN 'week' THEN interval '7 days' ELSE interval '1 day' END AS step,
           CASE p_schedule->>'every' WHEN 'week'
             THEN date_trunc('week', p_at AT TIME ZONE p_tz)
                  + make_interval(days => array_position(ARRAY['monday','tuesday','wednesday','thursday','friday','saturday','sunday'], coalesce(p_schedule->>'day', 'monday')) - 1)
             ELSE date_trunc('day', p_at AT TIME ZONE p_tz) END AS start)
  SELECT (CASE WHEN start + hm > local_now THEN start + hm - step ELSE start + hm END) AT TIME ZONE p_tz FROM l
$$;
