-- Permits, applications and cases cite the feed record they were read from (the record's own
-- characters in the retained version's text); searches across towns read them by jurisdiction,
-- kind and date. Meetings of the bodies that decide (planning board, zoning board, council), with
-- their agendas and decisions, read from a meeting feed.
ALTER TABLE land_record ADD COLUMN citation_id text REFERENCES citation(id);
CREATE INDEX land_record_scope ON land_record (jurisdiction_id, kind, published_on);

CREATE TABLE meeting (
  fact_id bigserial PRIMARY KEY,
  id text NOT NULL,                            -- mtg_, stable from jurisdiction and the publisher's key
  content_sha256 text NOT NULL,
  source_id text NOT NULL,                     -- the meeting feed that states it
  jurisdiction_id text NOT NULL REFERENCES jurisdiction(id),
  meeting_key text NOT NULL,                   -- the publisher's id (else body and date)
  body_name text NOT NULL,                     -- as printed
  body_type text,                              -- planning_board, zoning_board, council...; null when the mapping does not name it
  meets_on date NOT NULL,                      -- local date
  time_local text,                             -- HH:MM, in the jurisdiction's timezone
  status text,                                 -- scheduled, held, cancelled, postponed; null when unmapped
  body jsonb NOT NULL,                         -- location, status_raw, agenda[], decision[], document
  case_numbers text[] NOT NULL DEFAULT '{}',   -- cases its agenda or decisions name
  ordinance_numbers text[] NOT NULL DEFAULT '{}',
  citation_id text REFERENCES citation(id),
  source_version_id text REFERENCES document_version(id),
  valid daterange NOT NULL DEFAULT daterange(NULL, NULL),
  known tstzrange NOT NULL,
  EXCLUDE USING gist (id WITH =, source_id WITH =, valid WITH &&, known WITH &&)
);
CREATE INDEX meeting_id ON meeting (id);
CREATE INDEX meeting_scope ON meeting (jurisdiction_id, meets_on);
CREATE INDEX meeting_cases ON meeting USING gin (case_numbers);
