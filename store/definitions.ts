// The code text's definitions sections in force: a section whose heading says Definitions ("Use
// Definitions & Standards") and every section under it, as one SQL fragment for the readers of
// definitions (a rule's uses and controls, a district).

/** A heading that names the code's definitions (a PostgreSQL regular expression). */
export const DEFINITIONS_HEADING = '\\mdefinitions?\\M';

/**
 * CTEs `s` (the sections in force: $1 jurisdiction, $2 as_of date, $3 known_as_of instant) and
 * `d` (the refs of definitions sections and of the sections under them, `top` for the headed
 * ones; $4 DEFINITIONS_HEADING).
 */
export const DEFINITION_SECTIONS = `
  s AS MATERIALIZED (
    SELECT ref, heading, parent_ref, body, citation_id, document_id, ordinal FROM section
     WHERE jurisdiction_id = $1 AND valid @> $2::date AND known @> $3::timestamptz),
  d(ref, document_id, top) AS (
    SELECT ref, document_id, true FROM s WHERE heading ~* $4
    UNION SELECT c.ref, c.document_id, false FROM s c JOIN d ON c.parent_ref = d.ref AND c.document_id = d.document_id)`;
