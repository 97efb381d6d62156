-- OAuth 2 (spec 4.1): the clients an organization registers, the authorization codes people
-- grant them, and the tokens issued. Secrets, codes and tokens are kept only as sha256.

-- A client: public (no secret; authorization code with PKCE) or confidential (a secret; also
-- client credentials). Its scopes are the most any of its tokens may hold.
CREATE TABLE oauth_client (
  id text PRIMARY KEY,                          -- cln_…, the client_id
  organization_id text NOT NULL REFERENCES organization(id),
  name text NOT NULL,
  secret_hash text,                             -- null: a public client
  redirect_uris text[] NOT NULL,
  scopes text[] NOT NULL,
  created_by text REFERENCES person(id),
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz
);
CREATE INDEX oauth_client_org ON oauth_client (organization_id, created_at DESC, id DESC);

-- One authorization (a code and the tokens it led to, or one client-credentials grant) is a
-- grant_id: a code used twice, or a refresh token used twice, revokes every token of its grant.
CREATE TABLE oauth_code (
  code_hash text PRIMARY KEY,
  grant_id text NOT NULL,
  client_id text NOT NULL REFERENCES oauth_client(id),
  person_id text NOT NULL REFERENCES person(id),
  redirect_uri text NOT NULL,                   -- where the code was sent
  redirect_uri_given boolean NOT NULL,          -- the request named it, so the token request must too
  scopes text[] NOT NULL,
  code_challenge text,
  code_challenge_method text CHECK (code_challenge_method = 'S256'),
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX oauth_code_expiry ON oauth_code (expires_at);

CREATE TABLE oauth_token (
  id text PRIMARY KEY,
  grant_id text NOT NULL,
  client_id text NOT NULL REFERENCES oauth_client(id),
  organization_id text NOT NULL REFERENCES organization(id),
  person_id text REFERENCES person(id),         -- null: client credentials (the organization's program)
  access_hash text NOT NULL UNIQUE,
  access_expires_at timestamptz NOT NULL,
  refresh_hash text UNIQUE,
  refresh_expires_at timestamptz,
  refresh_used_at timestamptz,                  -- exchanged for a new pair (rotation)
  scopes text[] NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz
);
CREATE INDEX oauth_token_grant ON oauth_token (grant_id);
CREATE INDEX oauth_token_client ON oauth_token (client_id) WHERE revoked_at IS NULL;

-- Calls made with an OAuth token are counted per client, as calls with a key are per key: the
-- column names the credential the organization owns, an API key (key_) or an OAuth client (cln_).
ALTER TABLE usage_event DROP CONSTRAINT usage_event_key_id_fkey;
COMMENT ON COLUMN usage_event.key_id IS 'The API key (key_) or OAuth client (cln_) whose credential made the call';
