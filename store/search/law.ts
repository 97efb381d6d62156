// Searching the law's text across towns (GET /law, /section): ordinances (their titles), code
// sections (heading and body) and moratoriums (title and the uses they pause as printed), as one
// collection. Each hit is one version of its text: an ordinance's current record, a section's or a
// moratorium's version as known; its status on the date asked comes from its own dates.
//
// The collection reads a UNION ALL of the three tables. Every condition is plain SQL over its
// columns (no subquery), so PostgreSQL pushes each into the three branches, where it meets the
// tables' indexes (section_tsv, ordinance_title_fts: migration 026) and folds the CASE on the kind.
// Every value is bound.
import type { ResourceDef, SqlContext } from '../../core/query/resource.ts';
import { moratoriumStatus, pausesSql } from './moratorium.ts';
import { adoptedBy, onRecordBy, statusOn } from './ordinance.ts';
import { dayFrom, dayTo, knownAt, type SearchTimes } from './when.ts';

export const LAW_KINDS = ['ordinance', 'section', 'moratorium'] as const;
export const LAW_STATUSES = ['adopted', 'proposed', 'in_force', 'expired'] as const;
export type LawStatus = (typeof LAW_STATUSES)[number];

/** The words of a section, kept beside it and indexed (migration 026). */
const SECTION_TSV = 's.tsv';

const UNION = `(
  SELECT 'section'::text AS kind, s.id, s.fact_id, s.jurisdiction_id, s.valid, s.known,
         CASE WHEN s.heading IS NULL OR s.heading = s.ref THEN s.ref ELSE s.ref || ' ' || s.heading END AS title,
         coalesce(s.heading, '') || E'\\n' || s.body AS doc, ${SECTION_TSV} AS tsv, s.citation_id, s.source_version_id, s.document_id,
         NULL::text AS status, NULL::date AS introduced_on, NULL::date AS adopted_on, NULL::date AS effective_from, NULL::text[] AS subject,
         NULL::text AS number, NULL::text AS ordinance_id, NULL::bigint AS link_fact, NULL::tstzrange AS link_known,
         NULL::text[] AS uses, NULL::text[] AS use_labels, s.ref, s.heading, s.ordinal, s.depth, s.parent_ref
    FROM section s
  UNION ALL
  SELECT 'ordinance', o.id, o.fact_id, o.jurisdiction_id, o.valid, o.known, o.title, o.title, to_tsvector('english', o.title),
         o.citation_id, o.source_version_id, o.document_id, o.status, o.introduced_on, o.adopted_on, o.effective_from, o.subject,
         o.number, o.id, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL
    FROM ordinance o
  UNION ALL
  SELECT 'moratorium', m.id, m.fact_id, m.jurisdiction_id, m.valid, m.known, m.title,
         m.title || E'\\n' || array_to_string(m.use_labels, E'\\n'), to_tsvector('english', m.title || ' ' || array_to_string(m.use_labels, ' ')),
         m.citation_id, m.source_version_id, NULL, lo.status, lo.introduced_on, lo.adopted_on, lo.effective_from, lo.subject,
         lo.number, m.ordinance_id, lo.fact_id, lo.known, m.uses, m.use_labels, NULL, NULL, NULL, NULL, NULL
    FROM moratorium m LEFT JOIN ordinance lo ON lo.id = m.ordinance_id AND upper_inf(lo.valid)
)`;

const JURISDICTION = 'JOIN jurisdiction j ON j.id = h.jurisdiction_id';

/**
 * The collection ranked by words: the hits in RUM's distance order, asked of a subquery (its ORDER
 * BY is what lets the planner read sections in that order from section_tsv_rank, the conditions
 * still pushed into it), the page's last ties ordered by id above it, then joined to jurisdiction.
 */
const rankedFrom = (c: SqlContext) => {
  const q = tsquery(c);
  return `(SELECT u.*, u.tsv <=> ${q} AS rel FROM ${UNION} u ORDER BY u.tsv <=> ${q}) h ${JURISDICTION}`;
};

/** What a search asks besides times and scope. */
export interface LawAsk {
  q?: string;
  mode: 'literal' | 'regex';
  /** slugs asked (the use filter) */
  uses: string[];
  subjects: string[];
}

const tsquery = (c: SqlContext) => `websearch_to_tsquery('english', ${c.bind(c.query, 'text')})`;

