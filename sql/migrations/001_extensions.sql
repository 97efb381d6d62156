-- Extensions every later migration relies on.
CREATE EXTENSION IF NOT EXISTS postgis;
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE EXTENSION IF NOT EXISTS btree_gist;
CREATE EXTENSION IF NOT EXISTS citext;
CREATE EXTENSION IF NOT EXISTS pgcrypto;

-- Settings shared by every process (the cursor and token signing secret when SECRET_KEY is unset).
CREATE TABLE service_setting (
  name text PRIMARY KEY,
  value text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
INSERT INTO service_setting (name, value)
VALUES ('secret_key', encode(gen_random_bytes(32), 'hex'))
ON CONFLICT DO NOTHING;
