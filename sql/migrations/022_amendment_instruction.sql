-- What an amending ordinance's own text instructs (ingest/ordinance/amendment-text.ts), one row
-- per instruction per version of that text. The instructions known at a knowledge time are
-- those of the ordinance's latest version loaded by then (known_from).
CREATE TABLE amendment_instruction (
  id text PRIMARY KEY,
  jurisdiction_id text NOT NULL REFERENCES jurisdiction(id),
  ordinance_id text NOT NULL,
  source_id text NOT NULL REFERENCES source(id),
  source_version_id text NOT NULL REFERENCES document_version(id),
  ordinal integer NOT NULL,
  action text NOT NULL CHECK (action IN ('replace', 'rezone', 'unread')),
  target text NOT NULL CHECK (target IN ('section', 'table', 'map', 'unknown')),
  ref text,
  row_code text,
  column_label text,
  control_type text,
  struck text,
  inserted text,
  unit text,
  from_code text,
  from_name text,
  to_code text,
  to_name text,
  land text,
  address text,
  reason text,
  citation_id text NOT NULL REFERENCES citation(id),
  known_from timestamptz NOT NULL,
  UNIQUE (source_version_id, ordinal)
);
CREATE INDEX amendment_instruction_ordinance ON amendment_instruction (ordinance_id, known_from);

-- Each version of an ordinance's own text that was read, with how many instructions it gave
-- (none is an answer too: the text amends nothing Landlex reads).
CREATE TABLE ordinance_text_read (
  source_version_id text PRIMARY KEY REFERENCES document_version(id),
  jurisdiction_id text NOT NULL REFERENCES jurisdiction(id),
  ordinance_id text NOT NULL,
  instructions integer NOT NULL,
  known_from timestamptz NOT NULL
);
CREATE INDEX ordinance_text_read_ordinance ON ordinance_text_read (ordinance_id, known_from);
