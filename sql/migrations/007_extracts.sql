-- Extracts: a job that writes a resource's rows, as of fixed times, to JSONL or Parquet files.
-- State moves queued -> running -> succeeded | failed (a failed one may be run again by an
-- operator). Files are listed only once complete: their rows are written in the same
-- transaction that marks the extract succeeded, so a partial file is never listed.
CREATE TABLE extract (
  id text PRIMARY KEY,
  organization_id text REFERENCES organization(id),   -- null: an operator's extract (the CLI)
  state text NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'running', 'succeeded', 'failed')),
  resource text NOT NULL,
  format text NOT NULL CHECK (format IN ('jsonl', 'parquet')),
  request jsonb NOT NULL,                      -- the body as understood
  plan jsonb NOT NULL,                         -- resolved: jurisdictions, times, fields, filter
  dir text,                                    -- where files go; null: EXTRACT_DIR/<id>
  row_estimate bigint NOT NULL,
  credit_estimate integer NOT NULL,
  credits_charged integer NOT NULL DEFAULT 0,
  refunded_at timestamptz,
  row_count bigint,
  attempts integer NOT NULL DEFAULT 0,
  error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  started_at timestamptz,
  finished_at timestamptz,
  expires_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX extract_org ON extract (organization_id, created_at DESC, id DESC);
CREATE INDEX extract_expiry ON extract (expires_at) WHERE state = 'succeeded';

CREATE TABLE extract_file (
  extract_id text NOT NULL REFERENCES extract(id) ON DELETE CASCADE,
  name text NOT NULL,
  format text NOT NULL CHECK (format IN ('jsonl', 'parquet')),
  media_type text NOT NULL,
  size bigint NOT NULL,
  rows bigint NOT NULL,
  sha256 text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,                      -- set when the file is removed after expires_at
  PRIMARY KEY (extract_id, name)
);
