-- Webhooks (spec 4.10, 6.2, 6.3): endpoints an organization registers, the events they are
-- sent, one delivery per (webhook, event) and every attempt at it. The outbox is these tables:
-- events and their deliveries are written in the transaction that causes them (a change event,
-- a monitor's match, a test call), and the dispatcher (in-process or a Temporal workflow per
-- delivery) only ever reads due deliveries from here, so nothing detected is lost by a crash.
CREATE TABLE webhook (
  id text PRIMARY KEY,                              -- whk_
  organization_id text NOT NULL REFERENCES organization(id),
  name text,
  url text NOT NULL,
  event_type text[] NOT NULL,
  active boolean NOT NULL DEFAULT true,
  -- Standard Webhooks secret (whsec_ + base64 key): kept to sign; shown once, then by fingerprint
  secret text NOT NULL,
  -- the secret before the last rotation, still signed with until previous_secret_until
  previous_secret text,
  previous_secret_until timestamptz,
  retry_policy jsonb NOT NULL,
  -- why the service set active to false (410 Gone from the receiver), cleared by a PATCH
  disabled_reason text,
  version integer NOT NULL DEFAULT 1,               -- raised by every change; the ETag carries it
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz
);
CREATE INDEX webhook_org ON webhook (organization_id, created_at DESC) WHERE deleted_at IS NULL;
CREATE INDEX webhook_event_type ON webhook USING gin (event_type) WHERE deleted_at IS NULL AND active;

-- One event, delivered to any number of webhooks. organization_id is null for the public change
-- feed's events (every subscribed webhook of any organization receives them).
CREATE TABLE webhook_event (
  id text PRIMARY KEY,                              -- evt_
  organization_id text REFERENCES organization(id),
  type text NOT NULL,
  seq bigint,                                       -- the change event's seq where there is one
  payload jsonb NOT NULL,                           -- the event's data object
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_event_seq ON webhook_event (seq) WHERE seq IS NOT NULL;

-- ord orders one webhook's deliveries: they are created in seq order (change events commit in
-- seq order under the feed's lock) and sent head first, so a receiver sees them in that order.
CREATE SEQUENCE webhook_delivery_ord;
CREATE TABLE webhook_delivery (
  id text PRIMARY KEY,                              -- dlv_ (also the webhook-id header)
  webhook_id text NOT NULL REFERENCES webhook(id),
  organization_id text NOT NULL REFERENCES organization(id),
  event_id text NOT NULL REFERENCES webhook_event(id),
  ord bigint NOT NULL DEFAULT nextval('webhook_delivery_ord'),
  test boolean NOT NULL DEFAULT false,
  state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'succeeded', 'dead_lettered')),
  attempt_count integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  -- a dispatcher holds the delivery while it sends; a crashed one's lease runs out
  leased_until timestamptz,
  dead_letter_reason text,
  -- Temporal: the workflow started for this delivery (null in-process)
  workflow_started_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz,
  UNIQUE (webhook_id, event_id)
);
CREATE INDEX webhook_delivery_head ON webhook_delivery (webhook_id, ord) WHERE state = 'pending' AND NOT test;
CREATE INDEX webhook_delivery_test ON webhook_delivery (next_attempt_at) WHERE state = 'pending' AND test;
CREATE INDEX webhook_delivery_log ON webhook_delivery (webhook_id, created_at DESC, id DESC);

CREATE TABLE webhook_attempt (
  delivery_id text NOT NULL REFERENCES webhook_delivery(id) ON DELETE CASCADE,
  n integer NOT NULL,
  url text NOT NULL,
  started_at timestamptz NOT NULL,
  duration_ms integer NOT NULL,
  outcome text NOT NULL CHECK (outcome IN ('succeeded', 'failed', 'timeout', 'refused', 'gone')),
  status_code integer,
  response_excerpt text,
  error text,
  PRIMARY KEY (delivery_id, n)
);
