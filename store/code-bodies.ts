// The code text's sections in force, for the readers that look through a whole code (the
// bodies it names): headings and bodies in code order, with the citation of each.
import type { Queryable } from './db.ts';

export interface SectionText {
  ref: string;
  heading: string | null;
  body: string;
  citation_id: string | null;
  document_id: string;
}

/** Sections in force on `asOf` (a date) as known at `knownAt` (an ISO instant), in code order. */
export async function sectionsInForce(db: Queryable, jurisdictionId: string, asOf: string, knownAt: string): Promise<SectionText[]> {
  const { rows } = await db.query(
    `SELECT ref, heading, body, citation_id, document_id FROM section
      WHERE jurisdiction_id = $1 AND valid @> $2::date AND known @> $3::timestamptz ORDER BY document_id, ordinal`,
    [jurisdictionId, asOf, knownAt],
  );
  return rows;
}
