// What pending amendments' own texts instruct, and the held law they would change: the reads
// behind /v1/zoning?legal_status=proposed (api/town/proposed.ts).
import type { Queryable } from './db.ts';
import type { Times } from './place/resolve.ts';

export interface InstructionRow {
  ordinance_id: string;
  ordinal: number;
  action: 'replace' | 'rezone' | 'unread';
  target: 'section' | 'table' | 'map' | 'unknown';
  ref: string | null;
  row_code: string | null;
  column_label: string | null;
  control_type: string | null;
  struck: string | null;
  inserted: string | null;
  unit: string | null;
  from_code: string | null;
  from_name: string | null;
  to_code: string | null;
  to_name: string | null;
  land: string | null;
  address: string | null;
  reason: string | null;
  citation_id: string;
}

/** The instructions of each ordinance as its latest text known at knownAsOf gives them; which ordinances had a text read. */
export async function instructionsKnown(db: Queryable, ordinanceIds: string[], t: Times): Promise<{ rows: InstructionRow[]; read: Set<string> }> {
  if (ordinanceIds.length === 0) return { rows: [], read: new Set() };
  const { rows } = await db.query(
    `WITH latest AS (
       SELECT DISTINCT ON (r.ordinance_id) r.ordinance_id, r.source_version_id FROM ordinance_text_read r
        WHERE r.ordinance_id = ANY($1::text[]) AND r.known_from <= $2::timestamptz
        ORDER BY r.ordinance_id, r.known_from DESC)
     SELECT l.ordinance_id AS read_id, i.* FROM latest l LEFT JOIN amendment_instruction i ON i.source_version_id = l.source_version_id
      ORDER BY l.ordinance_id, i.ordinal`,
    [ordinanceIds, t.knownAsOf],
  );
  const read = new Set<string>(rows.map((r) => r.read_id as string));
  return { rows: rows.filter((r) => r.ordinance_id !== null) as InstructionRow[], read };
}

/** A jurisdiction's districts in force by code (normalized, upper case). */
export async function districtsByCode(db: Queryable, jurisdictionId: string, codes: string[], t: Times): Promise<Map<string, { id: string; kind: string }>> {
  if (codes.length === 0) return new Map();
  const { rows } = await db.query(
    `SELECT DISTINCT ON (upper(d.code_normalized)) upper(d.code_normalized) AS code, d.id, d.kind FROM district d
      WHERE d.jurisdiction_id = $1 AND upper(d.code_normalized) = ANY($2::text[]) AND d.valid @> $3::date AND d.known @> $4::timestamptz
      ORDER BY upper(d.code_normalized), d.kind`,
    [jurisdictionId, codes.map((c) => c.toUpperCase()), t.asOf, t.knownAsOf],
  );
  return new Map(rows.map((r) => [r.code as string, { id: r.id as string, kind: r.kind as string }]));
}

/** A section's body in force, by the code's own number. */
export async function sectionInForce(db: Queryable, jurisdictionId: string, ref: string, t: Times): Promise<{ body: string; heading: string | null; citation_id: string | null } | null> {
  const { rows } = await db.query(
    `SELECT body, heading, citation_id FROM section WHERE jurisdiction_id = $1 AND ref = $2 AND valid @> $3::date AND known @> $4::timestamptz ORDER BY lower(valid) DESC LIMIT 1`,
    [jurisdictionId, ref, t.asOf, t.knownAsOf],
  );
  return rows[0] ?? null;
}
