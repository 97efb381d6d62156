-- API processes also keep what a tile's ETag hangs on (tiles/keys.ts: map versions and their
-- extents, when district facts changed, coverage updates). A statement that changes map versions
-- or district facts tells them to drop it too (coverage and loads already do, migration 013).
CREATE TRIGGER knowledge_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON map_version FOR EACH STATEMENT EXECUTE FUNCTION knowledge_changed();
CREATE TRIGGER knowledge_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON district FOR EACH STATEMENT EXECUTE FUNCTION knowledge_changed();
