// The authority layer of coverage (spec 1.2.4): which subjects' authorities are held for a
// jurisdiction, and from which sources; read by /coverage and by the codes of one town.
import type { Queryable } from '../../store/db.ts';
import { MANIFEST_SOURCE } from '../../store/sources.ts';

/** The subjects an authority is held for (the authority table's vocabulary). */
const AUTHORITY_SUBJECTS = ['zoning', 'subdivision', 'building_code', 'fire_code'];

/**
 * The authority layer of each jurisdiction from the authorities in force today in its zone:
 * full when every subject has its authority, partial when some do; each source with the
 * document version its authorities cite and the subjects it states.
 */
export async function authorityLayers(db: Queryable, ids: string[]) {
  const { rows } = await db.query(
    `SELECT a.jurisdiction_id, a.subject, a.source_id, s.key AS source_key, s.kind AS source_kind, doc.doc_type, doc.authorship,
            v.document_id AS document, v.id AS version, v.retrieved_at
       FROM authority a JOIN jurisdiction j ON j.id = a.jurisdiction_id LEFT JOIN source s ON s.id = a.source_id
       LEFT JOIN document_version v ON v.id = a.source_version_id LEFT JOIN document doc ON doc.id = v.document_id
      WHERE a.jurisdiction_id = ANY($1) AND upper_inf(a.known) AND a.valid @> (now() AT TIME ZONE j.timezone)::date
      ORDER BY a.jurisdiction_id, a.subject`,
    [ids],
  );
  const out = new Map<string, Record<string, unknown>>();
  for (const id of ids) {
    const mine = rows.filter((r) => r.jurisdiction_id === id);
    const subjects = [...new Set(mine.map((r) => r.subject as string))];
    if (subjects.length === 0) {
      out.set(id, { layer: 'authority', held: false, tier: 'none', reason: 'no authority is held: no manifest or source of this jurisdiction states one' });
      continue;
    }
    const bySource = new Map<string, Record<string, any>>();
    for (const r of mine) {
      const entry = bySource.get(r.source_id) ?? {
        key: r.source_key ?? (r.source_id === MANIFEST_SOURCE ? 'manifest' : r.source_id),
        kind: r.source_kind ?? r.doc_type,
        authorship: r.authorship,
        document: r.document,
        version: r.version,
        retrieved_at: r.retrieved_at,
        subjects: [],
      };
      entry.subjects.push(r.subject);
      bySource.set(r.source_id, entry);
    }
    const retrieved = mine.map((r) => r.retrieved_at).filter(Boolean).sort((a, b) => b - a)[0] ?? null;
    out.set(id, {
      layer: 'authority',
      held: true,
      tier: subjects.length === AUTHORITY_SUBJECTS.length ? 'full' : 'partial',
      last_retrieved_at: retrieved,
      subjects,
      subjects_not_held: AUTHORITY_SUBJECTS.filter((s) => !subjects.includes(s)),
      source: [...bySource.values()],
    });
  }
  return out;
}
