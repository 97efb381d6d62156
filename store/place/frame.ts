// Everything an answer about a place says around its facts, in one query: the jurisdiction, its
// coverage rows, its authorities for the subjects asked, the change-feed watermark, and whether
// a load of the jurisdiction holds the knowledge instant (then the caller settles it).
import { TtlMap } from '../../core/ttl-map.ts';
import { named, type Queryable } from '../db.ts';
import type { Times } from './resolve.ts';

/** Each source's entry of a coverage row (detail.sources): held, and the latest problem it recorded. */
export type CoverageSources = Record<string, { held?: boolean; problem?: { stage?: string; at?: string; reason?: string } }>;

export interface Frame {
  jurisdiction: { id: string; name: string; legal_name: string | null; fips_key: string; slug: string; timezone: string };
  coverage: Array<{ layer: string; held: boolean; tier: string; last_retrieved_at: string | null; last_changed_at: string | null; earliest_retained: string | null; sources: CoverageSources | null }>;
  authorities: Array<Record<string, any>>;
  through: number;
  /** a load of the jurisdiction held the knowledge instant (in flight, or its window holds it) */
  loadWindow: boolean;
}

export async function loadFrame(db: Queryable, jurisdictionId: string, subjects: string[], t: Times): Promise<Frame> {
  const { rows } = await db.query(
    named(
      'place-frame',
      `SELECT (SELECT row_to_json(j) FROM (SELECT id, name, legal_name, fips_key, slug, timezone FROM jurisdiction WHERE id = $1) j) AS jurisdiction,
            (SELECT COALESCE(json_agg(c ORDER BY c.layer), '[]') FROM (
               SELECT layer, held, tier, last_retrieved_at, last_changed_at, earliest_retained::text, detail->'sources' AS sources FROM coverage WHERE jurisdiction_id = $1) c) AS coverage,
            (SELECT COALESCE(json_agg(a ORDER BY a.subject), '[]') FROM (
               SELECT a.id, a.subject, a.jurisdiction_id, a.governing_jurisdiction_id, a.basis, a.relationship, a.legal_name, a.agency,
                      a.citation_id, lower(a.valid)::text AS effective_from, upper(a.valid)::text AS effective_through, j.fips_key, j.slug, j.name
                 FROM (SELECT * FROM authority WHERE jurisdiction_id = $1 AND subject = ANY($2::text[]) OFFSET 0) a JOIN jurisdiction j ON j.id = a.jurisdiction_id
                WHERE a.valid @> $3::date AND a.known @> $4::timestamptz) a) AS authorities,
            (SELECT COALESCE(max(seq), 0) FROM change_event WHERE detected_at <= $4::timestamptz) AS through,
            EXISTS (SELECT 1 FROM knowledge_load l WHERE tstzrange(l.detected_at, l.settled_at, '[)') @> $4::timestamptz AND $1 = ANY(l.jurisdiction_ids)) AS load_window`,
      [jurisdictionId, subjects, t.asOf, t.knownAsOf],
    ),
  );
  const { load_window, ...frame } = rows[0];
  return { ...frame, through: Number(frame.through), loadWindow: load_window };
}

export const KNOWLEDGE_CHANNEL = 'landlex_knowledge';

/**
 * Frames as known now, kept per (jurisdiction, subjects, as_of date) until a change of knowledge
 * is announced (migration 013) or a minute passes. Only frames asked as known now are kept, and
 * never one a load is writing. A frame read while a change was announced is not kept: the
 * generation it was read in has passed.
 */
export class FrameCache {
  private frames = new TtlMap<Frame>(60_000, 5_000);
  private generation = 0;

  /** Forget everything (knowledge changed, or a notice may have been missed). */
  clear() {
    this.generation++;
    this.frames.clear();
  }

  async get(db: Queryable, jurisdictionId: string, subjects: string[], t: Times): Promise<Frame> {
    const key = `${jurisdictionId}|${subjects.join(',')}|${t.asOf}`;
    const hit = this.frames.get(key);
    if (hit) return hit;
    const generation = this.generation;
    const frame = await loadFrame(db, jurisdictionId, subjects, t);
    if (!frame.loadWindow && generation === this.generation) this.frames.set(key, frame);
    return frame;
  }
}