/** The status of a hit on day x (ordinances: their own status; sections and moratoriums: law statuses). */
function statusSql(x: string) {
  const section = `(CASE WHEN upper(h.valid) <= ${x} THEN 'expired' WHEN h.valid @> ${x} THEN 'in_force' ELSE 'adopted' END)`;
  return `(CASE h.kind WHEN 'section' THEN ${section} WHEN 'ordinance' THEN ${statusOn(x, 'h')} ELSE ${moratoriumStatus('lower(h.valid)', 'upper(h.valid)', 'h').on(x)} END)`;
}

/**
 * Law hits over a search's dates and knowledge (null: field names only, to parse sort). `ask`
 * binds the use and subject conditions; `ranked` when the sort starts with relevance (best first).
 */
export function lawResource(
  t: SearchTimes | null,
  ask: LawAsk = { mode: 'literal', uses: [], subjects: [] },
  name = 'law',
  defaultSort = '-effective_from',
  ranked = false,
): ResourceDef {
  const b = (c: SqlContext) => (t ? dayTo(t, c, 'h.jurisdiction_id') : 'NULL::date');
  const adopted = (c: SqlContext, none: string) =>
    `(CASE WHEN h.kind = 'section' OR (h.kind = 'moratorium' AND h.status IS NULL) THEN NULL WHEN ${adoptedBy(b(c), 'h')} THEN h.adopted_on ELSE ${none} END)`;
  return {
    name,
    from: ranked ? rankedFrom : `${UNION} h ${JURISDICTION}`,
    id: `(h.kind || ':' || h.fact_id)`,
    select: `h.kind, h.id, h.fact_id, h.jurisdiction_id, j.name AS jurisdiction_name, j.slug AS jurisdiction_slug, h.title, h.citation_id,
             h.source_version_id, h.document_id, h.status AS status_listed, h.introduced_on::text, h.adopted_on::text AS adopted_listed,
             h.effective_from::text AS effective_listed, h.subject, h.number, h.ordinance_id, h.uses, h.use_labels, h.ref, h.heading,
             h.depth, h.parent_ref, lower(h.valid)::text AS valid_from, upper(h.valid)::text AS valid_to`,
    defaultSort,
    fields: {
      effective_from: {
        sql: (c) => `(CASE WHEN h.kind = 'ordinance' THEN (CASE WHEN ${adoptedBy(b(c), 'h')} THEN h.effective_from END) ELSE lower(h.valid) END)`,
        type: 'date',
        sortable: true,
      },
      adopted_on: { sql: (c) => adopted(c, 'NULL'), type: 'date', sortable: true },
      'jurisdiction.name': { sql: 'j.name', type: 'string', sortable: true, nullable: false },
      // RUM's cover-density distance: ascending is the best match first (decisions: Sort), read
      // in order from the section_tsv_rank index (migration 034) for sections
      relevance: { sql: (c) => (ranked ? 'h.rel' : `(h.tsv <=> ${tsquery(c)})`), type: 'number', cast: 'real', sortable: true, requiresQuery: true, filterable: false, nullable: false },
      ordinal: { sql: 'h.ordinal', type: 'integer', sortable: true, filterable: false },
      ref: { sql: 'h.ref', type: 'string', sortable: true, filterable: false },
      status: { sql: (c) => statusSql(b(c)), type: 'string', filterable: false },
      // conditions of plain parameters, NULL where the kind of hit cannot say (rule 1.2.7)
      adopted_low: { sql: (c) => adopted(c, `'-infinity'::date`), type: 'date', filterable: false },
      adopted_high: { sql: (c) => adopted(c, `'infinity'::date`), type: 'date', filterable: false },
      subject_match: {
        sql: (c) => `(CASE WHEN h.kind = 'section' THEN NULL ELSE h.subject && ${c.bind(ask.subjects, 'text[]')} END)`,
        type: 'boolean',
        filterable: false,
      },
      use_match: { sql: (c) => `(CASE WHEN h.kind = 'moratorium' THEN ${pausesSql('h.uses', 'h.use_labels', c.bind(ask.uses, 'text[]'))} END)`, type: 'boolean', filterable: false },
    },
  };
}

/** A value bound on first use only (an unused bound parameter has no type PostgreSQL can tell). */
function once(f: () => string): () => string {
  let v: string | undefined;
  return () => (v ??= f());
}

