// Citations as served inline with facts: quote, where it is, and which document version.
import type { Queryable } from './db.ts';

export interface CitationView {
  id: string;
  quote: string;
  section_ref: string | null;
  locator: Record<string, unknown>;
  document: string;
  version: string;
  url: string | null;
  retrieved_at: string;
  effective_from: string | null;
  href: string;
}

export async function citationsByIds(db: Queryable, ids: Array<string | null | undefined>): Promise<Map<string, CitationView>> {
  const wanted = [...new Set(ids.filter((x): x is string => Boolean(x)))];
  if (wanted.length === 0) return new Map();
  const { rows } = await db.query(
    `SELECT c.id, c.quote, c.section_ref, c.locator, c.document_id AS document, c.version_id AS version, d.url_canonical AS url,
            c.retrieved_at, c.effective_from::text
       FROM citation c JOIN document d ON d.id = c.document_id WHERE c.id = ANY($1::text[])`,
    [wanted],
  );
  return new Map(rows.map((r) => [r.id, { ...r, retrieved_at: new Date(r.retrieved_at).toISOString(), href: `/citation/${r.id}` }]));
}
