// What the store holds about a district beside its own row, as known at a time: the adopted
// ordinance that last changed it (linked by the change feed), whether the jurisdiction's zoning
// text and ordinances are held (why a value is withheld), and the citation a map gives a district.
import type { Queryable } from './db.ts';
import type { Times } from './place/resolve.ts';

export interface Amendment {
  district_id: string;
  id: string;
  number: string | null;
  title: string;
  adopted_on: string;
  effective_date: string | null;
  citation_id: string | null;
}

/**
 * The adopted ordinance behind the latest change to each district in force on as_of: a change
 * event naming the district (its map or row) or its code (its permissions and controls) that a
 * load linked to an ordinance, detected by known_as_of and effective by as_of.
 */
export async function lastAmendments(db: Queryable, jurisdictionId: string, districts: Array<{ id: string; code: string }>, t: Times): Promise<Map<string, Amendment>> {
  if (districts.length === 0) return new Map();
  const { rows } = await db.query(
    `SELECT DISTINCT ON (x.district_id) x.district_id, o.id, o.number, o.title, o.adopted_on::text, e.effective_date::text, o.citation_id
       FROM unnest($2::text[], $3::text[]) AS x(district_id, code)
       JOIN change_event e ON e.jurisdiction_id = $1 AND e.ordinance_id IS NOT NULL
            AND (e.subject->>'id' = x.district_id OR e.subject->>'district' = x.code)
            AND e.detected_at <= $5::timestamptz AND (e.effective_date IS NULL OR e.effective_date <= $4::date)
       CROSS JOIN LATERAL (
         SELECT o.id, o.number, o.title, o.adopted_on, o.citation_id FROM ordinance o
          WHERE o.id = e.ordinance_id AND o.known @> $5::timestamptz AND o.status = 'adopted' AND o.adopted_on <= $4::date
          ORDER BY upper_inf(o.valid) DESC, lower(o.valid) DESC LIMIT 1) o
      ORDER BY x.district_id, e.effective_date DESC NULLS LAST, e.seq DESC`,
    [jurisdictionId, districts.map((d) => d.id), districts.map((d) => d.code), t.asOf, t.knownAsOf],
  );
  return new Map(rows.map((r) => [r.district_id, r as Amendment]));
}

export interface Held {
  /** a zoning text of the jurisdiction was loaded by known_as_of */
  text: boolean;
  /** how many of its ordinances were known at known_as_of */
  ordinances: number;
}

export async function heldFor(db: Queryable, jurisdictionId: string, t: Times): Promise<Held> {
  const { rows } = await db.query(
    `SELECT EXISTS (SELECT 1 FROM source s JOIN document doc ON doc.source_id = s.id JOIN document_version v ON v.document_id = doc.id
                     WHERE s.jurisdiction_id = $1 AND s.kind = 'code_text' AND v.loaded_at <= $2::timestamptz) AS text,
            (SELECT count(DISTINCT o.id)::int FROM ordinance o WHERE o.jurisdiction_id = $1 AND o.known @> $2::timestamptz) AS ordinances`,
    [jurisdictionId, t.knownAsOf],
  );
  return rows[0];
}

/** The citation of each district's row as a map states it (the feature it was read from). */
export async function mapCitations(db: Queryable, ids: string[], t: Times): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const { rows } = await db.query(
    `SELECT DISTINCT ON (d.id) d.id, d.citation_id FROM district d JOIN source s ON s.id = d.source_id
      WHERE d.id = ANY($1::text[]) AND s.kind IN ('district_map', 'overlay_map') AND d.citation_id IS NOT NULL
        AND d.valid @> $2::date AND d.known @> $3::timestamptz
      ORDER BY d.id, d.fact_id DESC`,
    [ids, t.asOf, t.knownAsOf],
  );
  return new Map(rows.map((r) => [r.id, r.citation_id]));
}
