-- API processes keep, for a short while, what a place answer says around its facts (the
-- jurisdiction, coverage rows, authorities, change-feed watermark: store/place/frame.ts) as known
-- now. Any statement that changes one of those, a load announced or settled included, tells them
-- to drop it (one notice per transaction: PostgreSQL folds repeated ones).
CREATE FUNCTION knowledge_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('landlex_knowledge', '');
  RETURN NULL;
END
$$;

CREATE TRIGGER knowledge_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON jurisdiction FOR EACH STATEMENT EXECUTE FUNCTION knowledge_changed();
CREATE TRIGGER knowledge_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON coverage FOR EACH STATEMENT EXECUTE FUNCTION knowledge_changed();
CREATE TRIGGER knowledge_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON authority FOR EACH STATEMENT EXECUTE FUNCTION knowledge_changed();
CREATE TRIGGER knowledge_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON change_event FOR EACH STATEMENT EXECUTE FUNCTION knowledge_changed();
CREATE TRIGGER knowledge_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON knowledge_load FOR EACH STATEMENT EXECUTE FUNCTION knowledge_changed();
