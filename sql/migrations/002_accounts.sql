-- Organizations, people, memberships, sessions, invitations, email tokens, API keys, outbox.
CREATE TABLE organization (
  id text PRIMARY KEY,
  name text NOT NULL,
  slug text NOT NULL UNIQUE,
  plan text NOT NULL DEFAULT 'prepaid',
  included_credits bigint NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE person (
  id text PRIMARY KEY,
  email citext NOT NULL UNIQUE,
  password_hash text NOT NULL,
  first_name text,
  last_name text,
  verified_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE membership (
  person_id text NOT NULL REFERENCES person(id),
  organization_id text NOT NULL REFERENCES organization(id),
  role text NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (person_id, organization_id)
);
CREATE INDEX membership_org ON membership (organization_id);

-- Console sessions: only the sha256 of the token is kept.
CREATE TABLE session (
  token_hash text PRIMARY KEY,
  person_id text NOT NULL REFERENCES person(id),
  organization_id text NOT NULL REFERENCES organization(id),
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  revoked_at timestamptz
);

CREATE TABLE invitation (
  id text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organization(id),
  email citext NOT NULL,
  role text NOT NULL CHECK (role IN ('admin', 'member')),
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'accepted', 'revoked')),
  invited_by text REFERENCES person(id),
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  accepted_at timestamptz,
  revoked_at timestamptz
);
CREATE INDEX invitation_org ON invitation (organization_id, created_at DESC);

-- One-use tokens sent by email (verification, password reset, invitation); hashed.
CREATE TABLE email_token (
  token_hash text PRIMARY KEY,
  purpose text NOT NULL CHECK (purpose IN ('verify', 'reset', 'invite')),
  person_id text REFERENCES person(id),
  invitation_id text REFERENCES invitation(id),
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE api_key (
  id text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organization(id),
  name text NOT NULL,
  key_prefix text NOT NULL,
  key_hash text NOT NULL UNIQUE,
  scopes text[] NOT NULL,
  created_by text REFERENCES person(id),
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz,
  revoked_at timestamptz,
  last_used_at timestamptz,
  usage_count bigint NOT NULL DEFAULT 0
);
CREATE INDEX api_key_org ON api_key (organization_id, created_at DESC);

-- Outgoing mail: written in the same transaction as the change that sends it,
-- delivered over SMTP by a dispatcher that retries.
CREATE TABLE email_outbox (
  id bigserial PRIMARY KEY,
  to_address text NOT NULL,
  subject text NOT NULL,
  body_text text NOT NULL,
  purpose text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  last_error text,
  sent_at timestamptz
);
CREATE INDEX email_outbox_pending ON email_outbox (next_attempt_at) WHERE sent_at IS NULL;
