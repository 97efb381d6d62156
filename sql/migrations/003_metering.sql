-- Prepaid credit, leases to API processes, usage, rate windows, idempotency records.

-- balance: what the organization holds (grants minus recorded usage); never below zero.
-- available: the part of balance not leased to an API process. balance = available + open leases' remainders.
CREATE TABLE credit_account (
  organization_id text PRIMARY KEY REFERENCES organization(id),
  balance bigint NOT NULL DEFAULT 0 CHECK (balance >= 0),
  available bigint NOT NULL DEFAULT 0 CHECK (available >= 0),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Every move of the balance: grants, purchases, adjustments, and usage written in batches.
CREATE TABLE credit_ledger (
  id bigserial PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organization(id),
  at timestamptz NOT NULL DEFAULT now(),
  kind text NOT NULL CHECK (kind IN ('grant', 'purchase', 'usage', 'adjustment')),
  amount bigint NOT NULL,
  balance_after bigint NOT NULL CHECK (balance_after >= 0),
  detail jsonb NOT NULL DEFAULT '{}'
);
CREATE INDEX credit_ledger_org ON credit_ledger (organization_id, id DESC);

-- A block of credit leased to one API process. spent is what that process has recorded;
-- settling returns amount - spent to available. A lease past expires_at is settled by anyone.
CREATE TABLE credit_lease (
  id bigserial PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organization(id),
  holder text NOT NULL,
  amount bigint NOT NULL CHECK (amount > 0),
  spent bigint NOT NULL DEFAULT 0 CHECK (spent >= 0 AND spent <= amount),
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  settled_at timestamptz
);
CREATE INDEX credit_lease_open ON credit_lease (organization_id) WHERE settled_at IS NULL;
CREATE INDEX credit_lease_expiry ON credit_lease (expires_at) WHERE settled_at IS NULL;

-- One row per answered or refused call (written in batches).
CREATE TABLE usage_event (
  id bigserial PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organization(id),
  key_id text REFERENCES api_key(id),
  person_id text REFERENCES person(id),
  request_id text NOT NULL,
  endpoint text NOT NULL,
  status integer NOT NULL,
  credits bigint NOT NULL DEFAULT 0,
  at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX usage_event_org_at ON usage_event (organization_id, at);

-- Charges that make repeats free for a while (spec 8: "free again for a day").
CREATE TABLE charge_memo (
  organization_id text NOT NULL REFERENCES organization(id),
  charge_key text NOT NULL,
  charged_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (organization_id, charge_key)
);

-- Fixed one-second windows per credential; rows older than a minute are swept.
CREATE UNLOGGED TABLE rate_window (
  subject text NOT NULL,
  window_start timestamptz NOT NULL,
  hits integer NOT NULL,
  PRIMARY KEY (subject, window_start)
);

CREATE TABLE idempotency_record (
  organization_id text NOT NULL REFERENCES organization(id),
  key text NOT NULL,
  method text NOT NULL,
  path text NOT NULL,
  request_sha256 text NOT NULL,
  status integer,
  response_headers jsonb,
  response_body bytea,
  created_at timestamptz NOT NULL DEFAULT now(),
  completed_at timestamptz,
  PRIMARY KEY (organization_id, key)
);
CREATE INDEX idempotency_record_created ON idempotency_record (created_at);
