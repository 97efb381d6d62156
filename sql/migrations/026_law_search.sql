-- Searching the law's text (GET /law, /section). A section's words are kept beside it (a stored
-- generated column), so a search reads them instead of parsing every body in scope, the planner
-- sees what a match costs, and ranking reads the same vector; the GIN index on them replaces
-- section_body_fts (the same words, as an expression). Ordinance titles get their own index.
ALTER TABLE section ADD COLUMN tsv tsvector GENERATED ALWAYS AS (to_tsvector('english', coalesce(heading, '') || ' ' || body)) STORED;
CREATE INDEX section_tsv ON section USING gin (tsv);
DROP INDEX section_body_fts;
CREATE INDEX ordinance_title_fts ON ordinance USING gin (to_tsvector('english', title));
