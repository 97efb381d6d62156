-- Searching thousands of jurisdictions (issue 16's benchmark).
-- Law: a section's words move from a GIN index to a RUM index (the rum extension, Debian's
-- postgresql-15-rum). RUM keeps each word's positions in the index, so `tsv <=> query` (its
-- cover-density distance) orders the matches inside the index: the best page of a state's tens of
-- thousands of matches is found without reading and ranking each section's words from the table.
-- It answers `@@` as the GIN index did.
CREATE EXTENSION IF NOT EXISTS rum;
CREATE INDEX section_tsv_rank ON section USING rum (tsv rum_tsvector_ops);
DROP INDEX section_tsv;

-- Permissions: whether a source of the coverage row read any use-table cell, kept beside the row,
-- so a state's standing reads a flag instead of walking every jurisdiction's coverage detail.
ALTER TABLE coverage ADD COLUMN cells_read boolean
  GENERATED ALWAYS AS (coalesce(detail @? '$.sources.* ? (@.permissions > 0 || @.cells_indeterminate > 0)', false)) STORED;
