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

/** The citations whose ids the SQL expression `ids` yields, as the rows citationView shapes. */
export const CITATION_SQL = (ids: string) => `
  SELECT c.id, c.quote, c.section_ref, c.locator, c.document_id AS document, c.version_id AS version, d.url_canonical AS url,
         to_char(c.retrieved_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS retrieved_at, c.effective_from::text
    FROM citation c JOIN document d ON d.id = c.document_id WHERE c.id IN (${ids})`;

export const citationView = (r: Record<string, any>): CitationView => ({ ...(r as Omit<CitationView, 'href'>), href: `/citation/${r.id}` });

export async function citationsByIds(db: Queryable, ids: Array<string | null | undefined>): Promise<Map<string, CitationView>> {
  const wanted = [...new Set(ids.filter((x): x is string => Boolean(x)))];
  if (wanted.length === 0) return new Map();
  const { rows } = await db.query(CITATION_SQL('SELECT unnest($1::text[])'), [wanted]);
  return new Map(rows.map((r) => [r.id, citationView(r)]));
}