/** Statuses held on some day of [a, b] by a hit, per kind; with none asked, sections in force or to come. */
function statusWhere(statuses: LawStatus[] | undefined, a: () => string, b: () => string): string {
  const mor = moratoriumStatus('lower(h.valid)', 'upper(h.valid)', 'h');
  const section: Record<LawStatus, () => string> = {
    in_force: () => `h.valid && daterange(${a()}, ${b()}, '[]')`,
    expired: () => `upper(h.valid) <= ${b()}`,
    adopted: () => `(upper_inf(h.valid) OR upper(h.valid) > ${a()})`,
    proposed: () => 'false',
  };
  const first = () => `greatest(${a()}, coalesce(h.introduced_on, '-infinity'::date))`;
  const ordinance: Record<LawStatus, () => string> = {
    proposed: () => `${statusOn(first(), 'h')} IN ('proposed', 'introduced')`,
    adopted: () => adoptedBy(b(), 'h'),
    in_force: () => `(${adoptedBy(b(), 'h')} AND coalesce(h.effective_from, h.adopted_on, '-infinity'::date) <= ${b()})`,
    expired: () => 'false',
  };
  if (!statuses) return `(h.kind <> 'section' OR ${section.adopted()})`;
  const any = (m: Record<LawStatus, () => string>) => `(${statuses.map((s) => m[s]()).join(' OR ')})`;
  return `(CASE h.kind WHEN 'section' THEN ${any(section)} WHEN 'ordinance' THEN ${any(ordinance)} ELSE (${statuses.map((s) => mor.some(s, a, b)).join(' OR ')}) END)`;
}

/**
 * The hits a search lists: in scope, as known (an ordinance's current record; each version of a
 * section or moratorium), on record by the last day asked, of the kinds and statuses asked, and
 * matching q (words, a "phrase" or -words as websearch_to_tsquery reads them; or a regular expression).
 */
export function lawWhere(t: SearchTimes, ids: string[], kinds: string[] | undefined, statuses: LawStatus[] | undefined, ask: LawAsk) {
  const a = (c: SqlContext) => dayFrom(t, c, 'h.jurisdiction_id');
  const b = (c: SqlContext) => dayTo(t, c, 'h.jurisdiction_id');
  const k = (c: SqlContext) => knownAt(t, c, 'h.jurisdiction_id');
  const where = [
    (c: SqlContext) => `h.jurisdiction_id = ANY(${c.bind(ids, 'text[]')})`,
    (c: SqlContext) => `h.known @> ${k(c)} AND (h.link_fact IS NULL OR h.link_known @> ${k(c)})`,
    (c: SqlContext) =>
      `(CASE h.kind WHEN 'ordinance' THEN upper_inf(h.valid) AND ${onRecordBy(b(c), 'h')} WHEN 'moratorium' THEN ${moratoriumStatus('NULL', 'NULL', 'h').onRecord(b(c))} ELSE true END)`,
    (c: SqlContext) => statusWhere(statuses, once(() => a(c)), once(() => b(c))),
  ];
  if (kinds) where.push((c) => `h.kind = ANY(${c.bind(kinds, 'text[]')})`);
  if (ask.q !== undefined) where.push(ask.mode === 'regex' ? (c) => `h.doc ~* ${c.bind(ask.q, 'text')}` : (c) => `h.tsv @@ ${tsquery(c)}`);
  return where;
}

export const MARK_OPEN = '\u27e6';
export const MARK_CLOSE = '\u27e7';
const HEADLINE = `'MaxFragments=1, MaxWords=40, MinWords=15, StartSel=${MARK_OPEN}, StopSel=${MARK_CLOSE}'`;
const WHOLE = `'HighlightAll=true, StartSel=${MARK_OPEN}, StopSel=${MARK_CLOSE}'`;

export interface HitText {
  kind: string;
  fact_id: number;
  /** words: RUM's cover-density score of the hit's text, 1 / distance (as the relevance sort ranks it) */
  rank: number | null;
  /** literal: the headline with marks; regex: the text searched */
  headline: string | null;
  /** regex: the match in `headline`, 1-based character positions (0: none) */
  m_start: number | null;
  m_end: number | null;
  /** sections: whether the body (not only the heading) matched, and the body */
  in_body: boolean;
  body: string | null;
  ref: string | null;
  version_id: string | null;
  document_id: string | null;
  url: string | null;
  retrieved_at: string | null;
  effective_from: string | null;
  jurisdiction_id: string;
}

/**
 * Where q matched each hit of a page: a headline of the text (marked) for words, the first match
 * for a regular expression; for a section matched in its body, the body, so the passage can be
 * placed in the version text (after the heading its citation quotes) and cited.
 */
