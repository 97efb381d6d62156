-- Corrections: a caller disputes a cited passage; the dispute is kept and answered, never
-- applied silently to the facts.
CREATE TABLE correction (
  id text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organization(id),
  citation_id text NOT NULL REFERENCES citation(id),
  subject text NOT NULL,
  claim text NOT NULL,
  proposed_value text,
  evidence_url text,
  document text,
  state text NOT NULL DEFAULT 'received' CHECK (state IN ('received', 'reviewing', 'accepted', 'rejected')),
  what_would_satisfy_it text NOT NULL,
  resolution text,
  reviewed_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX correction_citation ON correction (citation_id, created_at DESC);
