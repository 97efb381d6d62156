// The codes a jurisdiction has in force on a date, as known at an instant: the code texts held
// (documents of its code_text sources whose sections are in force) with their outlines, and the
// building and fire codes its authorities say apply; and what is held when none is in force.
import type { Queryable } from './db.ts';
import type { Times } from './place/resolve.ts';

export interface CodeText {
  document: string;
  title: string;
  url: string | null;
  source: string;
  /** the latest version of the document a section in force was read from */
  version: string;
  version_number: number;
  retrieved_at: string;
  /** the earliest date a section in force took effect */
  effective_from: string;
  section_count: number;
}

export async function codeTextsInForce(db: Queryable, jurisdictionId: string, t: Times): Promise<CodeText[]> {
  const { rows } = await db.query(
    `SELECT doc.id AS document, doc.title, doc.url_canonical AS url, s.key AS source, count(*)::int AS section_count,
            min(lower(x.valid))::text AS effective_from, (array_agg(v.id ORDER BY v.number DESC))[1] AS version,
            max(v.number)::int AS version_number, to_char(max(v.retrieved_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS retrieved_at
       FROM section x JOIN document doc ON doc.id = x.document_id
       JOIN source s ON s.id = doc.source_id AND s.kind = 'code_text'
       JOIN document_version v ON v.id = x.source_version_id
      WHERE x.jurisdiction_id = $1 AND x.valid @> $2::date AND x.known @> $3::timestamptz
      GROUP BY doc.id, doc.title, doc.url_canonical, s.key ORDER BY doc.title, doc.id`,
    [jurisdictionId, t.asOf, t.knownAsOf],
  );
  return rows as CodeText[];
}

export interface OutlineEntry {
  ref: string;
  heading: string | null;
  parent_ref: string | null;
  depth: number;
  effective_from: string;
  effective_through: string | null;
  citation_id: string | null;
}

/** The sections of a code text in force, in the document's order. */
export async function outlineOf(db: Queryable, documentId: string, t: Times): Promise<OutlineEntry[]> {
  const { rows } = await db.query(
    `SELECT ref, heading, parent_ref, depth, lower(valid)::text AS effective_from, upper(valid)::text AS effective_through, citation_id
       FROM section WHERE document_id = $1 AND valid @> $2::date AND known @> $3::timestamptz ORDER BY ordinal, ref`,
    [documentId, t.asOf, t.knownAsOf],
  );
  return rows as OutlineEntry[];
}

export interface CodeTextsHeld {
  /** the jurisdiction's code_text sources (manifest keys) */
  sources: string[];
  /** the titles of the code texts read, as known at the instant */
  titles: string[];
  /** the earliest and latest dates a section of them is in force */
  from: string | null;
  through: string | null;
}

/** What is held of the jurisdiction's code texts at any date, as known at the instant. */
export async function codeTextsHeld(db: Queryable, jurisdictionId: string, knownAsOf: string): Promise<CodeTextsHeld> {
  const { rows } = await db.query(
    `SELECT (SELECT COALESCE(array_agg(key ORDER BY key), '{}') FROM source WHERE jurisdiction_id = $1 AND kind = 'code_text') AS sources,
            (SELECT COALESCE(array_agg(DISTINCT doc.title), '{}') FROM section x JOIN document doc ON doc.id = x.document_id
              WHERE x.jurisdiction_id = $1 AND x.known @> $2::timestamptz) AS titles,
            (SELECT min(lower(valid))::text FROM section WHERE jurisdiction_id = $1 AND known @> $2::timestamptz) AS "from",
            (SELECT CASE WHEN bool_or(upper_inf(valid)) THEN NULL ELSE max(upper(valid))::text END FROM section WHERE jurisdiction_id = $1 AND known @> $2::timestamptz) AS through`,
    [jurisdictionId, knownAsOf],
  );
  return rows[0] as CodeTextsHeld;
}

export interface CodeAuthority {
  id: string;
  subject: 'building_code' | 'fire_code';
  relationship: string | null;
  legal_name: string | null;
  basis: string;
  agency: Record<string, unknown> | null;
  citation_id: string | null;
  source: string;
  effective_from: string;
  effective_through: string | null;
  governing: { id: string; name: string; level: string };
}

/** The building and fire code authorities of the jurisdiction: in force on the date, or (date null) at any date. */
export async function codeAuthorities(db: Queryable, jurisdictionId: string, t: { asOf: string | null; knownAsOf: string }): Promise<CodeAuthority[]> {
  const { rows } = await db.query(
    `SELECT a.id, a.subject, a.relationship, a.legal_name, a.basis, a.agency, a.citation_id,
            COALESCE(s.key, a.source_id) AS source, lower(a.valid)::text AS effective_from, upper(a.valid)::text AS effective_through,
            json_build_object('id', g.id, 'name', g.name, 'level', g.level) AS governing
       FROM authority a JOIN jurisdiction g ON g.id = a.governing_jurisdiction_id LEFT JOIN source s ON s.id = a.source_id
      WHERE a.jurisdiction_id = $1 AND a.subject IN ('building_code', 'fire_code') AND a.known @> $3::timestamptz
        AND ($2::date IS NULL OR a.valid @> $2::date)
      ORDER BY a.subject, lower(a.valid)`,
    [jurisdictionId, t.asOf, t.knownAsOf],
  );
  return rows as CodeAuthority[];
}