export function hitTextSql(ask: LawAsk) {
  const regex = ask.mode === 'regex';
  // the passage is the body's unless the heading alone matches (then the heading is the passage, cited as held)
  const inBody = regex ? `s.body ~* $3` : `NOT (to_tsvector('english', c.quote) @@ websearch_to_tsquery('english', $3))`;
  const text = regex ? 'h.doc' : `ts_headline('english', h.doc, websearch_to_tsquery('english', $3), ${WHOLE})`;
  const body = regex ? 's.body' : `ts_headline('english', s.body, websearch_to_tsquery('english', $3), ${HEADLINE})`;
  const heading = regex ? 'c.quote' : `ts_headline('english', c.quote, websearch_to_tsquery('english', $3), ${WHOLE})`;
  // the score the relevance sort orders by: 1 / RUM's distance
  const rank = (tsv: string) => (regex ? 'NULL::real' : `(1 / (${tsv} <=> websearch_to_tsquery('english', $3)))::real`);
  const pos = (x: string, end: 0 | 1) => (regex ? `regexp_instr(${x}, $3, 1, 1, ${end}, 'i')` : 'NULL::int');
  return `
  WITH hit AS (SELECT * FROM unnest($1::text[], $2::bigint[]) x(kind, fact_id)),
  t AS (
    SELECT 'ordinance' AS kind, o.fact_id, o.title AS doc FROM ordinance o JOIN hit ON hit.kind = 'ordinance' AND hit.fact_id = o.fact_id
    UNION ALL
    SELECT 'moratorium', m.fact_id, m.title || E'\\n' || array_to_string(m.use_labels, E'\\n') FROM moratorium m JOIN hit ON hit.kind = 'moratorium' AND hit.fact_id = m.fact_id)
  SELECT h.kind, h.fact_id, ${rank(`to_tsvector('english', h.doc)`)} AS rank, ${text} AS headline, ${pos('h.doc', 0)} AS m_start, ${pos('h.doc', 1)} AS m_end, false AS in_body,
         NULL AS body, NULL AS ref, NULL AS version_id, NULL AS document_id, NULL AS url, NULL AS retrieved_at, NULL AS effective_from, NULL AS jurisdiction_id
    FROM t h
  UNION ALL
  SELECT 'section', s.fact_id, ${rank(SECTION_TSV)}, CASE WHEN b.in_body THEN ${body} ELSE ${heading} END,
         CASE WHEN b.in_body THEN ${pos('s.body', 0)} ELSE ${pos('c.quote', 0)} END,
         CASE WHEN b.in_body THEN ${pos('s.body', 1)} ELSE ${pos('c.quote', 1)} END,
         b.in_body, CASE WHEN b.in_body THEN s.body END, s.ref, c.version_id, c.document_id, d.url_canonical, to_char(v.retrieved_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
         c.effective_from::text, s.jurisdiction_id
    FROM section s JOIN hit ON hit.kind = 'section' AND hit.fact_id = s.fact_id
    JOIN citation c ON c.id = s.citation_id JOIN document d ON d.id = c.document_id JOIN document_version v ON v.id = c.version_id
    CROSS JOIN LATERAL (SELECT s.body <> '' AND ${inBody} AS in_body) b`;
}

/** The whole text of a version: passages are placed in it (UTF-16 offsets, as every locator's) and checked against it. */
export const VERSION_TEXT_SQL = 'SELECT text FROM version_text WHERE version_id = $1';

/** The ordinances that made (or, for an expired version, ended) each section version: change events naming it on those dates. */
export const SECTION_ORDINANCE_SQL = `
  SELECT x.id, x.on_date::text, e.ordinance_id FROM unnest($1::text[], $2::date[], $4::text[]) x(id, on_date, j)
    JOIN LATERAL (SELECT e.ordinance_id FROM change_event e
                   WHERE e.jurisdiction_id = x.j AND e.subject->>'id' = x.id AND e.effective_date = x.on_date AND e.ordinance_id IS NOT NULL AND e.detected_at <= $3::timestamptz
                   ORDER BY e.seq DESC LIMIT 1) e ON true`;

/** Passage citations built at answer time (checked against the version text first) are kept like any other: immutable, id from version and offsets. */
export const INSERT_CITATION_SQL = `
  INSERT INTO citation (id, jurisdiction_id, document_id, version_id, quote, quote_sha256, locator, section_ref, provenance, effective_from, retrieved_at)
  SELECT $1, $2, $3, $4, $5, $6, $7::jsonb, $8, $9::jsonb, $10::date, v.retrieved_at FROM document_version v WHERE v.id = $4
  ON CONFLICT (id) DO NOTHING`;
