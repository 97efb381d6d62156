-- Knowledge-time settling. A load stamps what it writes (facts' `known`, change events'
-- `detected_at`) with the instant it began, but its rows become visible only when it commits.
-- Each load is announced here, committed, before its transaction starts, and settled after it
-- commits or rolls back. A reader clamps a knowledge instant that falls in a window
-- [detected_at, settled_at) of a load of the jurisdiction (an unsettled one: [detected_at, ∞))
-- to just before detected_at, so an answer at known_as_of = T is the same before, during and
-- after the load. Settled windows are kept: they decide later repetitions of answers given while
-- the load was in flight. The loading session holds the advisory lock (7301101, id) until it has
-- settled the row, so a row left unsettled by a dead process can be told apart and settled.
CREATE TABLE knowledge_load (
  id serial PRIMARY KEY,
  label text NOT NULL,                          -- what was loaded: source key and version
  jurisdiction_ids text[] NOT NULL,             -- whose facts and events it writes
  detected_at timestamptz NOT NULL,             -- the stamp the load writes
  settled_at timestamptz,                       -- after commit or rollback; null while in flight
  outcome text CHECK (outcome IN ('committed', 'rolled_back', 'abandoned')),
  created_at timestamptz NOT NULL DEFAULT now(),
  CHECK (settled_at IS NULL OR settled_at > detected_at)
);
CREATE INDEX knowledge_load_window ON knowledge_load USING gist (tstzrange(detected_at, settled_at, '[)'));
CREATE INDEX knowledge_load_unsettled ON knowledge_load (detected_at) WHERE settled_at IS NULL;

-- The settled knowledge instant of a jurisdiction for an instant t: t itself, unless a load's
-- window holds it; then just before that load began, and again while that instant is in a window.
CREATE FUNCTION knowledge_settled(j text, t timestamptz) RETURNS timestamptz
LANGUAGE plpgsql STABLE AS $$
DECLARE
  d timestamptz;
BEGIN
  LOOP
    SELECT min(l.detected_at) INTO d FROM knowledge_load l
     WHERE tstzrange(l.detected_at, l.settled_at, '[)') @> t AND j = ANY(l.jurisdiction_ids);
    EXIT WHEN d IS NULL;
    t := d - interval '1 microsecond';
  END LOOP;
  RETURN t;
END
$$;

-- /rule refuses a control_type that no jurisdiction states: the check probes this index.
CREATE INDEX control_type ON control (control_type);

-- Answers are replayed byte for byte: json keeps the text as served (jsonb reorders keys).
ALTER TABLE answer ALTER COLUMN body TYPE json USING body::json, ALTER COLUMN request TYPE json USING request::json;
