// Standalone ordinances in force at a date (a clerk's general ordinances: noise, solar, storage)
// that the code text in force does not codify: an ordinance the code names as its own adoption
// or amendment ("by Ordinance 2019-01", "(Ord. 2025-12, …)") is part of the code, not apart from it.
import type { Queryable } from '../../store/db.ts';
import { citationsByIds } from '../../store/evidence.ts';
import type { Times } from '../../store/place/resolve.ts';

export async function standaloneOrdinances(db: Queryable, jurisdictionId: string, t: Times) {
  const { rows } = await db.query(
    `WITH code AS MATERIALIZED (
       SELECT lower(x.text) AS text FROM version_text x
        WHERE x.version_id IN (SELECT DISTINCT source_version_id FROM section WHERE jurisdiction_id = $1 AND valid @> $2::date AND known @> $3::timestamptz))
     SELECT o.id, o.number, o.title, o.status, o.subject, o.introduced_on::text, o.adopted_on::text, o.effective_from::text, o.citation_id
       FROM ordinance o
      WHERE o.jurisdiction_id = $1 AND o.kind = 'standalone' AND o.status = 'adopted' AND o.valid @> $2::date AND o.known @> $3::timestamptz
        AND NOT EXISTS (SELECT 1 FROM code WHERE strpos(code.text, 'ordinance ' || lower(o.number)) > 0 OR strpos(code.text, 'ord. ' || lower(o.number)) > 0)
      ORDER BY o.effective_from NULLS LAST, o.number`,
    [jurisdictionId, t.asOf, t.knownAsOf],
  );
  const cites = await citationsByIds(db, rows.map((r) => r.citation_id));
  return rows.map((r) => ({
    id: r.id,
    number: r.number,
    title: r.title,
    kind: 'standalone',
    status: r.status,
    subject: r.subject,
    introduced_on: r.introduced_on,
    adopted_on: r.adopted_on,
    effective_from: r.effective_from,
    citation: r.citation_id ? (cites.get(r.citation_id) ?? null) : null,
  }));
}
