// Everything an answer about a place says around its facts, in one query: the jurisdiction, its
// coverage rows, its authorities for the subjects asked, and the change-feed watermark.
import type { Queryable } from '../db.ts';
import type { Times } from './resolve.ts';

export interface Frame {
  jurisdiction: { id: string; name: string; legal_name: string | null; fips_key: string; slug: string; timezone: string };
  coverage: Array<{ layer: string; held: boolean; tier: string; last_retrieved_at: string | null; last_changed_at: string | null; earliest_retained: string | null }>;
  authorities: Array<Record<string, any>>;
  through: number;
}

export async function loadFrame(db: Queryable, jurisdictionId: string, subjects: string[], t: Times): Promise<Frame> {
  const { rows } = await db.query(
    `SELECT (SELECT row_to_json(j) FROM (SELECT id, name, legal_name, fips_key, slug, timezone FROM jurisdiction WHERE id = $1) j) AS jurisdiction,
            (SELECT COALESCE(json_agg(c ORDER BY c.layer), '[]') FROM (
               SELECT layer, held, tier, last_retrieved_at, last_changed_at, earliest_retained::text FROM coverage WHERE jurisdiction_id = $1) c) AS coverage,
            (SELECT COALESCE(json_agg(a ORDER BY a.subject), '[]') FROM (
               SELECT a.id, a.subject, a.jurisdiction_id, a.governing_jurisdiction_id, a.basis, a.relationship, a.legal_name, a.agency,
                      a.citation_id, lower(a.valid)::text AS effective_from, upper(a.valid)::text AS effective_through, j.fips_key, j.slug, j.name
                 FROM authority a JOIN jurisdiction j ON j.id = a.jurisdiction_id
                WHERE a.jurisdiction_id = $1 AND a.subject = ANY($2::text[]) AND a.valid @> $3::date AND a.known @> $4::timestamptz) a) AS authorities,
            (SELECT COALESCE(max(seq), 0) FROM change_event WHERE detected_at <= $4::timestamptz) AS through`,
    [jurisdictionId, subjects, t.asOf, t.knownAsOf],
  );
  return { ...rows[0], through: Number(rows[0].through) };
}
